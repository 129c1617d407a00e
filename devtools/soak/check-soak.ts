// The soak's verdict: the figures (calls by outcome, latency, settlements, fee-payer spend, drift) and the invariants
// a run must keep: zero reconcile drift; every settled transfer in the ledger exactly once; no two relayed EVM
// transactions sharing a nonce; no 5xx but the documented 502/503; no agent charged without service or credit.
import "server-only";
import { spawn } from "node:child_process";
import path from "node:path";
import { createPublicClient, http, type Hex } from "viem";
import type { LocalEvmChain } from "../anvil";
import type { Localnet } from "../localnet";
import type { Agent, CallRecord } from "./run-workload";
import { REPO_ROOT, SOAK_BASE_URL, type SoakStack } from "./soak-stack";
import type { PrismaClient } from "../../server/db";
import { parseSecretKey } from "../../server/keys/parse-secret-key";
import { defaultLogOrigin } from "../../server/keys/log-key";
import {
  canonicalJson,
  decodeReceiptEntry,
  formatVerifierKey,
  leafHash,
  openCheckpoint,
  rootOfLeaves,
} from "../../server/verify";
import { LANDED_STATES } from "../../server/ledger/payment-states";

/** Payment statuses whose money moved. */
const SETTLED: string[] = [...LANDED_STATES];
/** 5xx answers the API documents: the model or the chain failed (502), or the service is unavailable (503). */
const DOCUMENTED_502 = new Set(["upstream_error", "chain_unavailable", "settlement_pending"]);

export interface Balances {
  solanaUsdc: Map<string, bigint>;
  evmUsdc: Map<string, bigint>;
  lamports: bigint;
  wei: bigint;
}

async function rpc<T>(url: string, method: string, params: unknown[]): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    const res = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
    });
    const body = (await res.json()) as { result: T; error?: { message: string } };
    if (!body.error) return body.result;
    if (attempt >= 3) throw new Error(`${method}: ${body.error.message}`);
  }
}

const lamportsOf = async (chain: Localnet, owner: string) =>
  BigInt((await rpc<{ value: number }>(chain.faultFreeUrl, "getBalance", [owner, { commitment: "processed" }])).value);
const weiOf = async (chain: LocalEvmChain, owner: string) =>
  BigInt(await rpc<Hex>(chain.faultFreeUrl, "eth_getBalance", [owner, "latest"]));

/** Reads every agent's USDC and the fee payers' SOL and ETH, straight from the chains (no fault in between). */
export async function readBalances(stack: SoakStack, agents: Agent[]): Promise<Balances> {
  const solanaUsdc = new Map<string, bigint>();
  const evmUsdc = new Map<string, bigint>();
  for (const agent of agents) {
    const pub = agent.solana.publicKeyBase58;
    solanaUsdc.set(`devnet:${pub}`, await stack.devnet.usdcBalance(pub));
    solanaUsdc.set(`mainnet:${pub}`, await stack.mainnet.usdcBalance(pub));
    const address = addressOf(agent);
    evmUsdc.set(`84532:${address}`, await stack.baseSepolia.usdcBalance(address));
    evmUsdc.set(`8453:${address}`, await stack.base.usdcBalance(address));
  }
  const lamports =
    (await lamportsOf(stack.devnet, stack.facilitator.solana)) +
    (await lamportsOf(stack.mainnet, stack.facilitator.solana));
  const wei =
    (await weiOf(stack.baseSepolia, stack.facilitator.evm)) + (await weiOf(stack.base, stack.facilitator.evm));
  return { solanaUsdc, evmUsdc, lamports, wei };
}

const addressOf = (agent: Agent) => agent.evmAddress;

/** Runs `signet reconcile --json` against the instances' database and the chains' fault-free RPCs. */
export async function runReconcile(stack: SoakStack): Promise<
  | {
      drift: number;
      networks: {
        network: string;
        onChainTransfers: number;
        recordedPayments: number;
        pendingClaims: number;
        mismatches: { kind: string; transaction: string; detail: string }[];
      }[];
    }
  | { error: string }
