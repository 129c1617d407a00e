// The chaos suite's crash points: the service runs as its own process and is SIGKILLed at each step of a paid call
// (plain and streamed) and of a prepaid call, CHAOS_RUNS times per step (once by default; SIGNET_CHAOS_FULL=true runs 20). The
// process is the chaos server bundled once with esbuild and started with plain node. After each crash another process
// (no crash armed, a short lease) gets a retry with the same payment header, as a client would send it. For every run:
// - the agent paid exactly once on chain;
// - the settlement is in the ledger exactly once;
// - a payment the dead process had not served is served by the retry, once; one it had served gives the retry its
//   stored answer and receipt (X-Answer-Replayed), never a second call; any later send of the same request gets that
//   stored answer too, and the same payment for another request (the stream flag flipped) is 409
//   payment_request_mismatch;
// - a prepaid hold the dead process held is released by the next process once its lease ran out: nothing charged;
// and `signet reconcile` reports zero drift against the chain and the ledger after a crash between settlement and credit.
import { spawn, type ChildProcess } from "node:child_process";
import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createKeyPairSignerFromBytes } from "@solana/kit";
import { startLocalnet, type Localnet } from "../../../devtools/localnet";
import { loadOrCreateDevKey } from "../../keys/load-signing-key";
import { FACILITATOR_DEV_KEY_FILE } from "../../facilitator/create-facilitator";
import { generateKeypair } from "../../keys/parse-secret-key";
import { createTestDatabase, type TestDatabase } from "../support/test-db";
import { tempDataDir, testEnv, testKnob } from "../support/env";
import { buildPaymentHeader, challengeOf, FAST_SLOT_MS } from "../support/paid-stack";
import type { CrashStep } from "../../env/crash-point";
import { newNonce, signRequestHeaders } from "../../agent/sign-request";
import { creditAgent } from "../../ledger/credit-agent";
import { readStreamedAnswer } from "../../upstream/read-sse";
import { bundleForNode, type NodeBundle } from "../../../devtools/node-bundle";
import type { Ed25519Keypair } from "../../keys/parse-secret-key";

/** Crashes per step: one by default; SIGNET_CHAOS_FULL=true runs the full count, CHAOS_RUNS any other. */
const RUNS = testKnob("CHAOS_RUNS", testEnv().SIGNET_CHAOS_FULL === "true" ? 20 : 1);
const ROOT = path.resolve(__dirname, "../../..");
const STEPS: { step: CrashStep; servedBeforeCrash: boolean; stream?: boolean }[] = [
  { step: "after_verify", servedBeforeCrash: false },
  { step: "after_settle", servedBeforeCrash: false },
  { step: "after_credit", servedBeforeCrash: false },
  { step: "during_inference", servedBeforeCrash: false },
  { step: "during_stream", servedBeforeCrash: false, stream: true },
  { step: "after_debit", servedBeforeCrash: true },
  { step: "before_response", servedBeforeCrash: true },
];
/** Crash points on the prepaid route: after the hold, and while the upstream call is in flight. */
const PREPAID_STEPS: CrashStep[] = ["after_hold", "during_inference"];
const PRICE = 1_000n;
const body = { model: "local/echo-1", messages: [{ role: "user", content: "crash me" }] };

let devnet: Localnet;
let tdb: TestDatabase;
let dataDir: string;
let env: NodeJS.ProcessEnv;
let server: NodeBundle;

beforeAll(async () => {
  server = await bundleForNode("devtools/chaos/chaos-server.ts");
  // Real timing's rules at the paid stack's fast pace: no test here measures slot time.
  devnet = await startLocalnet({ profile: "devnet", port: 0, dataDir: null, timing: "real", slotMs: FAST_SLOT_MS });
  tdb = await createTestDatabase();
  dataDir = tempDataDir("signet-chaos-");
  // The facilitator key lives in the data dir every process of the run shares; fund it before the first starts.
  const facilitator = loadOrCreateDevKey(path.join(dataDir, FACILITATOR_DEV_KEY_FILE));
  await devnet.fundAccount(facilitator.publicKeyBase58, { lamports: 10_000_000_000n });
  env = {
    ...testEnv(),
    NODE_ENV: "test",
    // The origin signed prepaid requests name (the service is reached at another address: that is fine).
    SERVICE_BASE_URL: "http://signet.test",
    LOG_LEVEL: "silent",
    SIGNET_DATA_DIR: dataDir,
    DATABASE_URL: tdb.url,
    RPC_URL_SOLANA_DEVNET: devnet.url,
    X402_FLAT_PRICE_USDC: "0.001",
    LOCALNET_EVM_RPC_PORT: "0",
  };
});
afterAll(async () => {
  await devnet?.close();
  await tdb?.drop();
  server?.remove();
});

