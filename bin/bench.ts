// `npm run bench`: measured figures on this machine, against PostgreSQL and the local chain, with the built-in model.
// Requests go through the real route handlers in process (no HTTP hop); client-side signing happens before the clock.
// Writes bench/results.json and prints a table. Issue #7 extends this with the full comparison against stock x402.
import { mkdirSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { POST as inferenceRoute } from "../app/api/v1/inference/route";
import { newNonce, signRequestHeaders } from "../server/agent/sign-request";
import { generateKeypair } from "../server/keys/parse-secret-key";
import { creditBalance } from "../server/ledger/record-settlement";
import { buildPaymentHeader, challengeOf, startPaidStack } from "../server/test/support/paid-stack";

const PREPAID_CALLS = Number(process.env.BENCH_PREPAID_CALLS ?? 2000);
const PREPAID_CONCURRENCY = 16;
const PAID_CALLS = Number(process.env.BENCH_PAID_CALLS ?? 100);
const DEVNET = "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1";

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

const stack = await startPaidStack({ env: { X402_FLAT_PRICE_USDC: "0.001", PREPAID_RATE_LIMIT_PER_MINUTE: "1000000", LOG_LEVEL: "silent" } });
try {
  // Prepaid: many agents (the rate limit is per agent), signed bodies prepared before the clock starts.
  const agents = Array.from({ length: PREPAID_CONCURRENCY }, () => generateKeypair());
  for (const a of agents) {
    await stack.tdb.prisma.$transaction(async (tx) => {
      await tx.ledgerEntry.create({ data: { agentPubkey: a.publicKeyBase58, network: DEVNET, kind: "bench_credit", units: 1_000_000_000n } });
      await creditBalance(tx, a.publicKeyBase58, DEVNET, 1_000_000_000n);
    });
  }
  const requests = Array.from({ length: PREPAID_CALLS }, (_, i) => {
    const kp = agents[i % agents.length]!;
    const text = JSON.stringify({ model: "local/echo-1", prompt: `bench ${i}`, nonce: newNonce(), timestamp: Date.now() + 30_000 });
    return { headers: signRequestHeaders(kp, "POST", "/api/v1/inference", text), text };
  });
  // Warm-up
  for (let i = 0; i < 20; i++) {
    const r = requests.pop()!;
    await inferenceRoute(new Request("http://bench/api/v1/inference", { method: "POST", headers: r.headers, body: r.text }), {});
  }
  let next = 0;
  let failures = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: PREPAID_CONCURRENCY }, async () => {
      while (next < requests.length) {
        const r = requests[next++]!;
        const res = await inferenceRoute(new Request("http://bench/api/v1/inference", { method: "POST", headers: r.headers, body: r.text }), {});
        if (res.status !== 200) failures++;
        await res.arrayBuffer();
      }
    }),
  );
  const prepaidSeconds = (performance.now() - started) / 1000;
  const prepaidPerS = requests.length / prepaidSeconds;

  // Paid: one agent, sequential calls, each payment built (and signed) before its clock starts.
  const signer = await stack.newAgent(1_000_000_000n);
  const latencies: number[] = [];
  for (let i = 0; i < PAID_CALLS; i++) {
    const body = { model: "local/echo-1", messages: [{ role: "user", content: `paid bench ${i}` }] };
    const header = await buildPaymentHeader(signer, await challengeOf(await stack.chat({ body })), stack.devnet.url);
    const t = performance.now();
    const res = await stack.chat({ body, headers: { "X-Payment": header } });
    latencies.push(performance.now() - t);
    if (res.status !== 200) failures++;
  }
  latencies.sort((a, b) => a - b);

  const results = {
    machine: `${os.cpus().length} × ${os.cpus()[0]?.model ?? "cpu"}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, node ${process.version}`,
    prepaid_calls_per_s: Math.round(prepaidPerS),
    prepaid_calls: requests.length,
    prepaid_concurrency: PREPAID_CONCURRENCY,
    paid_call_p50_ms: Number(percentile(latencies, 50).toFixed(1)),
    paid_call_p99_ms: Number(percentile(latencies, 99).toFixed(1)),
    paid_calls: PAID_CALLS,
    failures,
  };
  mkdirSync(path.resolve("bench"), { recursive: true });
  writeFileSync(path.resolve("bench/results.json"), `${JSON.stringify(results, null, 2)}\n`);
  console.log("figure                                              | measured");
  console.log("----------------------------------------------------|---------");
  console.log(`prepaid calls/s (signed, hold + capture, c=${PREPAID_CONCURRENCY})          | ${results.prepaid_calls_per_s}`);
  console.log(`paid call, verify + settle on localnet + serve, p50  | ${results.paid_call_p50_ms} ms`);
  console.log(`paid call, p99                                       | ${results.paid_call_p99_ms} ms`);
  console.log(`failures                                            | ${failures}`);
  console.log(`machine: ${results.machine}`);
  if (failures > 0) process.exitCode = 1;
} finally {
  await stack.close();
}
