// The adversary of the soak (`npm run soak -- --adversary`) and of the adversary integration test: a party who pays for
// nothing and knows everything public, and tries to be served or credited with other people's payments. He sees every
// transaction on the chains (the Solana fee payer's signatures and their wire bytes, Base's blocks and their calldata),
// every payment header the honest clients sent and every answer they got (a malicious proxy, a leaked log), every
// receipt, and when a pending payment lands. His verdict (checkAdversary) is read from the database: every served
// call's receipt covers the request its payer paid for, and nothing was served or credited to him that he did not pay.
import "server-only";
import { createKeyPairSignerFromBytes } from "@solana/kit";
import { x402Client, x402HTTPClient } from "@x402/core/client";
import { decodePaymentSignatureHeader } from "@x402/core/http";
import type { PaymentRequired, PaymentRequirements } from "@x402/core/types";
import { eip3009ABI } from "@x402/evm";
import { ExactSvmScheme } from "@x402/svm/exact/client";
import { decodeFunctionData, serializeSignature, type Hex } from "viem";
import type { PrismaClient } from "../../server/db";
import type { Ed25519Keypair } from "../../server/keys/parse-secret-key";
import { readStreamedAnswer } from "../../server/upstream/read-sse";
import { promptHashOfMessages, SHIPPED_NETWORKS } from "../../server/verify";
import { decodePaymentHeader } from "../../server/x402/payment-headers";
import { paymentIdempotencyKey } from "../../server/x402/idempotency-key";
import { serviceError } from "../../server/errors/error-body";
import { prng } from "./prng";
import { callMcpTool } from "./mcp-call";
import { MCP_META } from "../../server/mcp/mcp-payment-binding";
import { inferenceIdOfReceiptHeader, type PaidNetwork, type Sighting } from "./run-workload";
import { STATE } from "../../server/ledger/payment-states";

/** What the adversary tries. Each is a way to be served or credited with a payment he did not make for that request. */
const ATTACK_KINDS = [
  /** A landed Solana settlement read from the chain, wrapped in his own x402 payload, sent with his own prompt. */
  "wrap-landed-tx",
  /** The same, sent the moment an honest payer's pending transfer lands: racing its retry and the sweeper. */
  "race-landing",
  /** An EIP-3009 authorization read from a relayed transferWithAuthorization's calldata, sent with his own prompt. */
  "rebuild-evm-authorization",
  /** An honest payer's header re-sent with his own prompt. */
  "header-new-body",
  /** An honest payer's header re-sent naming mainnet and a provider model. */
  "header-mainnet-escape",
  /** His own devnet payment for the local model, re-sent while it waits naming mainnet and a provider model. */
  "own-payment-escape",
  /** An honest top-up's header re-sent naming his own key as the one credited. */
  "topup-new-beneficiary",
  /** The header of a call left unserved (its upstream failed), re-sent at once with his own prompt or for mainnet. */
  "unserved-takeover",
  /** The header of a call that was cut off (its server died), re-sent with his own prompt once its lease ran out. */
  "stale-lease-takeover",
  /** An honest header and body, byte for byte, after they were served: at most the stored answer again. */
  "exact-replay",
  /** An honest payment sent as an MCP `chat` tool call's `_meta` payment: with his own prompt, or the honest one. */
  "mcp-replay",
] as const;
export type AttackKind = (typeof ATTACK_KINDS)[number];

/**
 * How an attempt ended: refused (no 200); replayed (the stored answer of the honest call, no new service); own (his own
 * paid request, served: legitimate); SERVED or CREDITED (a service or credit he did not pay for: an invariant broken).
 */
type Verdict = "refused" | "replayed" | "own" | "SERVED" | "CREDITED";

export interface Attempt {
  kind: AttackKind;
  /** `status code`, e.g. `409 payment_request_mismatch`, `200`. */
  answer: string;
  verdict: Verdict;
  detail: string;
}

export interface AdversaryWorld {
  /** The service's instances, base URLs. */
  instances: () => string[];
  /** Each Solana chain: a fault-free RPC (he is not the one under test) and the fee payer whose signatures he lists. */
  solana: { name: "devnet" | "mainnet"; caip2: string; rpcUrl: string; feePayer: string }[];
  evm: { name: "base-sepolia" | "base"; caip2: string; rpcUrl: string; usdc: `0x${string}` }[];
  /** The price of one call, atomic units: a landed transfer of another amount was a top-up. */
  priceUnits: bigint;
  /** A provider model: on mainnet, served only to allowed agents. */
  providerModel: string;
  /** PAYMENT_LEASE_MS: when a dead server's claim may be taken over. */
  leaseMs: number;
  /** His own Solana wallet, funded with USDC on devnet (for his own payments) and never on the mainnet allowlist. */
  wallet: Ed25519Keypair;
  /** The Ed25519 key he would like credited. */
  beneficiary: Ed25519Keypair;
  seed: number;
  log?: (line: string) => void;
}

