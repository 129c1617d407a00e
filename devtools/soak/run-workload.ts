// The soak's agents: N concurrent agents each run a seeded mix of calls against the instances over real HTTP: paid chat
// on Solana (devnet, mainnet) and Base (Sepolia, mainnet) through the stock @x402/fetch clients, streamed paid calls,
// prepaid signed calls racing a few shared balances, top-ups of those balances, one payment header sent to several
// instances at once (one is served, the rest refused), and unserved calls (the provider fails once) retried with the
// same header, and paid chat calls through the remote MCP server's `chat` tool (x402's MCP transport). A call answered 502 settlement_pending / chain_unavailable or 503, or cut off (a killed instance), is
// sent again with the same payment header after its retry_after, a bounded number of times: that is how a client
// finishes a pending or unserved call.
import "server-only";
import { createKeyPairSignerFromBytes } from "@solana/kit";
import { x402Client, x402HTTPClient } from "@x402/core/client";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { ExactSvmScheme } from "@x402/svm/exact/client";
import { privateKeyToAccount } from "viem/accounts";
import { createEvmPayingFetch, createPayingFetch } from "../../server/agent/paying-fetch";
import { serviceError } from "../../server/errors/error-body";
import { newNonce, signRequestHeaders } from "../../server/agent/sign-request";
import type { Ed25519Keypair } from "../../server/keys/parse-secret-key";
import { readStreamedAnswer } from "../../server/upstream/read-sse";
import { withNastyContent } from "./content-faults";
import { callMcpTool, type McpAnswer } from "./mcp-call";
import { MCP_META } from "../../server/mcp/mcp-payment-binding";
import { prng } from "./prng";
import { FAIL_ONCE_MARKER, REMOTE_MODEL, SOAK_BASE_URL, SOAK_PAYMENT_LEASE_MS, type SoakStack } from "./soak-stack";

type OpKind = "paid" | "stream" | "prepaid" | "topup" | "replay" | "unserved" | "mcp";
export type PaidNetwork = "devnet" | "mainnet" | "base-sepolia" | "base";

/** The share of each kind of call in the mix (weights). */
const MIX: [OpKind, number][] = [
  ["paid", 44],
  ["mcp", 8],
  ["stream", 10],
  ["prepaid", 18],
  ["topup", 5],
  ["replay", 7],
  ["unserved", 8],
];
/** A paid call's network (weights): Solana devnet and Base Sepolia most, mainnets some. */
const NETWORK_MIX: [PaidNetwork, number][] = [
  ["devnet", 45],
  ["base-sepolia", 30],
  ["mainnet", 13],
  ["base", 12],
];
/** Sends of one payment header a call may make before giving up (the first included). */
const MAX_SENDS = 10;
/** A request that has not answered in this long is treated as cut off. */
const REQUEST_TIMEOUT_MS = 60_000;
/** How many agents share each prepaid balance (they race it). */
const AGENTS_PER_PREPAID_KEY = 10;
/** A top-up's amount, USDC: enough for a few dozen prepaid calls, for the agents sharing the key to race. */
const TOPUP_USDC = "0.02";

/** One call's record: what was asked, every status seen, and how it ended. */
export interface CallRecord {
  kind: OpKind;
  network: PaidNetwork;
  instance: number;
  outcome: string;
  statuses: string[];
  ms: number;
  /** Settlement transactions the answers named (PAYMENT-RESPONSE), for the ledger check. */
  transactions: string[];
  /** Sends of one header that were each served (more than one for one header is a bug). */
  servedSends: number;
  /** Its prompt carried a piece of the content fault profile (the built-in model's answer echoes it). */
  nasty?: boolean;
}

/**
 * One send of a payment header as a party between the client and the service sees it (a proxy, a leaked log): what was
 * sent and what came back. The adversary (adversary.ts) is fed these.
 */
