// SIGTERM on the front server's drain, twice: drain-child.ts (bin/start/serve-next.ts's server, tracker and signal handling
// around the real route handlers, as its own process): the streamed prepaid call in flight finishes with its receipt,
// a new request is refused or answered 503, and the process exits 0 within SHUTDOWN_GRACE_MS. Then the real thing:
// `npm start` (bin/start/start.ts → bin/start/serve-next.ts) on a production build, with a slow streamed PAID call in flight.
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startLocalnet, type Localnet } from "../../../devtools/localnet";
import { generateKeypair } from "../../keys/parse-secret-key";
import { creditAgent } from "../../ledger/credit-agent";
import { newNonce, signRequestHeaders } from "../../agent/sign-request";
import { readStreamedAnswer } from "../../upstream/read-sse";
import { createTestDatabase, type TestDatabase } from "../support/test-db";
import { createPayingFetch } from "../../agent/paying-fetch";
import { createKeyPairSignerFromBytes } from "@solana/kit";
import { SOAK_BASE_URL, startSoakStack, type SoakStack } from "../../../devtools/soak/soak-stack";
import { tempDataDir, testEnv } from "../support/env";

const ROOT = path.resolve(import.meta.dirname, "../../..");
const BASE = "http://signet.test";
const GRACE_MS = 30_000;
// The built-in model pauses this long between streamed words: the answer takes a few seconds.
const STREAM_DELAY_MS = 150;

let devnet: Localnet;
let tdb: TestDatabase;
let child: ChildProcess;
let exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>;
let url: string;
let output = "";