/** A landed transfer the adversary read from a chain. */
interface LandedSolana {
  network: "devnet" | "mainnet";
  signature: string;
  wire: string;
  units: bigint;
}
interface LandedAuthorization {
  network: "base-sepolia" | "base";
  hash: string;
  payload: { signature: Hex; authorization: Record<string, string> };
}

interface AnswerSeen {
  status: number;
  /** A 502 settlement_pending's transaction. */
  transaction: string | null;
  code: string | null;
  inferenceId: string | null;
  replayedHeader: boolean;
  creditedTo: string | null;
  retryAfterMs: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const REQUEST_TIMEOUT_MS = 60_000;
/** At most this many attacks in flight: he is one client among many, not a flood. */
const MAX_IN_FLIGHT = 3;
/** How long he watches a pending transaction for its landing. */
const WATCH_LANDING_MS = 45_000;
/** How many attempts the closing pass makes against everything seen, at most. */
const CLOSING_PASS_MAX = 60;

async function rpc<T>(url: string, method: string, params: unknown[]): Promise<T | null> {
  try {
    const res = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
      signal: AbortSignal.timeout(10_000),
    });
    const body = (await res.json()) as { result?: T; error?: unknown };
    return body.result ?? null;
  } catch {
    return null;
  }
}

const encodeHeader = (payload: object) => Buffer.from(JSON.stringify(payload), "utf8").toString("base64");
const keyOf = (header: string): string | null => {
  const decoded = decodePaymentHeader(header, SHIPPED_NETWORKS);
  return decoded.ok ? paymentIdempotencyKey(decoded.payload) : null;
};

/** The adversary: feed it the honest traffic with `observe`, `start()` it, and `finish()` when the honest calls are done. */
export class Adversary {
  readonly attempts: Attempt[] = [];
  /** Every honest header's first body, by the payment's idempotency key: what its payer paid for. */
  readonly honest = new Map<string, { path: string; body: string }>();
  /** His own payments: what he paid for. */
  readonly own = new Map<string, { path: string; body: string }>();
  /** Inference ids served to honest clients. */
  readonly honestInferences = new Set<string>();
  /** Hashes of every prompt he sent under a payment that was not his own for that prompt. */
  readonly attackPromptHashes = new Set<string>();
  private readonly sightings: Sighting[] = [];
  private readonly landedSolana: LandedSolana[] = [];
  private readonly landedEvm: LandedAuthorization[] = [];
  private readonly seenTx = new Set<string>();
  private readonly watched = new Set<string>();
  private readonly challenges = new Map<string, PaymentRequirements>();
  private readonly evmHead = new Map<string, bigint>();
  private readonly rand: () => number;
  private readonly tasks = new Set<Promise<void>>();
  private inFlight = 0;
  private stopped = false;
  private loops: Promise<void>[] = [];
  private counter = 0;

  constructor(private readonly world: AdversaryWorld) {
    this.rand = prng(world.seed);
  }

  /** Told of every honest send (a proxy's view). */
  readonly observe = (s: Sighting): void => {
    if (this.stopped) return;
    this.sightings.push(s);
    const key = keyOf(s.header);
    if (key && !this.honest.has(key)) this.honest.set(key, { path: s.path, body: s.body });
    if (s.status === 200 && s.inferenceId) this.honestInferences.add(s.inferenceId);
    if (s.status === 502 && s.error === "settlement_pending" && s.transaction) this.watchLanding(s);
    if (s.status === 502 && s.error === "settlement_pending" && s.path.endsWith("/credits"))
      this.spawn(() => this.topUpNewBeneficiary(s));
    if (s.status === 502 && s.error === "upstream_error")
      this.spawn(() =>
        this.rand() < 0.5
          ? this.headerNewBody(s, "unserved-takeover")
          : this.headerMainnetEscape(s, "unserved-takeover"),
      );
    if (s.status === 0)
      this.spawn(async () => {
        await sleep(this.world.leaseMs + 1_000);
        if (!this.stopped) await this.headerNewBody(s, "stale-lease-takeover");
      });
  };