interface Service {
  url: string;
  child: ChildProcess;
  exited: Promise<number | null>;
}

async function startService(extra: Record<string, string>): Promise<Service> {
  const child = spawn(process.execPath, ["--conditions=react-server", server.entry], {
    cwd: ROOT,
    env: { ...env, ...extra },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const exited = new Promise<number | null>((resolve) =>
    child.on("exit", (code, signal) => resolve(signal ? -1 : code)),
  );
  let stderr = "";
  child.stderr!.on("data", (c: Buffer) => (stderr += c.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (c: Buffer) => {
      out += c.toString();
      const ready = /ready (\S+)/.exec(out);
      if (ready) resolve(ready[1]!);
    });
    void exited.then(() => reject(new Error(`the service exited before it was ready: ${stderr}`)));
  });
  return { url, child, exited };
}

const usdcOf = (owner: string) => devnet.usdcBalance(owner);

const post = (url: string, headers: Record<string, string> = {}, stream = false) =>
  fetch(`${url}/api/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ ...body, stream }),
  });

/** Whether an answer was a stored one, and the inference its receipt names (from the header, or a stream's event). */
async function servedAnswer(
  res: Response,
  stream: boolean,
): Promise<{ replayed: boolean; inferenceId: string | undefined }> {
  const replayed = res.headers.get("x-answer-replayed") === "true";
  if (stream)
    return { replayed, inferenceId: (await readStreamedAnswer(res.body!)).receipt?.inference_id as string | undefined };
  const header = res.headers.get("x-service-receipt");
  return {
    replayed,
    inferenceId: header
      ? (JSON.parse(Buffer.from(header, "base64").toString("utf8")) as { inference_id: string }).inference_id
      : undefined,
  };
}

function prepaidCall(url: string, kp: Ed25519Keypair): Promise<Response> {
  const text = JSON.stringify({
    model: "local/echo-1",
    prompt: "crash me, prepaid",
    nonce: newNonce(),
    timestamp: Date.now(),
  });
  return fetch(`${url}/api/v1/inference`, {
    method: "POST",
    headers: signRequestHeaders(kp, "POST", "http://signet.test/api/v1/inference", text),
    body: text,
  });
}

/**
 * One run: a fresh agent pays a process armed to die at `step`; the retry goes to `retrier`. Checks that the payment is
 * on chain once, credited once and served once (by the dead process when `servedBeforeCrash`, else by the retry).
 */
async function crashThenRetry(
  step: CrashStep,
  retrier: Service,
  servedBeforeCrash: boolean,
  stream: boolean,
): Promise<void> {
  const kp = generateKeypair();
  const agent = await createKeyPairSignerFromBytes(new Uint8Array([...kp.seed, ...kp.publicKey]));
  await devnet.fundAccount(agent.address, { usdcUnits: 1_000_000n });
  const service = await startService({ SIGNET_CHAOS_CRASH_AT: step });
  const header = await buildPaymentHeader(agent, await challengeOf(await post(service.url)), devnet.url);
  const crashed = await post(service.url, { "X-Payment": header }, stream).then(
    (r) => r.status,
    () => "connection lost",
  );
  expect(crashed).toBe("connection lost");
  expect(await service.exited).toBe(-1);

  // The lease of the dead process's claim runs out; the retry resolves it.
  await new Promise((r) => setTimeout(r, 150));
  const retry = await post(retrier.url, { "X-Payment": header }, stream);
  expect(retry.status, await retry.clone().text()).toBe(200);
  const first = await servedAnswer(retry, stream);
  // Served by the dead process already: the retry gets that call's stored answer; otherwise the retry serves it.
  expect(first.replayed).toBe(servedBeforeCrash);
  expect(first.inferenceId).toBeDefined();
  // A second send of the same request gets the stored answer either way: one payment serves one call.
  const again = await post(retrier.url, { "X-Payment": header }, stream);
  expect(again.status, await again.clone().text()).toBe(200);
  expect(await servedAnswer(again, stream)).toEqual({ replayed: true, inferenceId: first.inferenceId });
  const other = await post(retrier.url, { "X-Payment": header }, !stream);
  expect(other.status).toBe(409);
  expect(await other.json()).toMatchObject({ error: { code: "payment_request_mismatch" } });
  expect(await usdcOf(agent.address)).toBe(1_000_000n - PRICE);
  const payments = await tdb.prisma.payment.findMany({ where: { payer: agent.address } });
  expect(payments.map((p) => p.status)).toEqual(["served"]);
  expect(payments[0]!.inferenceId).toBe(first.inferenceId);
  expect(await tdb.prisma.ledgerEntry.count({ where: { paymentId: payments[0]!.id, kind: "payment_credit" } })).toBe(1);
  expect(await tdb.prisma.inferenceLog.count({ where: { agentPubkey: agent.address } })).toBe(1);
}

describe("SIGKILL at each step of a paid call", () => {
  // The retries go to one process that lives through the whole file (no crash armed, a short lease), each right after
  // its crash: well inside its payment's blockhash window, as a client's retry would be. Each crash is its own process.
  let retrier: Service;
  beforeAll(async () => {
    retrier = await startService({ PAYMENT_LEASE_MS: "100" });
  });
  afterAll(async () => {
    retrier?.child.kill("SIGTERM");
    await retrier?.exited;
  });

  for (const { step, servedBeforeCrash, stream = false } of STEPS) {
    it(
      `recovers ${RUNS === 1 ? "a crash" : `${RUNS} crashes`} ${step.replace("_", " ")}${stream ? " (streamed)" : ""}: one payment on chain, one credit, ${servedBeforeCrash ? "the stored answer again" : "served once by the retry"}`,
      async () => {
        for (let i = 0; i < RUNS; i++) {
          await crashThenRetry(step, retrier, servedBeforeCrash, stream);
        }
        // A process start per run: on a loaded two-core machine one run took up to 80 s.
      },
      60_000 + RUNS * 60_000,
    );
  }

  it("leaves zero drift for `signet reconcile` after a crash between settlement and credit", async () => {
    // Its own crash, so it holds run alone too; the payments of the tests before it in this file's database count as well.
    await crashThenRetry("after_settle", retrier, false, false);
    const payments = await tdb.prisma.payment.count();
    const r = await promisify(execFile)(
      process.execPath,
      [path.join(ROOT, "bin/cli/signet.mjs"), "reconcile", "--json"],
      { cwd: ROOT, env, encoding: "utf8" },
    ).then(
      (x) => ({ code: 0, stdout: x.stdout }),
      (e: { code?: number; stdout?: string }) => ({ code: e.code ?? 1, stdout: e.stdout ?? "" }),
    );
    const report = JSON.parse(r.stdout) as {
      drift: number;
      networks: { recordedPayments: number; onChainTransfers: number; pendingClaims: number }[];
    };
    expect(report.networks[0]).toMatchObject({
      recordedPayments: payments,
      onChainTransfers: payments,
      pendingClaims: 0,
    });
    expect(report.drift).toBe(0);
    expect(r.code).toBe(0);
  });
});

// No other process runs beside these: the dead process's hold must still be held when the test looks, until a process
// it starts itself releases it.
describe("SIGKILL at each step of a prepaid call", () => {
  for (const step of PREPAID_STEPS) {
    it(`returns a prepaid hold whose server was killed ${step.replace("_", " ")}, and charges nothing`, async () => {
      const agents: Ed25519Keypair[] = [];
      for (let i = 0; i < Math.min(RUNS, 5); i++) {
        const kp = generateKeypair();
        const credited = await creditAgent(tdb.prisma, {
          kind: "test_credit",
          agentPubkey: kp.publicKeyBase58,
          network: devnet.caip2,
          units: 100_000n,
        });
        expect(credited.ok).toBe(true);
        // A short lease, so the dead process's hold expires within the test.
        const service = await startService({ SIGNET_CHAOS_CRASH_AT: step, PAYMENT_LEASE_MS: "500" });
        const crashed = await prepaidCall(service.url, kp).then(
          (r) => r.status,
          () => "connection lost",
        );
        expect(crashed).toBe("connection lost");
        expect(await service.exited).toBe(-1);
        expect(await tdb.prisma.creditHold.count({ where: { agentPubkey: kp.publicKeyBase58, status: "held" } })).toBe(
          1,
        );
        agents.push(kp);
      }
      // A fresh process with a short lease releases the dead process's holds; each agent's credit is whole again.
      const service = await startService({ PAYMENT_LEASE_MS: "200" });
      try {
        for (const kp of agents) {
          await expect
            .poll(() => tdb.prisma.creditHold.count({ where: { agentPubkey: kp.publicKeyBase58, status: "held" } }), {
              // The sweep runs each second, but this file runs at a low CPU priority: on a busy machine the
              // fresh process can wait many seconds for the CPU to run it.
              timeout: 60_000,
              interval: 100,
            })
            .toBe(0);
          expect(
            (await tdb.prisma.balance.findFirstOrThrow({ where: { agentPubkey: kp.publicKeyBase58 } })).units,
          ).toBe(100_000n);
          expect(await tdb.prisma.inferenceLog.count({ where: { agentPubkey: kp.publicKeyBase58 } })).toBe(0);
          const next = await prepaidCall(service.url, kp);
          expect(next.status, await next.clone().text()).toBe(200);
        }
      } finally {
        service.child.kill("SIGTERM");
        await service.exited;
      }
    });
  }
});