> {
  const env = {
    ...stack.env,
    RPC_URL_SOLANA_DEVNET: stack.devnet.faultFreeUrl,
    RPC_URL_SOLANA_MAINNET: stack.mainnet.faultFreeUrl,
    RPC_URL_BASE_SEPOLIA: stack.baseSepolia.faultFreeUrl,
    RPC_URL_BASE: stack.base.faultFreeUrl,
    LOG_LEVEL: "silent",
  };
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(REPO_ROOT, "bin/cli/signet.mjs"), "reconcile", "--json"], {
      cwd: REPO_ROOT,
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (c: Buffer) => (out += c.toString()));
    child.stderr.on("data", (c: Buffer) => (err += c.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), 180_000);
    child.on("close", (code) => {
      clearTimeout(timer);
      try {
        resolve(JSON.parse(out.trim().split("\n").at(-1)!) as never);
      } catch {
        resolve({ error: `reconcile exited ${code}: ${(err || out).slice(0, 500)}` });
      }
    });
  });
}

/** Every transaction the facilitator's EVM address sent on `chain`, as mined: hash and nonce. */
async function relayedEvmTransactions(
  chain: LocalEvmChain,
  from: `0x${string}`,
): Promise<{ hash: string; nonce: number }[]> {
  const client = createPublicClient({ transport: http(chain.faultFreeUrl) });
  const head = await client.getBlockNumber();
  const txs: { hash: string; nonce: number }[] = [];
  for (let n = 0n; n <= head; n++) {
    const block = await client.getBlock({ blockNumber: n, includeTransactions: true });
    for (const tx of block.transactions)
      if (tx.from.toLowerCase() === from.toLowerCase()) txs.push({ hash: tx.hash, nonce: tx.nonce });
  }
  return txs;
}

/** Sums a Prometheus counter's samples by one label, over every instance that answers. */
async function scrapeCounter(stack: SoakStack, name: string, by: string): Promise<Map<string, number>> {
  const sums = new Map<string, number>();
  for (const instance of stack.instances) {
    const text = await fetch(`${instance.url}/metrics`, {
      headers: { authorization: `Bearer ${stack.metricsToken}` },
      signal: AbortSignal.timeout(5_000),
    }).then(
      (r) => (r.ok ? r.text() : ""),
      () => "",
    );
    for (const line of text.split("\n")) {
      if (!line.startsWith(`${name}{`)) continue;
      const value = Number(line.slice(line.lastIndexOf(" ") + 1));
      const key = new RegExp(`${by}="([^"]*)"`).exec(line)?.[1] ?? "?";
      sums.set(key, (sums.get(key) ?? 0) + value);
    }
  }
  return sums;
}

const quantile = (sorted: number[], q: number) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]! : 0;

export interface SoakVerdict {
  table: string;
  failures: string[];
}

/** How long the chains may take, after the last call, to mine again every relayed transaction a reorg un-mined. */
const RELAYS_MINED_WITHIN_MS = 60_000;
const RELAYS_POLL_MS = 500;

/**
 * The relayed EVM transactions not (or no longer) mined in the canonical chain, read through the fault-free doors. A
 * reorg of the fault profile un-mines a settled payment's transfer until a relay sweep broadcasts its bytes again: the
 * wallets are read once every recorded relay is mined, as they would be on a real chain a little later.
 */
async function unminedRelays(stack: SoakStack): Promise<string[]> {
  const urls = new Map([
    [stack.baseSepolia.chainId, stack.baseSepolia.faultFreeUrl],
    [stack.base.chainId, stack.base.faultFreeUrl],
  ]);
  const relays = await stack.db.prisma.evmRelay.findMany({ select: { chainId: true, txHash: true } });
  const unmined: string[] = [];
  for (const relay of relays) {
    const url = urls.get(relay.chainId);
    if (!url) continue;
    const receipt = await rpc<{ blockNumber: Hex; blockHash: Hex } | null>(url, "eth_getTransactionReceipt", [
      relay.txHash,
    ]);
    const block = receipt
      ? await rpc<{ hash: Hex } | null>(url, "eth_getBlockByNumber", [receipt.blockNumber, false])
      : null;
    if (!receipt || block?.hash.toLowerCase() !== receipt.blockHash.toLowerCase())
      unmined.push(`${relay.chainId}:${relay.txHash}`);
  }
  return unmined;
}