  /** Starts reading the chains and attacking, until `finish()`. */
  start(): void {
    this.loops.push(this.pollChains(), this.attackLoop());
  }

  /** Stops the random attacks, waits for the watches, then makes one closing pass over everything he saw. */
  async finish(): Promise<void> {
    this.stopped = true;
    await Promise.all(this.loops);
    while (this.tasks.size) await Promise.all([...this.tasks]);
    await this.readChains();
    const closing: (() => Promise<void>)[] = [];
    for (const landed of this.landedSolana) closing.push(() => this.wrapLanded(landed, "wrap-landed-tx"));
    for (const landed of this.landedEvm) closing.push(() => this.rebuildAuthorization(landed));
    for (const s of this.distinctHeaders()) {
      if (s.path.endsWith("/credits")) closing.push(() => this.topUpNewBeneficiary(s));
      else
        closing.push(
          () => this.headerNewBody(s, "header-new-body"),
          () => this.headerMainnetEscape(s),
        );
      if (s.inferenceId) closing.push(() => this.exactReplay(s));
    }
    const chosen = closing.sort(() => this.rand() - 0.5).slice(0, CLOSING_PASS_MAX);
    for (let i = 0; i < chosen.length; i += MAX_IN_FLIGHT)
      await Promise.all(chosen.slice(i, i + MAX_IN_FLIGHT).map((f) => f().catch(() => {})));
  }

  /** A fresh prompt of his own. */
  private prompt(what: string): { role: string; content: string }[] {
    this.counter++;
    return [{ role: "user", content: `adversary ${what} #${this.counter} (seed ${this.world.seed})` }];
  }

  private spawn(task: () => Promise<void>): void {
    const p = task()
      .catch((err: unknown) => this.world.log?.(`adversary: ${String((err as Error)?.message ?? err).slice(0, 160)}`))
      .finally(() => this.tasks.delete(p));
    this.tasks.add(p);
  }

  private distinctHeaders(): Sighting[] {
    const seen = new Map<string, Sighting>();
    // The last sighting of each header: its final answer (served, with its inference id, if it was).
    for (const s of this.sightings)
      if (s.header) seen.set(s.header, s.inferenceId || !seen.get(s.header)?.inferenceId ? s : seen.get(s.header)!);
    return [...seen.values()];
  }

  private async attackLoop(): Promise<void> {
    while (!this.stopped) {
      await sleep(150 + this.rand() * 450);
      if (this.stopped || this.inFlight >= MAX_IN_FLIGHT) continue;
      const attack = this.pickAttack();
      if (!attack) continue;
      this.inFlight++;
      this.spawn(() => attack().finally(() => this.inFlight--));
    }
  }

  private pickAttack(): (() => Promise<void>) | null {
    const headers = this.distinctHeaders();
    const chat = headers.filter((s) => s.path.endsWith("/chat/completions"));
    const topups = headers.filter((s) => s.path.endsWith("/credits"));
    const served = chat.filter((s) => s.inferenceId);
    const one = <T>(xs: T[]): T => xs[Math.floor(this.rand() * xs.length)]!;
    const options: [number, () => Promise<void>][] = [];
    if (this.landedSolana.length) options.push([3, () => this.wrapLanded(one(this.landedSolana), "wrap-landed-tx")]);
    if (this.landedEvm.length) options.push([2, () => this.rebuildAuthorization(one(this.landedEvm))]);
    if (chat.length)
      options.push(
        [2, () => this.headerNewBody(one(chat), "header-new-body")],
        [2, () => this.headerMainnetEscape(one(chat))],
      );
    if (topups.length) options.push([1, () => this.topUpNewBeneficiary(one(topups))]);
    if (served.length) options.push([1, () => this.exactReplay(one(served))]);
    if (chat.length) options.push([3, () => this.mcpReplay(one(chat))]);
    options.push([1, () => this.ownPaymentEscape()]);
    const total = options.reduce((s, [w]) => s + w, 0);
    let x = this.rand() * total;
    for (const [w, f] of options) if ((x -= w) < 0) return f;
    return options.at(-1)![1];
  }

  // ---- what he reads from the chains ----

  private async pollChains(): Promise<void> {
    while (!this.stopped) {
      await this.readChains().catch(() => {});
      await sleep(400);
    }
  }