beforeAll(async () => {
  devnet = await startLocalnet({ profile: "devnet", port: 0, dataDir: null });
  tdb = await createTestDatabase();
  child = spawn(process.execPath, ["--conditions=react-server", "--import", "tsx", "server/test/ops/drain-child.ts"], {
    cwd: ROOT,
    env: {
      ...testEnv(),
      NODE_ENV: "test",
      SERVICE_BASE_URL: BASE,
      LOG_LEVEL: "silent",
      SIGNET_DATA_DIR: tempDataDir("signet-shutdown-"),
      DATABASE_URL: tdb.url,
      RPC_URL_SOLANA_DEVNET: devnet.url,
      LOCALNET_EVM_RPC_PORT: "0",
      LOCAL_MODEL_STREAM_DELAY_MS: String(STREAM_DELAY_MS),
      SHUTDOWN_GRACE_MS: String(GRACE_MS),
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout!.on("data", (c: Buffer) => (output += c.toString()));
  child.stderr!.on("data", (c: Buffer) => (output += c.toString()));
  exited = new Promise((resolve) => child.on("exit", (code, signal) => resolve({ code, signal, at: Date.now() })));
  const deadline = Date.now() + 150_000;
  while (!/ready (\S+)/.test(output)) {
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`the front server did not start:\n${output}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  url = /ready (\S+)/.exec(output)![1]!;
}, 180_000);

afterAll(async () => {
  if (child && child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  await devnet?.close();
  await tdb?.drop();
});

function prepaidCall(kp: ReturnType<typeof generateKeypair>, stream: boolean): Promise<Response> {
  const text = JSON.stringify({
    model: "local/echo-1",
    prompt: "tell me a long story about a slow shutdown",
    nonce: newNonce(),
    timestamp: Date.now(),
    stream,
  });
  return fetch(`${url}/api/v1/inference`, {
    method: "POST",
    headers: signRequestHeaders(kp, "POST", `${BASE}/api/v1/inference`, text),
    body: text,
  });
}

describe("the front server on SIGTERM", () => {
  it("finishes the streamed call in flight, refuses new requests, and exits 0 within SHUTDOWN_GRACE_MS", async () => {
    const kp = generateKeypair();
    const credited = await creditAgent(tdb.prisma, {
      kind: "test_credit",
      agentPubkey: kp.publicKeyBase58,
      network: devnet.caip2,
      units: 1_000_000n,
    });
    expect(credited.ok).toBe(true);
    // Compiles the route (dev mode) and proves the service answers before the signal.
    const warm = await prepaidCall(kp, false);
    expect(warm.status, `${await warm.clone().text()}\n${output}`).toBe(200);

    const inFlight = await prepaidCall(kp, true);
    expect(inFlight.status).toBe(200);
    const reader = inFlight.body!.getReader();
    const first = await reader.read();
    expect(first.done).toBe(false);

    const signalledAt = Date.now();
    child.kill("SIGTERM");
    await new Promise((r) => setTimeout(r, 300));

    // A request that arrives now: refused at the socket, or answered 503 shutting_down on a kept-alive connection.
    const late = await fetch(`${url}/api/v1/models`).then(
      async (r) => ({ status: r.status, body: await r.text() }),
      () => "refused" as const,
    );
    if (late !== "refused") {
      expect(late.status).toBe(503);
      expect(late.body).toContain("shutting_down");
    }

    // The call in flight runs to its end: every word, then the signed receipt and [DONE].
    const finishedAt = await finishStream(first.value!, reader);
    // The stream was still running when the signal came: it outlived it.
    expect(finishedAt - signalledAt).toBeGreaterThan(STREAM_DELAY_MS * 3);

    const exit = await exited;
    expect(exit, output).toMatchObject({ code: 0, signal: null });
    expect(exit.at - signalledAt).toBeLessThan(GRACE_MS);
    expect(exit.at).toBeGreaterThanOrEqual(finishedAt - 50);
    expect(output).toContain("every request finished");
    // The call was captured: its hold is gone and the charge is in the ledger.
    const holds = await tdb.prisma.creditHold.findMany({ where: { agentPubkey: kp.publicKeyBase58 } });
    expect(holds.map((h) => h.status)).toEqual(["captured", "captured"]);
  }, 240_000);
});

describe("npm start (the production server) on SIGTERM", () => {
  let stack: SoakStack;
  const agent = generateKeypair();
  beforeAll(async () => {
    stack = await startSoakStack({
      instances: 1,
      seed: 5,
      faults: false,
      agents: { solana: [agent], evm: [], usdcUnits: 1_000_000n },
      env: { LOCAL_MODEL_STREAM_DELAY_MS: String(STREAM_DELAY_MS), SHUTDOWN_GRACE_MS: String(GRACE_MS) },
    });
  }, 600_000);
  afterAll(async () => stack?.close());

  it("refuses new paid calls with 503 while the streamed paid call in flight finishes, then exits 0 within the grace", async () => {
    const instance = stack.instances[0]!;
    const signer = await createKeyPairSignerFromBytes(new Uint8Array([...agent.seed, ...agent.publicKey]));
    const toInstance: typeof fetch = (input, init) => {
      const req = new Request(input, init);
      return fetch(new Request(`${instance.url}${new URL(req.url).pathname}`, req));
    };
    const pay = createPayingFetch(signer, { [stack.devnet.caip2]: stack.devnet.faultFreeUrl }, toInstance);
    const paidCall = (stream: boolean) =>
      pay(`${SOAK_BASE_URL}/api/v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          model: "local/echo-1",
          network: "devnet",
          stream,
          messages: [{ role: "user", content: "tell me a long story about a slow shutdown" }],
        }),
      });

    const inFlight = await paidCall(true);
    expect(inFlight.status, instance.output()).toBe(200);
    expect(inFlight.headers.get("payment-response")).toBeTruthy();
    const reader = inFlight.body!.getReader();
    const first = await reader.read();
    expect(first.done).toBe(false);

    const signalledAt = Date.now();
    instance.kill("SIGTERM");
    await new Promise((r) => setTimeout(r, 300));

    // A paid call that arrives now: refused at the socket, or 503 before any payment is asked for or taken.
    const late = await fetch(`${instance.url}/api/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        model: "local/echo-1",
        network: "devnet",
        messages: [{ role: "user", content: "too late" }],
      }),
    }).then(
      async (r) => ({ status: r.status, body: await r.text() }),
      () => "refused" as const,
    );
    if (late !== "refused") {
      expect(late.status).toBe(503);
      expect(late.body).toContain("shutting_down");
    }
    const ready = await fetch(`${instance.url}/api/health`).then(
      (r) => r.status,
      () => "refused" as const,
    );
    expect([503, "refused"]).toContain(ready);

    const finishedAt = await finishStream(first.value!, reader);
    expect(finishedAt - signalledAt).toBeGreaterThan(STREAM_DELAY_MS * 3);

    const exit = await instance.exited;
    expect(exit, instance.output()).toMatchObject({ code: 0, signal: null });
    expect(exit.at - signalledAt).toBeLessThan(GRACE_MS);
    expect(exit.at).toBeGreaterThanOrEqual(finishedAt - 50);
    // One payment, served once: the paid call was settled, credited and captured before the process left.
    const payments = await stack.db.prisma.payment.findMany({ where: { payer: agent.publicKeyBase58 } });
    expect(payments.map((p) => p.status)).toEqual(["served"]);
  }, 240_000);
});

/** Reads the rest of a streamed answer whose first chunk was read already: every word, the signed receipt and [DONE]. */
async function finishStream(firstChunk: Uint8Array, reader: ReadableStreamDefaultReader<Uint8Array>): Promise<number> {
  const rest = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(firstChunk);
    },
    async pull(controller) {
      const { value, done } = await reader.read();
      if (done) controller.close();
      else controller.enqueue(value);
    },
  });
  const answer = await readStreamedAnswer(rest);
  expect(answer.error).toBeNull();
  expect(answer.done).toBe(true);
  expect(answer.receipt).not.toBeNull();
  return Date.now();
}