/** Waits until every relayed EVM transaction is mined; returns those still not mined at RELAYS_MINED_WITHIN_MS. */
async function waitForRelaysMined(stack: SoakStack): Promise<string[]> {
  const deadline = Date.now() + RELAYS_MINED_WITHIN_MS;
  for (;;) {
    const unmined = await unminedRelays(stack);
    if (unmined.length === 0 || Date.now() > deadline) return unmined;
    await new Promise((r) => setTimeout(r, RELAYS_POLL_MS));
  }
}

/** Checks the run's invariants and builds its summary table. */
export async function checkSoak(
  stack: SoakStack,
  agents: Agent[],
  records: CallRecord[],
  before: Balances,
  wallMs: number,
): Promise<SoakVerdict> {
  const failures: string[] = [];
  const lines: string[] = [];
  const unmined = await waitForRelaysMined(stack);
  for (const relay of unmined)
    failures.push(`relayed transaction ${relay} is not mined ${RELAYS_MINED_WITHIN_MS / 1000} s after the last call`);
  const after = await readBalances(stack, agents);
  const prisma = stack.db.prisma;

  // Calls by kind and outcome, with latency.
  lines.push(
    `calls: ${records.length} in ${(wallMs / 1000).toFixed(0)} s (${(records.length / (wallMs / 1000)).toFixed(1)}/s) from ${agents.length} agents on ${stack.instances.length} instance(s)`,
  );
  const byKind = new Map<string, CallRecord[]>();
  for (const r of records) byKind.set(`${r.kind} ${r.network}`, [...(byKind.get(`${r.kind} ${r.network}`) ?? []), r]);
  lines.push("| call | n | outcomes | retried | p50 ms | p99 ms |", "|---|---|---|---|---|---|");
  for (const [key, rs] of [...byKind.entries()].sort()) {
    const outcomes = new Map<string, number>();
    for (const r of rs) outcomes.set(r.outcome, (outcomes.get(r.outcome) ?? 0) + 1);
    const ms = rs.map((r) => r.ms).sort((a, b) => a - b);
    // An MCP call's first answer is its unpaid call's payment-required result: a retry is a third.
    const retried = rs.filter((r) => r.statuses.length > (r.kind === "mcp" ? 2 : 1) && r.kind !== "replay").length;
    lines.push(
      `| ${key} | ${rs.length} | ${[...outcomes].map(([o, n]) => `${o}: ${n}`).join("; ")} | ${retried} | ${quantile(ms, 0.5).toFixed(0)} | ${quantile(ms, 0.99).toFixed(0)} |`,
    );
  }
  const all = records.map((r) => r.ms).sort((a, b) => a - b);
  lines.push(`| all | ${records.length} | | | ${quantile(all, 0.5).toFixed(0)} | ${quantile(all, 0.99).toFixed(0)} |`);

  // Answers seen, across every send: the non-success ones a client must handle.
  const seen = new Map<string, number>();
  for (const r of records) for (const s of r.statuses) seen.set(s, (seen.get(s) ?? 0) + 1);
  lines.push(
    `answers seen (every send): ${[...seen]
      .sort((a, b) => b[1] - a[1])
      .map(([s, n]) => `${s} ×${n}`)
      .join(", ")}`,
  );
  for (const [s, n] of seen) {
    const status = Number(s.split(" ")[0]);
    const code = s.split(" ")[1]?.split("/")[0] ?? "";
    if (status >= 500 && !(status === 503 || (status === 502 && DOCUMENTED_502.has(code))))
      failures.push(`undocumented 5xx: ${s} ×${n}`);
  }
  // A network none of whose paid calls was served checked nothing: the run proves nothing about it.
  for (const network of new Set(records.filter((r) => r.kind === "paid").map((r) => r.network))) {
    const paid = records.filter((r) => r.kind === "paid" && r.network === network);
    if (paid.length >= 5 && !paid.some((r) => r.outcome === "served"))
      failures.push(`no paid call on ${network} was served (${paid.length} made): ${paid[0]!.outcome}`);
  }
  for (const r of records)
    if (r.servedSends > 1)
      failures.push(
        `one payment header served ${r.servedSends} times (${r.kind} ${r.network}: ${r.statuses.join(" → ")})`,
      );
  const replayBad = records.filter((r) => r.kind === "replay" && /SERVED TWICE/.test(r.outcome));
  if (replayBad.length) failures.push(`${replayBad.length} replayed headers served more than once`);

  // Settlements: metrics of each live instance (a restarted one starts from zero) and the payments table.
  const metricsOutcomes = await scrapeCounter(stack, "signet_settlements_total", "outcome");
  const statuses = await prisma.payment.groupBy({ by: ["status"], _count: true });
  const pendingAnswers = records.filter((r) => r.statuses.some((s) => s.startsWith("502 settlement_pending")));
  const recovered = pendingAnswers.filter((r) => r.statuses.at(-1)?.startsWith("200")).length;
  const expired = records.filter((r) => r.statuses.some((s) => s.includes("settlement_expired"))).length;
  lines.push(
    `settlements (metrics, live instances): ${[...metricsOutcomes].map(([o, n]) => `${o} ${n}`).join(", ") || "none scraped"}; payments table: ${statuses.map((s) => `${s.status} ${s._count}`).join(", ")}`,
  );
  lines.push(
    `settlement_pending answers: calls ${pendingAnswers.length}, recovered by a retry ${recovered}, expired ${expired}`,
  );

  // Fee-payer spend per settled payment.
  const settledByChain = await prisma.payment.groupBy({
    by: ["network"],
    where: { status: { in: SETTLED } },
    _count: true,
  });
  const count = (pred: (n: string) => boolean) =>
    settledByChain.filter((s) => pred(s.network)).reduce((n, s) => n + s._count, 0);
  const solanaSettled = count((n) => n.startsWith("solana:"));
  const evmSettled = count((n) => n.startsWith("eip155:"));
  const lamportsSpent = before.lamports - after.lamports;
  const weiSpent = before.wei - after.wei;
  lines.push(
    `fee payer: ${lamportsSpent} lamports for ${solanaSettled} settled Solana payments (${solanaSettled ? (Number(lamportsSpent) / solanaSettled).toFixed(0) : "-"} each); ` +
      `${weiSpent} wei gas for ${evmSettled} settled Base payments (${evmSettled ? (weiSpent / BigInt(evmSettled)).toString() : "-"} each)`,
  );

  // Every settled payment has exactly one credit; every transaction an answer named is one settled payment.
  const settled = await prisma.payment.findMany({
    where: { status: { in: SETTLED } },
    select: { id: true, txSignature: true, units: true, payer: true, network: true },
  });
  const credits = await prisma.ledgerEntry.groupBy({
    by: ["paymentId"],
    where: { kind: { in: ["payment_credit", "topup_credit"] }, paymentId: { not: null } },
    _count: true,
    _sum: { units: true },
  });
  const creditOf = new Map(credits.map((c) => [c.paymentId!, c]));
  for (const p of settled) {
    const c = creditOf.get(p.id);
    if (!c || c._count !== 1 || c._sum.units !== p.units)
      failures.push(
        `settled payment ${p.txSignature} has ${c?._count ?? 0} credits (${c?._sum.units ?? 0n} units, expected ${p.units})`,
      );
  }
  const settledTx = new Set(settled.map((p) => p.txSignature));
  const named = new Set(records.flatMap((r) => r.transactions));
  for (const tx of named)
    if (!settledTx.has(tx)) failures.push(`an answer named transaction ${tx}, which is not a settled payment`);

  // No agent charged without service or credit: what left its wallet equals what its settled payments credited.
  const paidBy = new Map<string, bigint>();
  for (const p of settled)
    paidBy.set(
      `${p.network}:${p.payer.toLowerCase()}`,
      (paidBy.get(`${p.network}:${p.payer.toLowerCase()}`) ?? 0n) + p.units,
    );
  let chargedAgents = 0;
  for (const agent of agents) {
    const pub = agent.solana.publicKeyBase58;
    const address = addressOf(agent);
    const pairs: [string, bigint, string][] = [
      [
        `devnet:${pub}`,
        before.solanaUsdc.get(`devnet:${pub}`)! - after.solanaUsdc.get(`devnet:${pub}`)!,
        `${stack.devnet.caip2}:${pub.toLowerCase()}`,
      ],
      [
        `mainnet:${pub}`,
        before.solanaUsdc.get(`mainnet:${pub}`)! - after.solanaUsdc.get(`mainnet:${pub}`)!,
        `${stack.mainnet.caip2}:${pub.toLowerCase()}`,
      ],
      [
        `base-sepolia:${address}`,
        before.evmUsdc.get(`84532:${address}`)! - after.evmUsdc.get(`84532:${address}`)!,
        `eip155:84532:${address.toLowerCase()}`,
      ],
      [
        `base:${address}`,
        before.evmUsdc.get(`8453:${address}`)! - after.evmUsdc.get(`8453:${address}`)!,
        `eip155:8453:${address.toLowerCase()}`,
      ],
    ];
    for (const [who, spent, key] of pairs) {
      const credited = paidBy.get(key) ?? 0n;
      if (spent > 0n) chargedAgents++;
      if (spent !== credited) {
        // What became of its other payments: the diagnosis (a `failed` one whose transfer landed later, a `claimed` one).
        const [network, payer] = [key.slice(0, key.lastIndexOf(":")), who.slice(who.indexOf(":") + 1)];
        const others = await prisma.payment.findMany({
          where: { network, payer: { in: [payer, payer.toLowerCase()] }, status: { notIn: SETTLED } },
          select: { status: true, failureReason: true, purpose: true },
        });
        const why = others
          .map((p) => `${p.purpose} ${p.status}${p.failureReason ? ` (${p.failureReason})` : ""}`)
          .join(", ");
        failures.push(
          `agent ${who} spent ${spent} units on chain but its settled payments credit ${credited}; its other payments: ${why || "none"}`,
        );
      }
    }
  }
  lines.push(
    `ledger: ${settled.length} settled payments, each credited once: ${failures.some((f) => f.startsWith("settled payment")) ? "NO" : "yes"}; ${chargedAgents} agent wallets charged, each equal to its credits: ${failures.some((f) => f.startsWith("agent ")) ? "NO" : "yes"}`,
  );

  // Relayed EVM transactions: one per nonce, among those sent (what the recorder saw) and those mined.
  for (const [label, chain, recorder] of [
    ["Base Sepolia", stack.baseSepolia, stack.relays.baseSepolia],
    ["Base", stack.base, stack.relays.base],
  ] as const) {
    const mined = await relayedEvmTransactions(chain, stack.facilitator.evm);
    const minedHashes = new Set(mined.map((t) => t.hash.toLowerCase()));
    const byNonce = new Map<number, Set<string>>();
    for (const tx of recorder.sent)
      if (tx.from === stack.facilitator.evm.toLowerCase())
        byNonce.set(tx.nonce, (byNonce.get(tx.nonce) ?? new Set()).add(tx.hash));
    const shared = [...byNonce].filter(([, hashes]) => hashes.size > 1);
    lines.push(
      `${label}: ${byNonce.size} nonces used by ${[...byNonce.values()].reduce((n, h) => n + h.size, 0)} relayed transactions sent, ${mined.length} mined; ${shared.length} nonces given to more than one transaction`,
    );
    for (const [nonce, hashes] of shared.slice(0, 10)) {
      const landed = [...hashes].filter((h) => minedHashes.has(h)).length;
      failures.push(
        `${label}: nonce ${nonce} given to ${hashes.size} different relayed transactions (${landed} mined)`,
      );
    }
    if (shared.length > 10)
      failures.push(`${label}: … ${shared.length - 10} more nonces given to more than one transaction`);
  }

  const report = await runReconcile(stack);
  if ("error" in report) {
    failures.push(`reconcile did not run: ${report.error}`);
    lines.push(`drift: reconcile failed to run`);
  } else {
    lines.push(
      `drift (reconcile): ${report.drift} mismatches; ${report.networks.map((n) => `${n.network} ${n.onChainTransfers} on chain / ${n.recordedPayments} recorded / ${n.pendingClaims} pending`).join("; ")}`,
    );
    if (report.drift !== 0)
      for (const n of report.networks)
        for (const m of n.mismatches) failures.push(`drift ${n.network}: ${m.kind} ${m.transaction}: ${m.detail}`);
  }
  lines.push(await checkReceiptLog(prisma, stack.env.LOG_SECRET_KEY!, failures));
  // One upstream answer per paid remote call, however its answer was retried, recorded or replayed.
  const answeredTwice = [...stack.providerAnswers].filter(([, n]) => n > 1);
  for (const [marker, n] of answeredTwice.slice(0, 10))
    failures.push(`the provider answered one paid call ${n} times (${marker})`);
  lines.push(
    `provider: ${stack.providerCalls.ok} answered, ${stack.providerCalls.failed} failed on purpose; paid remote calls answered more than once: ${answeredTwice.length}`,
  );
  const nasty = records.filter((r) => r.nasty);
  if (nasty.length > 0 || stack.providerNasty.answers > 0) {
    const served = nasty.filter((r) => /^(served|credited)/.test(r.outcome)).length;
    lines.push(
      `content faults: ${nasty.length} calls asked with U+0000, a lone surrogate or kin (${served} served, the rest as their kind's other calls ended); ${stack.providerNasty.answers} provider answers carried one`,
    );
  }
  lines.push(failures.length ? `INVARIANTS FAILED (${failures.length}):` : "invariants: all held");
  for (const f of failures.slice(0, 40)) lines.push(`  - ${f}`);
  if (failures.length > 40) lines.push(`  … and ${failures.length - 40} more`);
  return { table: lines.join("\n"), failures };
}