  private async readChains(): Promise<void> {
    for (const chain of this.world.solana) {
      const list = await rpc<{ signature: string; err: unknown }[]>(chain.rpcUrl, "getSignaturesForAddress", [
        chain.feePayer,
        { limit: 1000, commitment: "confirmed" },
      ]);
      for (const entry of list ?? []) {
        if (entry.err !== null || this.seenTx.has(entry.signature)) continue;
        const landed = await this.readSolanaTransaction(chain, entry.signature);
        if (landed) this.landedSolana.push(landed);
      }
    }
    for (const chain of this.world.evm) {
      const head = BigInt((await rpc<Hex>(chain.rpcUrl, "eth_blockNumber", [])) ?? "0x0");
      for (let n = (this.evmHead.get(chain.caip2) ?? 0n) + 1n; n <= head; n++) {
        const block = await rpc<{ transactions: { hash: string; to: string | null; input: Hex }[] }>(
          chain.rpcUrl,
          "eth_getBlockByNumber",
          [`0x${n.toString(16)}`, true],
        );
        for (const tx of block?.transactions ?? []) {
          if (tx.to?.toLowerCase() !== chain.usdc.toLowerCase() || this.seenTx.has(tx.hash)) continue;
          this.seenTx.add(tx.hash);
          const auth = authorizationOf(tx.input);
          if (auth) this.landedEvm.push({ network: chain.name, hash: tx.hash, payload: auth });
        }
        this.evmHead.set(chain.caip2, n);
      }
    }
  }

  private async readSolanaTransaction(
    chain: AdversaryWorld["solana"][number],
    signature: string,
  ): Promise<LandedSolana | null> {
    type Balance = { accountIndex: number; uiTokenAmount: { amount: string } };
    const tx = await rpc<{
      transaction: [string, string];
      meta: { err: unknown; preTokenBalances?: Balance[]; postTokenBalances?: Balance[] };
    }>(chain.rpcUrl, "getTransaction", [
      signature,
      { encoding: "base64", commitment: "confirmed", maxSupportedTransactionVersion: 0 },
    ]);
    if (!tx) return null;
    this.seenTx.add(signature);
    if (tx.meta.err !== null) return null;
    // What arrived: the largest increase of a token account in the transaction.
    let units = 0n;
    for (const post of tx.meta.postTokenBalances ?? []) {
      const pre = tx.meta.preTokenBalances?.find((b) => b.accountIndex === post.accountIndex);
      const delta = BigInt(post.uiTokenAmount.amount) - BigInt(pre?.uiTokenAmount.amount ?? "0");
      if (delta > units) units = delta;
    }
    return { network: chain.name, signature, wire: tx.transaction[0], units };
  }

  /** Watches an honest payer's pending transaction and attacks the moment it lands. */
  private watchLanding(s: Sighting): void {
    const tx = s.transaction!;
    if (this.watched.has(tx)) return;
    this.watched.add(tx);
    const solana = this.world.solana.find((c) => c.name === s.network);
    const evm = this.world.evm.find((c) => c.name === s.network);
    this.spawn(async () => {
      const deadline = Date.now() + WATCH_LANDING_MS;
      while (Date.now() < deadline) {
        if (solana) {
          const landed = await this.readSolanaTransaction(solana, tx);
          if (landed) {
            this.landedSolana.push(landed);
            const onHeader = s.path.endsWith("/credits")
              ? this.topUpNewBeneficiary(s, "race-landing")
              : this.rand() < 0.5
                ? this.headerNewBody(s, "race-landing")
                : this.headerMainnetEscape(s, "race-landing");
            await Promise.all([this.wrapLanded(landed, "race-landing"), onHeader]);
            return;
          }
        } else if (evm) {
          const receipt = await rpc<{ status: string }>(evm.rpcUrl, "eth_getTransactionReceipt", [tx]);
          if (receipt) {
            await (s.path.endsWith("/credits")
              ? this.topUpNewBeneficiary(s, "race-landing")
              : this.rand() < 0.5
                ? this.headerNewBody(s, "race-landing")
                : this.headerMainnetEscape(s, "race-landing"));
            return;
          }
        } else return;
        await sleep(100);
      }
    });
  }

  // ---- the attacks ----

  /** A requirement from a 402 challenge of the chat route on `network`: the `accepted` of his forged payloads. */
  private async requirement(network: PaidNetwork): Promise<PaymentRequirements | null> {
    const cached = this.challenges.get(network);
    if (cached) return cached;
    const challenge = await this.challenge({
      model: "local/echo-1",
      network,
      messages: this.prompt("asking the price"),
    });
    const accepted = challenge?.accepts[0] ?? null;
    if (accepted) this.challenges.set(network, accepted);
    return accepted;
  }

