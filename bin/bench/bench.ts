// `npm run bench`: the performance goals, each a ratio to a floor or a peer measured in the same run on this machine, on
// PostgreSQL (TEST_DATABASE_URL, else the local default) and local chains, each started in its own process and reached
// over JSON-RPC like a real cluster, so this process's CPU per call is the service's own (and its clients').
// Requests go through the real route handlers in process (no HTTP hop) for both Signet and the stock x402 baseline;
// payments and signed requests are built before the clock starts. Phases are timed through the service's own step
// observers (server/metrics onStep), never by patching its objects. Any failed call fails the run (exit 1) with the
// first failure printed; throughput counts successes only. A run writes bench/results.json, appends one line to
// bench/history.jsonl and regenerates docs/performance.md's results table from that history.
import { execFileSync } from "node:child_process";
import { createPublicKey, verify as verifyNative } from "node:crypto";
import { appendFileSync, mkdirSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { KeyPairSigner } from "@solana/kit";
import type { PaymentRequired } from "@x402/core/types";
import { FIGURES, GOALS, goalMet, goalText, REALISTIC_SHARE, type GoalKey } from "../../devtools/bench/bench-goals";
import { loopsInTurn } from "../../devtools/bench/loops-in-turn";
import { readDatabaseCpuMs } from "../../devtools/bench/database-cpu";
import { measureCommitLatencies, measureDbFloor } from "../../devtools/bench/measure-db-floor";
import {
  meanMachineBusy,
  readServiceGauges,
  renderLoadView,
  startLoadView,
  type LoadSample,
  type ServiceSource,
} from "../../devtools/bench/load-view";
import { startServiceInstances, type ServiceInstances } from "../../devtools/bench/service-instances";
import { percentile } from "../../devtools/bench/percentile";
import { BenchFailure, interleave, runJobs, type JobsRun } from "../../devtools/bench/run-jobs";
import { PERFORMANCE_DOC, updatePerformanceDoc } from "../../devtools/bench/update-performance-doc";
import { devtoolsEnvironment, devtoolsSetting, loadDevtoolsEnv } from "../../devtools/devtools-env";
import type { RemoteLocalnet } from "../../devtools/localnet/spawn-localnet";

const PAID_CONCURRENCY = [8, 32] as const;
/** The prepaid run and its database floor share this concurrency. */
const PREPAID_CONCURRENCY = 16;
const HOSTED_CONCURRENCY = 16;
const HOSTED_WARMUP_CALLS = 500;
const VERIFY_WARMUP_CALLS = 200;
/** Solana's slot length: the realistic run's chain confirms a transaction one slot after it lands. */
const REAL_SLOT_MS = 400;
const PRICE_UNITS = 1_000n;
const DEVNET = "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1";
const WARMUP_CALLS = 5;
/** Warm-up calls per worker for the real-timing run's instances, 8 workers per instance. */
const INSTANCE_WARMUP_CALLS_PER_WORKER = 40;

/**
 * The size knobs, validated before anything starts. A run with any size below its default is a trial: it is kept in
 * the history but never shown in docs/performance.md (p99 of fewer than 1,000 samples is not the p99 the goals ask for).
 */
const KNOBS = {
  BENCH_PAID_CALLS_PER_WORKER: { fallback: 20, help: "paid calls per worker at c=8 and c=32, each stack" },
  BENCH_OVERHEAD_CALLS: { fallback: 1000, help: "sequential paid calls for the overhead p50/p99, each stack" },
  BENCH_PREPAID_CALLS: { fallback: 2000, help: "prepaid calls at c=16" },
  BENCH_DB_FLOOR_MS: { fallback: 3000, help: "how long the database floor runs, ms" },
  BENCH_VERIFY_MS: { fallback: 2000, help: "how long each offline verification loop runs, ms" },
  BENCH_HOSTED_CALLS: { fallback: 1000, help: "hosted verifier requests at c=16" },
  BENCH_REALISTIC_CONCURRENCY: { fallback: 256, help: "concurrency of the real-timing run (the goal names 256)" },
  BENCH_REALISTIC_CALLS_PER_WORKER: { fallback: 4, help: "paid calls per worker in the real-timing run" },
  BENCH_REALISTIC_SEQUENTIAL_CALLS: { fallback: 20, help: "sequential paid calls for the real-timing unloaded p50" },
} as const;
type Knob = keyof typeof KNOBS;

function readKnobs(env: Readonly<Record<string, string | undefined>>): {
  sizes: Record<Knob, number>;
  trial: boolean;
  profileDir: string | undefined;
} {
  const errors: string[] = [];
  for (const name of Object.keys(env)) {
    if (name.startsWith("BENCH_") && !(name in KNOBS) && name !== "BENCH_PROFILE")
      errors.push(`${name} is not a bench setting`);
  }
  const sizes = {} as Record<Knob, number>;
  let trial = false;
  for (const [name, { fallback, help }] of Object.entries(KNOBS) as [Knob, (typeof KNOBS)[Knob]][]) {
    const raw = env[name];
    if (raw === undefined || raw === "") {
      sizes[name] = fallback;
    } else if (!/^[1-9]\d{0,6}$/.test(raw)) {
      errors.push(`${name} (${help}) must be a whole number from 1 to 9999999, got ${JSON.stringify(raw)}`);
    } else {
      sizes[name] = Number(raw);
      if (name === "BENCH_REALISTIC_CONCURRENCY" ? sizes[name] !== fallback : sizes[name] < fallback) trial = true;
    }
  }
  const profileDir = env.BENCH_PROFILE;
  if (profileDir === "") errors.push("BENCH_PROFILE, when set, names the folder for the CPU profiles");
  if (errors.length > 0) throw new KnobError(errors.join("\n"));
  return { sizes, trial, profileDir };
}

class KnobError extends Error {}

let knobs: ReturnType<typeof readKnobs>;
try {
  knobs = readKnobs(devtoolsEnvironment());
} catch (err) {
  if (!(err instanceof KnobError)) throw err;
  console.error(`bench not started:\n${err.message}`);
  process.exit(1);
}
const { sizes } = knobs;

// The throwaway databases are made on TEST_DATABASE_URL's server (the local PostgreSQL by default), as the tests' are.
const adminUrl = loadDevtoolsEnv().TEST_DATABASE_URL;
const { startPaidStack, buildPaymentHeader, challengeOf } = await import("../../server/test/support/paid-stack");
const { POST: inferenceRoute } = await import("../../app/api/v1/inference/route");
const { POST: verifyRoute } = await import("../../app/api/verify/route");
const { newNonce, signRequestHeaders } = await import("../../server/agent/sign-request");
const { createStockPaidRoute } = await import("../../devtools/bench/stock-x402-route");
const { spawnLocalnet } = await import("../../devtools/localnet/spawn-localnet");
const { operatorKeypair, testEnv } = await import("../../server/test/support/env");
const { generateKeypair } = await import("../../server/keys/parse-secret-key");
const { serverVerifier } = await import("../../server/keys/server-verifier");
const { onStep } = await import("../../server/metrics/registry");
const { decodeBase58, nobleVerifier, parseReceiptText, receiptSigningBytes } = await import("../../server/verify");
type PaidStack = Awaited<ReturnType<typeof startPaidStack>>;

const round = (n: number, digits = 1) => Number(n.toFixed(digits));
const sortedOf = (xs: number[]) => [...xs].sort((a, b) => a - b);
const nullableRound = (n: number | null, digits = 1) => (n === null ? null : round(n, digits));
const mean = (xs: readonly number[]) => (xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length);
const STACK_ENV = {
  X402_FLAT_PRICE_USDC: "0.001",
  PREPAID_RATE_LIMIT_PER_MINUTE: "1000000",
  PREPAID_IP_RATE_LIMIT_PER_MINUTE: "1000000",
  LOG_LEVEL: devtoolsSetting("LOG_LEVEL") ?? "silent",
};
const body = { model: "local/echo-1", messages: [{ role: "user", content: "bench" }] };

/** `BENCH_PROFILE=DIR` writes one V8 CPU profile per timed phase into DIR (open it in Chrome DevTools). */
async function profiled<T>(label: string, run: () => Promise<T>): Promise<T> {
  if (!knobs.profileDir) return run();
  const { Session } = await import("node:inspector/promises");
  const session = new Session();
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.start");
  try {
    return await run();
  } finally {
    const { profile } = await session.post("Profiler.stop");
    mkdirSync(knobs.profileDir, { recursive: true });
    writeFileSync(path.join(knobs.profileDir, `${label}.cpuprofile`), JSON.stringify(profile));
    session.disconnect();
  }
}

/**
 * runJobs, with a CPU profile when asked, and the local PostgreSQL server's CPU per successful call (null: not visible).
 * Given where to read the service, it also takes the per-second view of the run (load-view.ts).
 */
async function run(
  phase: string,
  jobs: (() => Promise<Response>)[],
  concurrency: number,
  service?: ServiceSource,
): Promise<JobsRun & { dbCpuMsPerCall: number | null; view: LoadSample[] }> {
  const progress = { done: 0, inFlight: 0 };
  const viewer = service ? startLoadView(service, progress) : null;
  const dbBefore = readDatabaseCpuMs();
  const result = await profiled(phase, () => runJobs(phase, jobs, concurrency, progress));
  const dbAfter = readDatabaseCpuMs();
  const view = (await viewer?.stop()) ?? [];
  const dbCpuMsPerCall =
    dbBefore !== null && dbAfter !== null ? (dbAfter - dbBefore) / Math.max(1, result.latencies.length) : null;
  if (view.length > 0) console.log(`\nbench: ${phase}, second by second:\n${renderLoadView(view)}`);
  return { ...result, dbCpuMsPerCall, view };
}

/** This process's CPU time over `work`, ms, with what it returned. */
async function cpuOf<T>(work: () => Promise<T>): Promise<{ value: T; cpuMs: number }> {
  const before = process.cpuUsage();
  const value = await work();
  const used = process.cpuUsage(before);
  return { value, cpuMs: (used.user + used.system) / 1000 };
}

/** Records `value` under `key` when the figure could be measured here. */
function record(key: string, value: number | null): void {
  if (value !== null) figures[key] = value;
}

/**
 * Pre-built payment headers for Signet's chat route: `workers` funded agents, `perWorker` payments each, laid out
 * round-robin so that runJobs' worker w is agent w paying call after call.
 */
async function signetHeaders(stack: PaidStack, workers: number, perWorker: number): Promise<string[]> {
  const challenge = await challengeOf(await stack.chat({ body }));
  // Every agent funded first, then every payment signed: on a real-timing chain a payment's blockhash lives 150 slots.
  const agents: KeyPairSigner[] = [];
  for (let w = 0; w < workers; w++) agents.push(await stack.newAgent(1_000_000_000n));
  const perAgent: string[][] = [];
  for (const agent of agents) {
    const headers: string[] = [];
    for (let i = 0; i < perWorker; i++) {
      const built = await cpuOf(() => buildPaymentHeader(agent, challenge, stack.devnet.url));
      payloadCpu.signet.push(built.cpuMs);
      headers.push(built.value);
    }
    perAgent.push(headers);
  }
  return interleave(perAgent);
}

/** The client's CPU to build each payment (the stock client's payload, signed), ms, by stack: kept apart from the runs. */
const payloadCpu = { signet: [] as number[], stock: [] as number[] };

function commitOf(): { sha: string; dirty: boolean } {
  try {
    const sha = execFileSync("git", ["rev-parse", "HEAD"], { encoding: "utf8" }).trim();
    // What the bench itself writes does not make a run's tree dirty.
    const status = execFileSync(
      "git",
      ["status", "--porcelain", "--", ".", ":!bench/history.jsonl", ":!bench/results.json", `:!${PERFORMANCE_DOC}`],
      { encoding: "utf8" },
    );
    return { sha, dirty: status.trim() !== "" };
  } catch {
    return { sha: "unknown", dirty: true };
  }
}

const machine = `${os.cpus().length} × ${os.cpus()[0]?.model ?? "cpu"}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, node ${process.version}`;
const loadBefore = os.loadavg()[0]!;
const figures: Record<string, number> = {};
let stack: PaidStack | null = null;
let instances: ServiceInstances | null = null;
let stockChain: RemoteLocalnet | null = null;
let database: string;

try {
  // Instant chains, asked for explicitly: these figures measure the server, not a 400 ms slot, and pre-signed payments
  // would outlive their blockhash on a real-timing chain.
  stack = await startPaidStack({ env: STACK_ENV, timing: "instant", chainProcess: "own" });
  const { default: pg } = await import("pg");
  const probe = new pg.Client({ connectionString: stack.tdb.url });
  await probe.connect();
  const version = (await probe.query<{ server_version: string }>("SHOW server_version")).rows[0]!.server_version;
  await probe.end();
  const where = new URL(adminUrl);
  database = `PostgreSQL ${version.split(" ")[0]} at ${where.hostname}:${where.port || "5432"}`;
  console.log(
    `bench: ${database} (a fresh database: ${new URL(stack.tdb.url).pathname.slice(1)}); each local chain in its own process (LiteSVM behind JSON-RPC), so the CPU figures are the service's and its clients'`,
  );
  console.log(
    `bench: ${machine}; load average ${loadBefore.toFixed(2)}${knobs.trial ? "; TRIAL RUN (sizes below the defaults: kept in the history, not shown in docs/performance.md)" : ""}`,
  );
  console.log(
    `bench: ${Object.entries(sizes)
      .map(([k, v]) => `${k}=${v}`)
      .join(" ")}`,
  );

  // The stock baseline: its own local chain (instant timing), its own facilitator key (fee payer and payee), same price.
  stockChain = await spawnLocalnet({ profile: "devnet", port: 0, dataDir: null, timing: "instant" });
  const stock = stockChain;
  const stockKey = generateKeypair();
  await stock.fundAccount(stockKey.publicKeyBase58, { lamports: 10_000_000_000n, usdcUnits: 0n });
  // Both stacks are paid to the same owner's token account of the same mint: verifying a payment derives that account's
  // address (a program-derived address, whose search costs one on-curve check per bump tried), so a payee whose search
  // takes more tries would cost its stack more CPU on every call by the luck of its key alone.
  const signetPayTo = (await challengeOf(await stack.chat({ body }))).accepts[0]!.payTo;
  if (stock.usdcMint !== stack.devnet.usdcMint)
    throw new Error("the two local chains' USDC mints differ: the stacks' payee token accounts would too");
  await stock.fundAccount(signetPayTo, { usdcUnits: 0n });
  const stockRoute = await createStockPaidRoute({
    keypair: stockKey,
    payTo: signetPayTo,
    rpcUrl: stock.url,
    caip2: DEVNET,
    usdcMint: stock.usdcMint,
    amountUnits: PRICE_UNITS,
  });
  const stockUrl = "http://bench/paid";
  const stockChallenge = await challengeOf402(await stockRoute(new Request(stockUrl, { method: "POST" })));
  const stockCall = (h: string) => () =>
    stockRoute(new Request(stockUrl, { method: "POST", headers: { "PAYMENT-SIGNATURE": h } }));
  async function stockHeaders(workers: number, perWorker: number): Promise<string[]> {
    const { createKeyPairSignerFromBytes } = await import("@solana/kit");
    const perAgent: string[][] = [];
    for (let w = 0; w < workers; w++) {
      const kp = generateKeypair();
      const agent: KeyPairSigner = await createKeyPairSignerFromBytes(new Uint8Array([...kp.seed, ...kp.publicKey]));
      await stock.fundAccount(agent.address, { usdcUnits: 1_000_000_000n });
      const headers: string[] = [];
      for (let i = 0; i < perWorker; i++) {
        const built = await cpuOf(() => buildPaymentHeader(agent, stockChallenge, stock.url));
        payloadCpu.stock.push(built.cpuMs);
        headers.push(built.value);
      }
      perAgent.push(headers);
    }
    return interleave(perAgent);
  }
  const s = stack;
  const signetCall = (h: string) => () => s.chat({ body, headers: { "PAYMENT-SIGNATURE": h } });

  // Warm both paths (JIT, caches, deposit accounts).
  await run("warm-signet", (await signetHeaders(s, 1, WARMUP_CALLS)).map(signetCall), 1);
  await run("warm-stock", (await stockHeaders(1, WARMUP_CALLS)).map(stockCall), 1);

  // What the client's side of a call costs this process inside a timed run: the same requests, built the same way, at
  // the same concurrency, answered at once by a handler that does nothing (with a body the size of a real answer). A
  // stack's service CPU per call is its run's CPU per call less this.
  const answerText = await (await signetCall((await signetHeaders(s, 1, 1))[0]!)()).text();
  const nullAnswer = () => Promise.resolve(new Response(answerText, { status: 200 }));
  const clientOnly = {
    signet: (h: string) => () =>
      nullRoute(
        new Request("http://bench/api/v1/chat/completions", {
          method: "POST",
          headers: { "content-type": "application/json", "PAYMENT-SIGNATURE": h },
          body: JSON.stringify(body),
        }),
      ),
    stock: (h: string) => () =>
      nullRoute(new Request(stockUrl, { method: "POST", headers: { "PAYMENT-SIGNATURE": h } })),
  };
  async function nullRoute(req: Request): Promise<Response> {
    await req.text();
    return nullAnswer();
  }

  // Paid throughput, c=8 and c=32: successes per second, both stacks with the same concurrency and call count.
  const registry = (await s.runtime()).metrics.registry;
  const inProcess: ServiceSource = { gauges: () => readServiceGauges(registry), pids: [] };
  for (const c of PAID_CONCURRENCY) {
    const signetHeaderList = await signetHeaders(s, c, sizes.BENCH_PAID_CALLS_PER_WORKER);
    const stockHeaderList = await stockHeaders(c, sizes.BENCH_PAID_CALLS_PER_WORKER);
    const signet = await run(`paid-c${c}`, signetHeaderList.map(signetCall), c, c === 32 ? inProcess : undefined);
    const stockRun = await run(`stock-c${c}`, stockHeaderList.map(stockCall), c);
    const signetClient = await run(`client-only-signet-c${c}`, signetHeaderList.map(clientOnly.signet), c);
    const stockClient = await run(`client-only-stock-c${c}`, stockHeaderList.map(clientOnly.stock), c);
    const signetService = signet.cpuMsPerCall - signetClient.cpuMsPerCall + (signet.dbCpuMsPerCall ?? 0);
    const stockService = stockRun.cpuMsPerCall - stockClient.cpuMsPerCall;
    figures[`client_cpu_ms_per_call_c${c}`] = round(signetClient.cpuMsPerCall, 3);
    figures[`stock_client_cpu_ms_per_call_c${c}`] = round(stockClient.cpuMsPerCall, 3);
    figures[`paid_service_cpu_ms_per_call_c${c}`] = round(signetService, 2);
    figures[`stock_service_cpu_ms_per_call_c${c}`] = round(stockService, 2);
    figures[`service_cpu_ratio_vs_stock_c${c}`] = round(signetService / stockService, 3);
    figures[`paid_calls_per_s_c${c}`] = round(signet.perS);
    figures[`stock_paid_calls_per_s_c${c}`] = round(stockRun.perS);
    figures[`paid_ratio_vs_stock_c${c}`] = round(signet.perS / stockRun.perS, 2);
    figures[`paid_cpu_ms_per_call_c${c}`] = round(signet.cpuMsPerCall, 2);
    figures[`stock_cpu_ms_per_call_c${c}`] = round(stockRun.cpuMsPerCall, 2);
    record(`paid_db_cpu_ms_per_call_c${c}`, signet.dbCpuMsPerCall === null ? null : round(signet.dbCpuMsPerCall, 3));
  }

  // Server overhead: sequential paid calls, each one's whole time minus the verify, settle and upstream steps the
  // service observed during it (sequential, so every observation belongs to the call in flight).
  let inSteps = 0;
  const overheads: number[] = [];
  const signetCalls: number[] = [];
  let lastReceipt = "";
  let lastResponse: unknown = null;
  const overheadHeaders = await signetHeaders(s, 1, sizes.BENCH_OVERHEAD_CALLS);
  const off = onStep((await s.runtime()).metrics, (step, _network, seconds) => {
    if (step === "verify" || step === "settle" || step === "upstream") inSteps += seconds * 1000;
  });
  try {
    await profiled("overhead", async () => {
      for (const h of overheadHeaders) {
        inSteps = 0;
        const t = performance.now();
        const res = await s.chat({ body, headers: { "PAYMENT-SIGNATURE": h } });
        const text = await res.text();
        const total = performance.now() - t;
        if (res.status !== 200)
          throw new BenchFailure("overhead", `first failure: HTTP ${res.status} ${text.slice(0, 300)}`);
        lastReceipt = res.headers.get("x-service-receipt") ?? "";
        lastResponse = JSON.parse(text);
        overheads.push(total - inSteps);
        signetCalls.push(total);
      }
    });
  } finally {
    off();
  }
  // The stock stack's whole call, sequential, over as many calls.
  const stockSequential = (
    await run("stock-sequential", (await stockHeaders(1, sizes.BENCH_OVERHEAD_CALLS)).map(stockCall), 1)
  ).latencies;
  const [overheadSorted, signetSorted, stockSorted] = [
    sortedOf(overheads),
    sortedOf(signetCalls),
    sortedOf(stockSequential),
  ];
  figures.overhead_samples = overheads.length;
  figures.overhead_p50_ms = round(percentile(overheadSorted, 50), 2);
  figures.overhead_p99_ms = round(percentile(overheadSorted, 99), 2);
  figures.signet_call_p50_ms = round(percentile(signetSorted, 50), 2);
  figures.stock_call_p50_ms = round(percentile(stockSorted, 50), 2);
  figures.stock_call_p99_ms = round(percentile(stockSorted, 99), 2);
  // What a durable commit costs on this database, one after another: the overhead's bound is three of them and 0.5 ms.
  const commitP50 = percentile(sortedOf(await measureCommitLatencies(s.tdb.url, sizes.BENCH_OVERHEAD_CALLS)), 50);
  figures.commit_p50_ms = round(commitP50, 3);
  figures.overhead_bound_ms = round(3 * commitP50 + 0.5, 3);
  figures.payload_cpu_ms = round(mean(payloadCpu.signet), 3);
  figures.stock_payload_cpu_ms = round(mean(payloadCpu.stock), 3);

  // Prepaid at c=16: many agents (the rate limit is per agent), signed bodies prepared before the clock starts.
  const agents = Array.from({ length: PREPAID_CONCURRENCY }, () => generateKeypair());
  for (const a of agents) await s.credit(a.publicKeyBase58, 1_000_000_000n);
  const prepaidJobs = Array.from({ length: sizes.BENCH_PREPAID_CALLS + 20 }, (_, i) => {
    const kp = agents[i % agents.length]!;
    const text = JSON.stringify({
      model: "local/echo-1",
      prompt: `bench ${i}`,
      nonce: newNonce(),
      timestamp: Date.now() + 30_000,
    });
    const signed = signRequestHeaders(kp, "POST", "http://signet.test/api/v1/inference", text);
    return () =>
      inferenceRoute(new Request("http://bench/api/v1/inference", { method: "POST", headers: signed, body: text }), {});
  });
  await run("warm-prepaid", prepaidJobs.splice(0, 20), 1);
  const prepaid = await run("prepaid", prepaidJobs, PREPAID_CONCURRENCY, inProcess);
  figures.prepaid_calls_per_s = Math.round(prepaid.perS);
  figures.prepaid_cpu_ms_per_call = round(prepaid.cpuMsPerCall, 2);
  figures.prepaid_cpu_cores = round(prepaid.cpuCores, 2);
  record("prepaid_db_cpu_ms_per_call", prepaid.dbCpuMsPerCall === null ? null : round(prepaid.dbCpuMsPerCall, 3));

  // The database floor on the same server, same database, same concurrency (see measure-db-floor.ts), and what each of
  // its commits costs the machine: its clients' CPU (this process) and the server's.
  const floor = await measureDbFloor(s.tdb.url, PREPAID_CONCURRENCY, sizes.BENCH_DB_FLOOR_MS);
  figures.db_floor_commits_per_s = Math.round(floor.commitsPerS);
  figures.db_floor_client_cpu_ms_per_commit = round(floor.clientCpuMs / floor.commits, 4);
  if (floor.dbCpuMs !== null && prepaid.dbCpuMsPerCall !== null) {
    figures.db_floor_db_cpu_ms_per_commit = round(floor.dbCpuMs / floor.commits, 4);
    // Machine CPU (this process and the database server) per prepaid call and per floor commit: with both runs keeping
    // the same cores busy, prepaid calls/s ÷ floor commits/s cannot exceed the second ÷ the first.
    const prepaidMachine = prepaid.cpuMsPerCall + prepaid.dbCpuMsPerCall;
    const floorMachine = figures.db_floor_client_cpu_ms_per_commit + figures.db_floor_db_cpu_ms_per_commit;
    figures.prepaid_machine_cpu_ms_per_call = round(prepaidMachine, 3);
    figures.db_floor_machine_cpu_ms_per_commit = round(floorMachine, 4);
    figures.prepaid_ratio_cpu_bound = round(floorMachine / prepaidMachine, 3);
  }

  // Offline receipt verification on one core, of the overhead run's last receipt: both hashes and the signature.
  const parsed = parseReceiptText(lastReceipt);
  if (!parsed.ok) throw new BenchFailure("verify", "the overhead run's last call carried no receipt");
  const operatorKey = operatorKeypair().publicKeyBase58;
  const offlineInput = {
    receipt: parsed.receipt,
    prompt: body.messages,
    response: lastResponse,
    operatorKey,
    offline: true,
  };
  const checkOffline = (verifier: typeof serverVerifier, label: string) => async () => {
    const r = await verifier.verifyReceipt(offlineInput);
    if (!(r.checks.prompt_hash_ok && r.checks.response_hash_ok && r.checks.service_signature_ok))
      throw new BenchFailure(label, `a receipt check failed: ${JSON.stringify(r.checks)}`);
  };
  // The floor: node:crypto's own Ed25519 verify of the receipt's signed bytes, its key object built once.
  const message = receiptSigningBytes(parsed.receipt);
  const signature = decodeBase58(parsed.receipt.service_signature, 64);
  const rawKey = decodeBase58(operatorKey, 32);
  if (!signature || !rawKey)
    throw new BenchFailure("verify-native", "the receipt's signature or the operator key is not base58");
  const keyObject = createPublicKey({
    key: Buffer.concat([Buffer.from("302a300506032b6570032100", "hex"), rawKey]),
    format: "der",
    type: "spki",
  });
  // The three loops in turns, so the machine's background (PostgreSQL settling after the runs above) falls on each alike.
  for (const warm of [checkOffline(serverVerifier, "verify-node"), checkOffline(nobleVerifier, "verify-noble")]) {
    for (let i = 0; i < VERIFY_WARMUP_CALLS; i++) await warm();
  }
  const rates = await profiled("verify", () =>
    loopsInTurn(sizes.BENCH_VERIFY_MS, {
      node: checkOffline(serverVerifier, "verify-node"),
      native: () => {
        if (!verifyNative(null, message, keyObject, signature))
          throw new BenchFailure("verify-native", "node:crypto rejected the receipt's signature");
      },
      noble: checkOffline(nobleVerifier, "verify-noble"),
    }),
  );
  figures.verify_per_s = Math.round(rates.node);
  figures.native_ed25519_verify_per_s = Math.round(rates.native);
  figures.verify_message_bytes = message.length;
  figures.noble_verify_per_s = Math.round(rates.noble);

  // The hosted verifier: pinned operator key, the chain check answered by this service's own RPC.
  const verifyBody = JSON.stringify({
    receipt: parsed.receipt,
    prompt: body.messages,
    response: lastResponse,
    operatorKey,
  });
  const hostedCall = () =>
    verifyRoute(
      new Request("http://bench/api/verify", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: verifyBody,
      }),
      {},
    );
  const verdict = (await (await hostedCall()).json()) as { ok?: boolean };
  if (verdict.ok !== true)
    throw new BenchFailure(
      "hosted-verify",
      `the hosted verifier did not accept the receipt: ${JSON.stringify(verdict).slice(0, 300)}`,
    );
  // Warmed as the paid path is by its runs: a few hundred calls, past V8's optimizing tiers (the first thousand calls
  // of a cold hosted path ran at about two thirds of the warm rate).
  await run(
    "warm-hosted",
    Array.from({ length: HOSTED_WARMUP_CALLS }, () => hostedCall),
    HOSTED_CONCURRENCY,
  );
  const hosted = await run(
    "hosted-verify",
    Array.from({ length: sizes.BENCH_HOSTED_CALLS }, () => hostedCall),
    HOSTED_CONCURRENCY,
  );
  figures.hosted_verify_per_s = Math.round(hosted.perS);
  figures.hosted_cpu_ms_per_call = round(hosted.cpuMsPerCall, 3);
  // The chain lookup a hosted verification makes, alone: the same getTransaction to the same local RPC, same concurrency.
  const tx = (parsed.receipt.payment as { tx_signature?: unknown } | undefined)?.tx_signature;
  const lookupBody = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "getTransaction",
    params: [tx, { encoding: "jsonParsed", commitment: "confirmed", maxSupportedTransactionVersion: 0 }],
  });
  const lookup = () =>
    fetch(s.devnet.url, { method: "POST", headers: { "content-type": "application/json" }, body: lookupBody });
  const lookups = await run(
    "chain-lookup",
    Array.from({ length: sizes.BENCH_HOSTED_CALLS }, () => lookup),
    HOSTED_CONCURRENCY,
  );
  figures.chain_lookup_cpu_ms_per_call = round(lookups.cpuMsPerCall, 3);
  figures.offline_verify_cpu_ms = round(1000 / figures.verify_per_s, 3);

  await stockChain.close();
  stockChain = null;
  await stack.close();
  stack = null;

  // Realistic: a fresh stack whose chain keeps real time (a transaction confirms one 400 ms slot after it lands). The
  // unloaded p50 (sequential calls) is the latency waiting alone costs; at c=256 the ideal is 256 ÷ that latency, and
  // anything of ours that queues (a pool, a lock, an event loop) shows as a ratio below 1 while the cores sit idle. (The
  // p50 under load cannot serve as the denominator: in a closed loop throughput × mean latency = concurrency whatever
  // queues, by Little's law.) Served first by one instance in this process, then by one instance per core in processes
  // of their own on the same database, chain and keys, as operations.md runs it; the goal reads the second.
  stack = await startPaidStack({
    env: STACK_ENV,
    devnet: { timing: "real", slotMs: REAL_SLOT_MS },
    chainProcess: "own",
  });
  const r = stack;
  const c = sizes.BENCH_REALISTIC_CONCURRENCY;
  const inProcessCall = (h: string) => () => r.chat({ body, headers: { "PAYMENT-SIGNATURE": h } });
  await run("warm-realistic", (await signetHeaders(r, 1, 3)).map(inProcessCall), 1);
  const single = await run(
    `realistic-one-instance-c${c}`,
    (await signetHeaders(r, c, sizes.BENCH_REALISTIC_CALLS_PER_WORKER)).map(inProcessCall),
    c,
    { gauges: async () => readServiceGauges((await r.runtime()).metrics.registry), pids: [] },
  );
  figures.realistic_one_instance_calls_per_s = round(single.perS);
  record("realistic_one_instance_machine_busy", nullableRound(meanMachineBusy(single.view), 3));

  instances = await startServiceInstances(
    os.cpus().length,
    testEnv(),
    knobs.profileDir ? ["--cpu-prof", `--cpu-prof-dir=${path.resolve(knobs.profileDir, "instances")}`] : [],
  );
  const served = instances;
  const overHttp = (h: string, i: number) => () =>
    fetch(`${served.urls[i % served.urls.length]}/api/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", "PAYMENT-SIGNATURE": h },
      body: JSON.stringify(body),
    });
  // Warmed as the in-process instance is by every run before it (a cold instance spends its first hundreds of calls
  // compiling: the one-instance rate over HTTP went from 76 to 114 calls/s once warmed).
  const warmWorkers = 8 * served.urls.length;
  await run(
    "warm-instances",
    (await signetHeaders(r, warmWorkers, INSTANCE_WARMUP_CALLS_PER_WORKER)).map(overHttp),
    warmWorkers,
  );
  const unloaded = (
    await run(
      "realistic-sequential",
      (await signetHeaders(r, 1, sizes.BENCH_REALISTIC_SEQUENTIAL_CALLS)).map(overHttp),
      1,
    )
  ).latencies;
  const loaded = await run(
    `realistic-c${c}`,
    (await signetHeaders(r, c, sizes.BENCH_REALISTIC_CALLS_PER_WORKER)).map(overHttp),
    c,
    served,
  );
  await instances.close();
  instances = null;
  const busy = meanMachineBusy(loaded.view);
  record("realistic_machine_busy", nullableRound(busy, 3));
  figures.realistic_instances = served.urls.length;
  const unloadedP50 = percentile(sortedOf(unloaded), 50);
  figures.realistic_paid_calls_per_s = round(loaded.perS);
  figures.realistic_unloaded_p50_ms = round(unloadedP50);
  figures.realistic_loaded_p50_ms = round(percentile(sortedOf(loaded.latencies), 50));
  figures.realistic_concurrency = c;
  // What a call costs the whole machine (the instances, the chain, PostgreSQL and the client), and the calls/s the cores
  // allow at that cost ÷ the goal's ideal: the ratio the goal could reach here if nothing but CPU limited it.
  if (busy !== null) {
    const machineMsPerCall = (busy * os.cpus().length * 1000) / loaded.perS;
    figures.realistic_machine_cpu_ms_per_call = round(machineMsPerCall, 2);
    figures.realistic_ratio_cpu_bound = round(
      (os.cpus().length * 1000) / machineMsPerCall / (c / (unloadedP50 / 1000)),
      3,
    );
  }
  const realisticRatio = round(loaded.perS / (c / (unloadedP50 / 1000)), 3);
  figures.realistic_throughput_ratio = realisticRatio;
  figures.overhead_p50_ratio = round(percentile(overheadSorted, 50) / percentile(stockSorted, 50), 3);
  figures.prepaid_ratio_vs_db_floor = round(figures.prepaid_calls_per_s / figures.db_floor_commits_per_s, 3);
  figures.paid_ratio_vs_stock = Math.min(figures.paid_ratio_vs_stock_c8!, figures.paid_ratio_vs_stock_c32!);
  const ratios: Record<GoalKey, number> = {
    service_cpu_ratio_vs_stock: Math.max(
      figures.service_cpu_ratio_vs_stock_c8!,
      figures.service_cpu_ratio_vs_stock_c32!,
    ),
    realistic_no_queue: round(Math.max(realisticRatio, figures.realistic_machine_busy ?? 0) / REALISTIC_SHARE, 3),
    prepaid_machine_cpu_ms_per_call: figures.prepaid_machine_cpu_ms_per_call ?? Number.NaN,
    overhead_p50_vs_commit_bound: round(percentile(overheadSorted, 50) / figures.overhead_bound_ms!, 3),
    overhead_samples: overheads.length,
    verify_ratio_vs_native: round(figures.verify_per_s / figures.native_ed25519_verify_per_s, 3),
    hosted_ratio_vs_offline: round(figures.hosted_verify_per_s / figures.verify_per_s, 3),
  };
  const results = {
    machine,
    database,
    commit: commitOf(),
    measured_at: new Date().toISOString(),
    trial: knobs.trial,
    load_average_1m: { before: round(loadBefore, 2), after: round(os.loadavg()[0]!, 2) },
    backends: {
      database,
      server_ed25519: "node:crypto",
      browser_ed25519: "noble",
      chain: `LiteSVM, each chain in its own process behind JSON-RPC: instant timing, except the realistic run's real timing (${REAL_SLOT_MS} ms slots)`,
      db_floor: `single-row UPDATE autocommit, ${PREPAID_CONCURRENCY} pg connections, each its own row, prepared statement`,
    },
    sizes,
    ...ratios,
    ...figures,
  };
  mkdirSync(path.resolve("bench"), { recursive: true });
  writeFileSync(path.resolve("bench/results.json"), `${JSON.stringify(results, null, 2)}\n`);
  appendFileSync(path.resolve("bench/history.jsonl"), `${JSON.stringify(results)}\n`);

  console.log("\n| goal | measured | target | met |\n|---|---|---|---|");
  for (const goal of GOALS)
    console.log(
      `| ${goal.figure} | ${ratios[goal.key]} | ${goalText(goal)} | ${goalMet(goal, ratios[goal.key]) ? "✓" : "✗"} |`,
    );
  console.log("\n| figure | measured |\n|---|---|");
  for (const f of FIGURES) console.log(`| ${f.label} | ${figures[f.key] ?? "–"} |`);
  console.log(
    `\nbench: wrote bench/results.json, appended bench/history.jsonl (commit ${results.commit.sha.slice(0, 12)}${results.commit.dirty ? ", dirty" : ""})`,
  );
  const changed = updatePerformanceDoc(path.resolve("bench/history.jsonl"), path.resolve(PERFORMANCE_DOC));
  console.log(
    `bench: ${PERFORMANCE_DOC}'s results table ${changed ? "regenerated" : "unchanged"}${knobs.trial ? " (a trial run is not shown there)" : ""}`,
  );
} catch (err) {
  if (!(err instanceof BenchFailure)) throw err;
  console.error(`\nbench failed in ${err.message}`);
  console.error("bench: no results written (a run with a failed call has no figures)");
  process.exitCode = 1;
} finally {
  await stockChain?.close();
  await instances?.close();
  await stack?.close();
}

async function challengeOf402(res: Response): Promise<PaymentRequired> {
  if (res.status !== 402) throw new Error(`the stock route answered ${res.status}, not 402`);
  const header = res.headers.get("payment-required");
  if (!header) throw new Error("the stock route's 402 carries no PAYMENT-REQUIRED header");
  const { decodePaymentRequiredHeader } = await import("@x402/core/http");
  return decodePaymentRequiredHeader(header);
}