/** How long the instances' sequencers get to log the last receipts after the workload (they run every second). */
const LOG_SETTLE_MS = 20_000;

/**
 * The receipt log's invariants: once the sequencers caught up, every stored receipt is in the log exactly once, as
 * its exact entry, at the dense indices 0..N-1, and the latest checkpoint (signed by the log key) has the root
 * recomputed here from the entries.
 */
async function checkReceiptLog(prisma: PrismaClient, logSecretKey: string, failures: string[]): Promise<string> {
  const deadline = Date.now() + LOG_SETTLE_MS;
  const stagedCount = async () =>
    Number((await prisma.$queryRaw<{ n: bigint }[]>`SELECT count(*) AS n FROM log_staging`)[0]!.n);
  while ((await stagedCount()) > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 500));
  const staged = await stagedCount();
  if (staged > 0) failures.push(`log: ${staged} receipts still staged ${LOG_SETTLE_MS / 1000} s after the workload`);
  const receipts = await prisma.$queryRaw<
    { id: string; receipt: unknown }[]
  >`SELECT id::text, receipt FROM inference_logs WHERE receipt IS NOT NULL`;
  const entries = await prisma.logEntry.findMany({ orderBy: { idx: "asc" } });
  const byId = new Map(entries.map((e) => [e.inferenceId, e]));
  if (entries.some((e, i) => Number(e.idx) !== i)) failures.push("log: the entries' indices are not exactly 0..N-1");
  if (byId.size !== entries.length) failures.push("log: an inference is logged more than once");
  let missing = 0;
  for (const r of receipts) {
    const entry = byId.get(r.id);
    const logged = entry ? decodeReceiptEntry(new Uint8Array(entry.entry)) : null;
    if (!logged || canonicalJson(logged.receipt) !== canonicalJson(r.receipt)) missing++;
  }
  if (missing > 0) failures.push(`log: ${missing} stored receipts are not in the log as issued`);
  if (entries.length !== receipts.length)
    failures.push(`log: ${entries.length} entries for ${receipts.length} stored receipts`);
  const latest = await prisma.logCheckpoint.findFirst({ orderBy: { size: "desc" } });
  const key = parseSecretKey(logSecretKey);
  const opened = latest
    ? openCheckpoint(latest.note, { logKey: formatVerifierKey(defaultLogOrigin(SOAK_BASE_URL), key.publicKey) })
    : null;
  const root = rootOfLeaves(entries.map((e) => leafHash(new Uint8Array(e.entry))));
  if (!opened?.ok)
    failures.push(`log: the latest checkpoint does not verify under the log key (${opened ? opened.reason : "none"})`);
  else if (
    opened.checkpoint.size !== entries.length ||
    Buffer.compare(Buffer.from(opened.checkpoint.root), Buffer.from(root)) !== 0
  )
    failures.push("log: the latest checkpoint is not the tree recomputed from the entries");
  const checkpoints = await prisma.logCheckpoint.count();
  return `receipt log: ${entries.length} entries for ${receipts.length} stored receipts, ${checkpoints} checkpoints, tree head ${opened?.ok && opened.checkpoint.size === entries.length ? "equal to" : "NOT equal to"} the recomputation`;
}