  private async challenge(body: object): Promise<PaymentRequired | null> {
    const res = await fetch(`${this.instance()}/api/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    }).catch(() => null);
    if (!res || res.status !== 402) return null;
    const json = (await res.json().catch(() => null)) as unknown;
    try {
      return new x402HTTPClient(new x402Client()).getPaymentRequiredResponse((n) => res.headers.get(n), json);
    } catch {
      return null;
    }
  }

  private instance(): string {
    const all = this.world.instances();
    return all[Math.floor(this.rand() * all.length)]!;
  }

  private chatBody(network: PaidNetwork, what: string): Record<string, unknown> {
    const messages = this.prompt(what);
    this.attackPromptHashes.add(promptHashOfMessages(messages));
    return { model: "local/echo-1", network, messages, max_tokens: 32 };
  }

  private escapeBody(what: string): Record<string, unknown> {
    const messages = this.prompt(what);
    this.attackPromptHashes.add(promptHashOfMessages(messages));
    return { model: this.world.providerModel, network: "mainnet", messages, max_tokens: 32 };
  }

  async wrapLanded(landed: LandedSolana, kind: AttackKind): Promise<void> {
    const accepted = await this.requirement(landed.network);
    if (!accepted) return;
    const header = encodeHeader({ x402Version: 2, accepted, payload: { transaction: landed.wire } });
    const topup = landed.units > this.world.priceUnits;
    if (topup)
      await this.send(
        kind,
        "/api/v1/credits",
        { amount_usdc: "0.02", network: landed.network, agent_pubkey: this.world.beneficiary.publicKeyBase58 },
        header,
        `wrapped ${landed.signature.slice(0, 12)}`,
      );
    else
      await this.send(
        kind,
        "/api/v1/chat/completions",
        this.chatBody(landed.network, "wrapped someone's transfer"),
        header,
        `wrapped ${landed.signature.slice(0, 12)}`,
      );
  }

  async rebuildAuthorization(landed: LandedAuthorization): Promise<void> {
    const accepted = await this.requirement(landed.network);
    if (!accepted) return;
    const header = encodeHeader({ x402Version: 2, accepted, payload: landed.payload });
    if (this.rand() < 0.3) {
      await this.send(
        "rebuild-evm-authorization",
        "/api/v1/credits",
        { amount_usdc: "0.02", network: landed.network, agent_pubkey: this.world.beneficiary.publicKeyBase58 },
        header,
        `calldata of ${landed.hash.slice(0, 12)}`,
      );
    } else {
      await this.send(
        "rebuild-evm-authorization",
        "/api/v1/chat/completions",
        this.chatBody(landed.network, "rebuilt someone's authorization"),
        header,
        `calldata of ${landed.hash.slice(0, 12)}`,
      );
    }
  }

  async headerNewBody(s: Sighting, kind: AttackKind): Promise<void> {
    if (s.path.endsWith("/credits")) return this.topUpNewBeneficiary(s, kind);
    const honest = JSON.parse(s.body) as { stream?: boolean };
    // Sometimes his own prompt only, sometimes also without the honest stream flag.
    const body = {
      ...this.chatBody(s.network, "riding someone's header"),
      ...(honest.stream && this.rand() < 0.5 ? { stream: true } : {}),
    };
    await this.send(kind, s.path, body, s.header, `honest ${s.network} header`);
  }

  async headerMainnetEscape(s: Sighting, kind: AttackKind = "header-mainnet-escape"): Promise<void> {
    if (s.path.endsWith("/credits")) return this.topUpNewBeneficiary(s, kind);
    await this.send(
      kind,
      "/api/v1/chat/completions",
      this.escapeBody("escaping to mainnet on someone's header"),
      s.header,
      `honest ${s.network} header`,
    );
  }

  async topUpNewBeneficiary(s: Sighting, kind: AttackKind = "topup-new-beneficiary"): Promise<void> {
    const honest = JSON.parse(s.body) as Record<string, unknown>;
    await this.send(
      kind,
      "/api/v1/credits",
      { ...honest, agent_pubkey: this.world.beneficiary.publicKeyBase58 },
      s.header,
      `honest ${s.network} top-up`,
    );
  }

  async exactReplay(s: Sighting): Promise<void> {
    await this.send("exact-replay", s.path, JSON.parse(s.body) as object, s.header, `served ${s.network} call`, s.body);
  }

  /** Pays on devnet for the local model himself; while the payment waits, re-sends it naming mainnet and a provider model. */
  async ownPaymentEscape(): Promise<void> {
    const paid = { model: "local/echo-1", network: "devnet", messages: this.prompt("own paid call"), max_tokens: 32 };
    const required = await this.challenge(paid);
    const devnet = this.world.solana.find((c) => c.name === "devnet");
    if (!required || !devnet) return;
    const { wallet } = this.world;
    const signer = await createKeyPairSignerFromBytes(new Uint8Array([...wallet.seed, ...wallet.publicKey]));
    const client = new x402Client();
    client.register(devnet.caip2 as never, new ExactSvmScheme(signer, { rpcUrl: devnet.rpcUrl }));
    const header = new x402HTTPClient(client).encodePaymentSignatureHeader(await client.createPaymentPayload(required))[
      "PAYMENT-SIGNATURE"
    ]!;
    const key = keyOf(header);
    const text = JSON.stringify(paid);
    if (key) this.own.set(key, { path: "/api/v1/chat/completions", body: text });
    let answer = await this.send(
      "own-payment-escape",
      "/api/v1/chat/completions",
      paid,
      header,
      "his own payment",
      text,
    );
    if (answer?.status === 200) return;
    const escape = () =>
      this.send(
        "own-payment-escape",
        "/api/v1/chat/completions",
        this.escapeBody("escaping on his own devnet payment"),
        header,
        "his own waiting payment, re-sent for mainnet",
      );
    await escape();
    // Again the moment his transfer lands: the payment is then ready to serve.
    const deadline = Date.now() + WATCH_LANDING_MS;
    while (
      answer?.transaction &&
      Date.now() < deadline &&
      !(await this.readSolanaTransaction(devnet, answer.transaction))
    )
      await sleep(100);
    await escape();
    // Then he finishes his own call, as any payer would.
    for (
      let i = 0;
      i < 8 &&
      answer &&
      answer.status !== 200 &&
      (answer.status === 502 || answer.status === 503 || answer.status === 409);
      i++
    ) {
      await sleep(Math.min(answer.retryAfterMs, 5_000));
      answer = await this.send(
        "own-payment-escape",
        "/api/v1/chat/completions",
        paid,
        header,
        "his own payment, retried",
        text,
      );
    }
  }

  /**
   * An honest chat payment (its header decoded) spent through the MCP server's `chat` tool: with his own prompt (never
   * served), or with the honest request's arguments after it was served (at most its stored answer again).
   */
  async mcpReplay(s: Sighting): Promise<void> {
    const honest = JSON.parse(s.body) as Record<string, unknown>;
    if (honest.stream !== undefined || typeof honest.max_tokens === "number") return;
    const exact = s.inferenceId !== null && this.rand() < 0.5;
    const args = exact ? honest : this.chatBody(s.network, "riding someone's payment over MCP");
    const payment = decodePaymentSignatureHeader(s.header);
    const seen = await callMcpTool(this.instance(), "chat", args, { [MCP_META.payment]: payment }, REQUEST_TIMEOUT_MS);
    const answer = seen.status === 0 ? "cut" : `${seen.status}${seen.error ? ` ${seen.error}` : ""}`;
    let verdict: Verdict = "refused";
    if (seen.status === 200)
      verdict =
        exact && seen.inferenceId !== null && this.honestInferences.has(seen.inferenceId) ? "replayed" : "SERVED";
    this.attempts.push({
      kind: "mcp-replay",
      answer,
      verdict,
      detail: `honest ${s.network} payment over MCP${exact ? ", the honest arguments" : ""}${seen.inferenceId ? `, inference ${seen.inferenceId}` : ""}`,
    });
    if (verdict === "SERVED") this.world.log?.(`adversary SERVED by mcp-replay: ${answer}`);
  }

  /** Sends one attempt and judges its answer. `exact` is the honest body text when he re-sends it byte for byte. */
  private async send(
    kind: AttackKind,
    path: string,
    body: object,
    header: string,
    detail: string,
    exact?: string,
  ): Promise<AnswerSeen | null> {
    const text = exact ?? JSON.stringify(body);
    const res = await fetch(`${this.instance()}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", "PAYMENT-SIGNATURE": header },
      body: text,
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    }).catch(() => null);
    const seen = res ? await readAttemptAnswer(res) : null;
    const answer = seen ? `${seen.status}${seen.code ? ` ${seen.code}` : ""}` : "cut";
    const key = keyOf(header);
    const mine = key !== null && this.own.get(key)?.body === text && this.own.get(key)?.path === path;
    const honest = key !== null ? this.honest.get(key) : undefined;
    let verdict: Verdict = "refused";
    if (seen?.status === 200) {
      if (mine) verdict = "own";
      else if (path.endsWith("/credits"))
        verdict =
          seen.creditedTo === this.world.beneficiary.publicKeyBase58 || honest?.body !== text ? "CREDITED" : "replayed";
      else if (
        exact !== undefined &&
        honest?.body === text &&
        seen.inferenceId !== null &&
        this.honestInferences.has(seen.inferenceId)
      )
        verdict = "replayed";
      else verdict = "SERVED";
    }
    this.attempts.push({
      kind,
      answer,
      verdict,
      detail: `${detail}${seen?.inferenceId ? `, inference ${seen.inferenceId}` : ""}${seen?.replayedHeader ? ", X-Answer-Replayed" : ""}`,
    });
    if (verdict === "SERVED" || verdict === "CREDITED")
      this.world.log?.(`adversary ${verdict} by ${kind}: ${answer} (${detail})`);
    return seen;
  }
}