export interface Sighting {
  path: string;
  body: string;
  header: string;
  network: PaidNetwork;
  /** 0: cut off. */
  status: number;
  error: string | null;
  /** The settlement transaction the answer named (PAYMENT-RESPONSE, or a 502 settlement_pending's `transaction`). */
  transaction: string | null;
  /** The served call's inference id (its receipt), when served. */
  inferenceId: string | null;
}

/** The instances the workload drives and the Solana chains its agents build payments on. */
export type WorkloadStack = Pick<SoakStack, "devnet" | "mainnet"> & { instances: { url: string }[] };

export interface WorkloadOptions {
  calls: number;
  seed: number;
  /** Told of every send of a payment header and its answer. */
  observe?: (sighting: Sighting) => void;
  /** The content fault profile (content-faults.ts): a share of the prompts carry NUL, lone surrogates… */
  contentFaults?: boolean;
  /** Called once when half the calls have been made (the multi-instance test kills an instance then). */
  onMidway?: () => Promise<void>;
  log?: (line: string) => void;
}

function pick<T>(rand: () => number, weighted: [T, number][]): T {
  const total = weighted.reduce((s, [, w]) => s + w, 0);
  let x = rand() * total;
  for (const [v, w] of weighted) if ((x -= w) < 0) return v;
  return weighted.at(-1)![0];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Answer {
  status: number;
  error: string | null;
  reason: string | null;
  retryAfterMs: number | null;
  transaction: string | null;
  /** A streamed answer that ended without its receipt and [DONE]. */
  streamCut: boolean;
  /** A 200 that gave an earlier served call's stored answer again (X-Answer-Replayed): no second service. */
  replayed?: boolean;
  /** A 502 settlement_pending's transaction (not yet a settled payment). */
  pendingTransaction?: string | null;
  /** The served call's inference id, from its receipt. */
  inferenceId?: string | null;
}

/** Reads an answer to the end (a stream included) and returns what the retry logic needs. */
async function readAnswer(res: Response, stream: boolean): Promise<Answer> {
  const paymentResponse = res.headers.get("payment-response");
  let transaction: string | null = null;
  if (paymentResponse) {
    try {
      transaction =
        (JSON.parse(Buffer.from(paymentResponse, "base64").toString("utf8")) as { transaction?: string }).transaction ??
        null;
    } catch {
      transaction = null;
    }
  }
  const retryHeader = Number(res.headers.get("retry-after"));
  const replayed = res.headers.get("x-answer-replayed") === "true";
  if (res.status === 200 && stream) {
    const answer = await readStreamedAnswer(res.body!).catch(() => null);
    const ok = answer !== null && answer.done && answer.receipt !== null && answer.error === null;
    const inferenceId = answer?.receipt ? String(answer.receipt.inference_id) : null;
    return {
      status: 200,
      error: ok ? null : (answer?.error?.code ?? "stream_cut"),
      reason: null,
      retryAfterMs: null,
      transaction,
      streamCut: !ok,
      inferenceId,
      replayed,
    };
  }
  const text = await res.text();
  let error: { code?: string; reason?: string; retry_after?: number; transaction?: string } = {};
  try {
    error = serviceError(JSON.parse(text)).fields as typeof error;
  } catch {
    error = {};
  }
  const retryAfterSec =
    typeof error.retry_after === "number"
      ? error.retry_after
      : Number.isFinite(retryHeader) && retryHeader > 0
        ? retryHeader
        : null;
  const receipt = res.headers.get("x-service-receipt");
  const inferenceId = inferenceIdOfReceiptHeader(receipt);
  const pendingTransaction =
    error.code === "settlement_pending" && typeof error.transaction === "string" ? error.transaction : null;
  return {
    status: res.status,
    error: error.code ?? null,
    reason: error.reason ?? null,
    retryAfterMs: retryAfterSec === null ? null : retryAfterSec * 1_000,
    transaction,
    streamCut: false,
    pendingTransaction,
    inferenceId,
    replayed,
  };
}

/** Whether an answer is one a client finishes by sending the same payment header again. */
function isRetryable(a: Pick<Answer, "status" | "error">): boolean {
  if (
    a.status === 502 &&
    (a.error === "settlement_pending" || a.error === "chain_unavailable" || a.error === "upstream_error")
  )
    return true;
  return a.status === 503;
}

/**
 * How long a client waits before sending the same payment again after `a` (null: `a` is final). `cutAt` is when the
 * call was first cut off, if it was: a 409 after a cut means the dead process still holds the payment until its lease
 * runs out, after which a retry takes it over (or the call was served before the cut, and 409 is the final answer).
 */
function retryWait(
  a: Pick<Answer, "status" | "error" | "retryAfterMs"> & { streamCut?: boolean },
  cutAt: number | null,
): number | null {
  const cut = a.status === 0 || a.streamCut === true;
  const heldByDead = a.status === 409 && cutAt !== null && Date.now() - cutAt < SOAK_PAYMENT_LEASE_MS + 5_000;
  if (!cut && !heldByDead && !isRetryable(a)) return null;
  return heldByDead ? 5_000 : cut ? 1_000 : Math.min(a.retryAfterMs ?? 2_000, 15_000);
}

/** The inference id of an X-Service-Receipt header (base64 JSON of the receipt); null when absent or unreadable. */
export function inferenceIdOfReceiptHeader(header: string | null): string | null {
  if (!header) return null;
  try {
    return String(
      (JSON.parse(Buffer.from(header, "base64").toString("utf8")) as { inference_id: unknown }).inference_id,
    );
  } catch {
    return null;
  }
}

const label = (a: Pick<Answer, "status" | "error" | "reason">) =>
  a.status === 0
    ? a.error
      ? `cut ${a.error}`
      : "cut"
    : `${a.status}${a.error ? ` ${a.error}` : ""}${a.reason ? `/${a.reason}` : ""}`;

export interface Agent {
  index: number;
  solana: Ed25519Keypair;
  /** The EVM private key, and its address. */
  evm: `0x${string}`;
  evmAddress: `0x${string}`;
  prepaidKey: Ed25519Keypair;
}

/** Runs the workload to completion and returns one record per call. */
export async function runWorkload(stack: WorkloadStack, agents: Agent[], opts: WorkloadOptions): Promise<CallRecord[]> {
  const records: CallRecord[] = [];
  let started = 0;
  let midwayFired = false;
  const log = opts.log ?? (() => {});
  const solanaRpcs = {
    [stack.devnet.caip2]: stack.devnet.faultFreeUrl,
    [stack.mainnet.caip2]: stack.mainnet.faultFreeUrl,
  };
  const networkCaip2: Record<PaidNetwork, string> = {
    devnet: stack.devnet.caip2,
    mainnet: stack.mainnet.caip2,
    "base-sepolia": "eip155:84532",
    base: "eip155:8453",
  };
  const nextProgress = { at: Math.max(1, Math.floor(opts.calls / 10)) };

  const runAgent = async (agent: Agent) => {
    const rand = prng(opts.seed * 1_000 + agent.index);
    const signer = await createKeyPairSignerFromBytes(
      new Uint8Array([...agent.solana.seed, ...agent.solana.publicKey]),
    );
    const account = privateKeyToAccount(agent.evm);
    // The stock clients, with a fetch underneath that remembers the payment header each paid retry carried.
    let lastHeader: string | null = null;
    const instanceFetch =
      (instance: number): typeof fetch =>
      (input, init) => {
        const req = new Request(input, init);
        lastHeader = req.headers.get("payment-signature") ?? lastHeader;
        const url = new URL(req.url);
        return fetch(new Request(`${stack.instances[instance]!.url}${url.pathname}${url.search}`, req), {
          signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
        });
      };
    const payingFetch = (network: PaidNetwork, instance: number) =>
      network === "devnet" || network === "mainnet"
        ? createPayingFetch(signer, solanaRpcs, instanceFetch(instance))
        : createEvmPayingFetch(account, [networkCaip2[network]], instanceFetch(instance));
    const x402 = new x402Client();
    for (const [caip2, rpcUrl] of Object.entries(solanaRpcs))
      x402.register(caip2 as never, new ExactSvmScheme(signer, { rpcUrl }));
    for (const caip2 of ["eip155:84532", "eip155:8453"]) x402.register(caip2 as never, new ExactEvmScheme(account));
    const http = new x402HTTPClient(x402);
    const randomInstance = () => Math.floor(rand() * stack.instances.length);

    const observe = (record: CallRecord, path: string, body: string, header: string, a: Answer) =>
      opts.observe?.({
        path,
        body,
        header,
        network: record.network,
        status: a.status,
        error: a.error,
        transaction: a.transaction ?? a.pendingTransaction ?? null,
        inferenceId: a.status === 200 && !a.streamCut ? (a.inferenceId ?? null) : null,
      });

    /** Sends `body` with `header` to `instance` (rotating on a cut), until a final answer or MAX_SENDS. */
    const finish = async (
      path: string,
      body: string,
      header: string,
      first: Answer | null,
      instance: number,
      stream: boolean,
      record: CallRecord,
    ) => {
      let answer = first;
      let cutAt: number | null = null;
      for (let send = first ? 1 : 0; send < MAX_SENDS; send++) {
        if (answer) {
          if (answer.status === 0 || answer.streamCut) cutAt ??= Date.now();
          const wait = retryWait(answer, cutAt);
          if (wait === null) return answer;
          await sleep(wait);
          instance = (instance + 1) % stack.instances.length;
        }
        const res = await fetch(`${stack.instances[instance]!.url}${path}`, {
          method: "POST",
          headers: { "content-type": "application/json", "PAYMENT-SIGNATURE": header },
          body,
          signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
        }).catch(() => null);
        answer = res ? await readAnswer(res, stream).catch(() => cutAnswer) : cutAnswer;
        observe(record, path, body, header, answer);
        record.statuses.push(label(answer));
        if (answer.transaction) record.transactions.push(answer.transaction);
        if (answer.status === 200 && !answer.streamCut && !answer.replayed) record.servedSends++;
      }
      return answer!;
    };

    const paidCall = async (record: CallRecord, path: string, payload: object, stream: boolean) => {
      lastHeader = null;
      const body = JSON.stringify(payload);
      const res = await payingFetch(record.network, record.instance)(`${SOAK_BASE_URL}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body,
      }).catch((err: unknown) => err as Error);
      if (res instanceof Error) {
        // Cut off after the header was sent (a killed instance): finish with the same header. Before: nothing paid.
        if (lastHeader === null) return { ...cutAnswer, error: "before paying" };
        observe(record, path, body, lastHeader, cutAnswer);
        record.statuses.push("cut");
        return finish(path, body, lastHeader, cutAnswer, record.instance, stream, record);
      }
      const first = await readAnswer(res, stream).catch(() => cutAnswer);
      if (lastHeader !== null) observe(record, path, body, lastHeader, first);
      record.statuses.push(label(first));
      if (first.transaction) record.transactions.push(first.transaction);
      if (first.status === 200 && !first.streamCut && !first.replayed) record.servedSends++;
      if (lastHeader === null) return first;
      return finish(path, body, lastHeader, first, record.instance, stream, record);
    };

    // The built-in model echoes the prompt: under the content fault profile, its answer carries the prompt's piece.
    let record: CallRecord | null = null;
    const content = (text: string) => {
      const asked = opts.contentFaults ? withNastyContent(text, rand()) : text;
      if (record && asked !== text) record.nasty = true;
      return asked;
    };
    const chatBody = (network: PaidNetwork, text: string, extra: object = {}) => ({
      model: "local/echo-1",
      network,
      messages: [{ role: "user", content: content(text) }],
      ...extra,
    });

    const ops: Record<OpKind, (record: CallRecord) => Promise<string>> = {
      async paid(record) {
        const a = await paidCall(
          record,
          "/api/v1/chat/completions",
          chatBody(record.network, `soak call ${record.instance} of agent ${agent.index}`),
          false,
        );
        return a.status === 200 ? "served" : label(a);
      },
      async stream(record) {
        const a = await paidCall(
          record,
          "/api/v1/chat/completions",
          chatBody(record.network, "stream me a short story", { stream: true }),
          true,
        );
        return a.status === 200 && !a.streamCut ? "served" : label(a);
      },
      async unserved(record) {
        const marker = `${FAIL_ONCE_MARKER} ${agent.index}-${newNonce()}`;
        const a = await paidCall(
          record,
          "/api/v1/chat/completions",
          { ...chatBody(record.network, marker), model: REMOTE_MODEL, max_tokens: 64 },
          false,
        );
        return a.status === 200 ? "served" : label(a);
      },
      async topup(record) {
        const payload = {
          amount_usdc: TOPUP_USDC,
          network: record.network,
          agent_pubkey: agent.prepaidKey.publicKeyBase58,
        };
        const a = await paidCall(record, "/api/v1/credits", payload, false);
        return a.status === 200 ? "credited" : label(a);
      },
      async prepaid(record) {
        const text = JSON.stringify({
          model: "local/echo-1",
          prompt: content(`prepaid race of agent ${agent.index}`),
          nonce: newNonce(),
          timestamp: Date.now(),
          max_tokens: 32,
        });
        const res = await fetch(`${stack.instances[record.instance]!.url}/api/v1/inference`, {
          method: "POST",
          headers: signRequestHeaders(agent.prepaidKey, "POST", `${SOAK_BASE_URL}/api/v1/inference`, text),
          body: text,
          signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
        }).catch(() => null);
        const a = res ? await readAnswer(res, false) : cutAnswer;
        record.statuses.push(label(a));
        if (a.status === 200) return "served";
        // Racing one balance: running out is the expected refusal.
        if (a.status === 402 && a.error === "insufficient_credits") return "refused: no credit";
        return label(a);
      },
      async mcp(record) {
        // The chat tool on /mcp: the unpaid call's PaymentRequired, paid by the stock client, sent until served.
        const args = chatBody(record.network, `an MCP call of agent ${agent.index}`);
        const first = await callMcpTool(
          stack.instances[record.instance]!.url,
          "chat",
          args,
          undefined,
          REQUEST_TIMEOUT_MS,
        );
        record.statuses.push(label(first));
        if (!first.paymentRequired) return `mcp ${label(first)}`;
        const payment = await x402.createPaymentPayload(first.paymentRequired);
        // What a party in between sees: the same payment and request as the chat route's.
        const header = http.encodePaymentSignatureHeader(payment)["PAYMENT-SIGNATURE"]!;
        const body = JSON.stringify(args);
        let instance = record.instance;
        let answer: McpAnswer | null = null;
        let cutAt: number | null = null;
        for (let send = 0; send < MAX_SENDS; send++) {
          if (answer) {
            if (answer.status === 0) cutAt ??= Date.now();
            const wait = retryWait(answer, cutAt);
            if (wait === null) break;
            await sleep(wait);
            instance = (instance + 1) % stack.instances.length;
          }
          answer = await callMcpTool(
            stack.instances[instance]!.url,
            "chat",
            args,
            { [MCP_META.payment]: payment },
            REQUEST_TIMEOUT_MS,
          );
          const seen = { ...answer, streamCut: false, pendingTransaction: answer.transaction };
          observe(record, "/api/v1/chat/completions", body, header, seen);
          record.statuses.push(label(seen));
          if (answer.status === 200 && answer.transaction) record.transactions.push(answer.transaction);
          if (answer.status === 200 && !answer.replayed) record.servedSends++;
        }
        return answer?.status === 200 ? "served" : `mcp ${answer ? label(answer) : "unsent"}`;
      },
      async replay(record) {
        // One payment header, built once, sent to every instance at once (three sends on a single instance).
        const path = "/api/v1/chat/completions";
        const body = JSON.stringify(chatBody(record.network, `one header, many sends, agent ${agent.index}`));
        const challengeRes = await fetch(`${stack.instances[record.instance]!.url}${path}`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body,
        }).catch(() => null);
        if (!challengeRes || challengeRes.status !== 402) return `challenge ${challengeRes?.status ?? "cut"}`;
        const text = await challengeRes.text();
        const required = http.getPaymentRequiredResponse(
          (n) => challengeRes.headers.get(n),
          JSON.parse(text) as unknown,
        );
        const header = http.encodePaymentSignatureHeader(await x402.createPaymentPayload(required))[
          "PAYMENT-SIGNATURE"
        ]!;
        const targets = stack.instances.length > 1 ? stack.instances.map((_, i) => i) : [0, 0, 0];
        const answers = await Promise.all(targets.map((i) => finish(path, body, header, null, i, false, record)));
        // A send after the call was served gets its stored answer again: a refusal of a second service, not a service.
        const served = answers.filter((a) => a.status === 200 && !a.replayed).length;
        const refused = answers.filter(
          (a) => (a.status === 409 && a.error === "payment_replay") || (a.status === 200 && a.replayed),
        ).length;
        if (record.servedSends > 1) return "SERVED TWICE";
        if (served === 1 && refused === answers.length - 1) return "served once, rest refused";
        return `served ${served}, refused ${refused}: ${answers.map(label).join(", ")}`;
      },
    };

    while (started < opts.calls) {
      started++;
      if (!midwayFired && started >= opts.calls / 2 && opts.onMidway) {
        midwayFired = true;
        void opts.onMidway();
      }
      const kind = pick(rand, MIX);
      let network = pick(rand, NETWORK_MIX);
      // Streams, unserved retries and top-ups run on the testnets (prepaid credit and the remote model on devnet and
      // Base Sepolia); the mainnets get plain paid calls and replays.
      if (kind === "topup") network = "devnet";
      else if ((kind === "stream" || kind === "unserved") && (network === "mainnet" || network === "base"))
        network = network === "mainnet" ? "devnet" : "base-sepolia";
      const call: CallRecord = {
        kind,
        network,
        instance: randomInstance(),
        outcome: "",
        statuses: [],
        ms: 0,
        transactions: [],
        servedSends: 0,
      };
      record = call;
      const t0 = performance.now();
      try {
        call.outcome = await ops[kind](call);
      } catch (err) {
        call.outcome = `client error: ${(err as Error).message.slice(0, 80)}`;
      }
      call.ms = performance.now() - t0;
      records.push(call);
      if (records.length >= nextProgress.at) {
        log(`${records.length}/${opts.calls} calls done`);
        nextProgress.at += Math.max(1, Math.floor(opts.calls / 10));
      }
    }
  };
  await Promise.all(agents.map((a) => runAgent(a)));
  return records;
}

const cutAnswer: Answer = {
  status: 0,
  error: null,
  reason: null,
  retryAfterMs: null,
  transaction: null,
  streamCut: false,
};

/** Groups agents around shared prepaid keys: AGENTS_PER_PREPAID_KEY agents race each balance. */
export function assignPrepaidKeys(prepaidKeys: Ed25519Keypair[]): (i: number) => Ed25519Keypair {
  return (i) => prepaidKeys[Math.floor(i / AGENTS_PER_PREPAID_KEY) % prepaidKeys.length]!;
}

export const prepaidKeyCount = (agents: number) => Math.max(1, Math.ceil(agents / AGENTS_PER_PREPAID_KEY));