async function readAttemptAnswer(res: Response): Promise<AnswerSeen> {
  const retryAfterMs = Math.max(1, Number(res.headers.get("retry-after")) || 2) * 1_000;
  const replayedHeader = res.headers.get("x-answer-replayed") === "true";
  if (res.status === 200 && res.headers.get("content-type")?.includes("text/event-stream")) {
    const streamed = await readStreamedAnswer(res.body!).catch(() => null);
    return {
      status: 200,
      transaction: null,
      code: streamed?.error?.code ?? null,
      inferenceId: streamed?.receipt ? String(streamed.receipt.inference_id) : null,
      replayedHeader,
      creditedTo: null,
      retryAfterMs,
    };
  }
  const text = await res.text().catch(() => "");
  let body: { agent_pubkey?: string } = {};
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    body = {};
  }
  const error = serviceError(body).fields as { code?: string; transaction?: string };
  const receipt = res.headers.get("x-service-receipt");
  const inferenceId = inferenceIdOfReceiptHeader(receipt);
  return {
    status: res.status,
    transaction: typeof error.transaction === "string" ? error.transaction : null,
    code: error.code ?? null,
    inferenceId,
    replayedHeader,
    creditedTo: res.status === 200 ? (body.agent_pubkey ?? null) : null,
    retryAfterMs,
  };
}

/** The x402 exact EVM payload of a transferWithAuthorization call, rebuilt from its calldata; null for any other call. */
function authorizationOf(input: Hex): LandedAuthorization["payload"] | null {
  try {
    const call = decodeFunctionData({ abi: eip3009ABI, data: input });
    if (call.functionName !== "transferWithAuthorization") return null;
    const args = call.args as readonly unknown[];
    const [from, to, value, validAfter, validBefore, nonce] = args as [string, string, bigint, bigint, bigint, Hex];
    const signature =
      args.length === 9
        ? serializeSignature({ v: BigInt(args[6] as number), r: args[7] as Hex, s: args[8] as Hex })
        : (args[6] as Hex);
    return {
      signature,
      authorization: {
        from,
        to,
        value: value.toString(),
        validAfter: validAfter.toString(),
        validBefore: validBefore.toString(),
        nonce,
      },
    };
  } catch {
    return null;
  }
}

export interface AdversaryVerdict {
  table: string;
  failures: string[];
}

/**
 * The adversary's invariants, read from the database once the run is over:
 * - every served paid call's receipt covers the request its payer paid for (prompt hash of that request's messages);
 * - nothing was served to the adversary (no new inference for an attempt) and nothing credited to his keys;
 * - every top-up credited the beneficiary its payer named;
 * - every served chat payment has exactly one served call.
 */
export async function checkAdversary(
  prisma: PrismaClient,
  adversary: Adversary,
  world: Pick<AdversaryWorld, "wallet" | "beneficiary" | "seed">,
): Promise<AdversaryVerdict> {
  const failures: string[] = [];
  const lines: string[] = [];
  const attempts = adversary.attempts;

  for (const a of attempts)
    if (a.verdict === "SERVED" || a.verdict === "CREDITED")
      failures.push(`adversary ${a.verdict} by ${a.kind}: ${a.answer} (${a.detail})`);

  const payments = await prisma.payment.findMany({
    select: { id: true, idempotencyKey: true, payer: true, status: true, purpose: true, network: true },
  });
  const paymentById = new Map(payments.map((p) => [p.id, p]));
  const rows = await prisma.inferenceLog.findMany({
    select: { id: true, agentPubkey: true, paymentId: true, receipt: true },
  });
  const adversaryKeys = new Set([world.wallet.publicKeyBase58, world.beneficiary.publicKeyBase58]);
  let servedToHim = 0;
  const servedByPayment = new Map<string, number>();
  for (const row of rows) {
    const receipt = row.receipt as { prompt_hash?: string } | null;
    if (receipt?.prompt_hash && adversary.attackPromptHashes.has(receipt.prompt_hash)) servedToHim++;
    if (!row.paymentId) {
      if (adversaryKeys.has(row.agentPubkey))
        failures.push(`inference ${row.id}: a prepaid call served to the adversary's key`);
      continue;
    }
    servedByPayment.set(row.paymentId, (servedByPayment.get(row.paymentId) ?? 0) + 1);
    const payment = paymentById.get(row.paymentId);
    const paidFor = payment
      ? (adversary.honest.get(payment.idempotencyKey) ?? adversary.own.get(payment.idempotencyKey))
      : undefined;
    if (!payment || !paidFor) {
      failures.push(`inference ${row.id}: served from payment ${row.paymentId}, whose header no client sent`);
      continue;
    }
    const messages = (JSON.parse(paidFor.body) as { messages?: unknown[] }).messages ?? [];
    if (receipt?.prompt_hash !== promptHashOfMessages(messages)) {
      failures.push(
        `inference ${row.id}: its receipt covers a prompt its payer ${payment.payer} did not pay for (payment ${payment.network} ${payment.status})`,
      );
    }
  }
  for (const p of payments) {
    if (p.purpose === "call" && p.status === STATE.served && servedByPayment.get(p.id) !== 1)
      failures.push(`payment ${p.id} is served with ${servedByPayment.get(p.id) ?? 0} served calls`);
  }

  // Credits: none to his beneficiary key; to his wallet only his own payments; every top-up to the key its payer named.
  const entries = await prisma.ledgerEntry.findMany({
    where: { kind: { in: ["payment_credit", "topup_credit", "grant_credit"] } },
    select: { agentPubkey: true, kind: true, units: true, paymentId: true },
  });
  let creditedToHim = 0n;
  for (const e of entries) {
    const payment = e.paymentId ? paymentById.get(e.paymentId) : undefined;
    const mine = payment !== undefined && adversary.own.has(payment.idempotencyKey);
    if (adversaryKeys.has(e.agentPubkey) && !mine) {
      creditedToHim += e.units;
      failures.push(`${e.kind} of ${e.units} units to the adversary's key ${e.agentPubkey.slice(0, 8)}…`);
    }
    if (e.kind === "topup_credit" && payment) {
      const honest = adversary.honest.get(payment.idempotencyKey);
      const named = honest
        ? ((JSON.parse(honest.body) as { agent_pubkey?: string }).agent_pubkey ?? payment.payer)
        : null;
      if (named !== null && e.agentPubkey !== named)
        failures.push(
          `top-up ${payment.id} credited ${e.agentPubkey.slice(0, 8)}…, not the beneficiary its payer named (${named.slice(0, 8)}…)`,
        );
    }
  }

  const byKind = new Map<AttackKind, Attempt[]>();
  for (const a of attempts) byKind.set(a.kind, [...(byKind.get(a.kind) ?? []), a]);
  const count = (xs: string[]) => {
    const m = new Map<string, number>();
    for (const x of xs) m.set(x, (m.get(x) ?? 0) + 1);
    return [...m]
      .sort((a, b) => b[1] - a[1])
      .map(([k, n]) => `${k} ×${n}`)
      .join(", ");
  };
  const replayed = attempts.filter((a) => a.verdict === "replayed").length;
  lines.push(`adversary (seed ${world.seed}): ${attempts.length} attempts`);
  lines.push("| attack | tries | answers | verdicts |", "|---|---|---|---|");
  for (const kind of ATTACK_KINDS) {
    const xs = byKind.get(kind) ?? [];
    lines.push(
      `| ${kind} | ${xs.length} | ${count(xs.map((a) => a.answer)) || "-"} | ${count(xs.map((a) => a.verdict)) || "-"} |`,
    );
  }
  const servedAttempts = attempts.filter((a) => a.verdict === "SERVED").length;
  lines.push(
    `served to him: ${servedAttempts} attempts answered with a new call, ${servedToHim} logged calls carry his prompts under others' payments; ` +
      `credited to him: ${creditedToHim} units; replayed stored answers: ${replayed} (no new service)`,
  );
  return { table: lines.join("\n"), failures };
}
