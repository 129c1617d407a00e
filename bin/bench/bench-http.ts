// `npm run bench:http`: what Next's request pipeline costs an API call. Two production servers (`npm start` on one
// production build, the same database and environment), each its own process: one serving the hot API routes straight
// from their built handlers (the default, server/http/direct-api-routes.ts), one with SIGNET_API_DIRECT=false sending
// them through Next's pipeline like every other path. Signed prepaid calls at concurrency 16 go to each in turns over
// keep-alive HTTP from this process; each server's own CPU (its whole process group, from /proc) per call is the
// figure, with calls/s and p50 beside it. Writes bench/http-results.json.
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import bs58 from "bs58";
import { devtoolsKnob, minimalChildEnv } from "../../devtools/devtools-env";

const { ensureProductionBuild, freePort, REPO_ROOT, SOAK_DIST_DIR } = await import("../../devtools/soak/soak-stack");
const { createTestDatabase } = await import("../../server/test/support/test-db");
const { startLocalnet } = await import("../../devtools/localnet");
const { generateKeypair } = await import("../../server/keys/parse-secret-key");
const { creditAgent } = await import("../../server/ledger/credit-agent");
const { newNonce, signRequestHeaders } = await import("../../server/agent/sign-request");
const { percentile } = await import("../../devtools/bench/percentile");

const CONCURRENCY = 16;
const CALLS = devtoolsKnob("BENCH_HTTP_CALLS", 3000);
const ROUNDS = 3;
const ORIGIN = "http://signet.bench";

/** CPU time (ms) of every process in process group `pgid`, from /proc. */
function groupCpuMs(pgid: number): number {
  let ticks = 0;
  for (const pid of readdirSync("/proc")) {
    if (!/^\d+$/.test(pid)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    } catch {
      continue;
    }
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (Number(fields[2]) === pgid) ticks += Number(fields[11]) + Number(fields[12]);
  }
  return ticks * 10;
}

function spawnServer(args: string[], env: NodeJS.ProcessEnv, port: number): { child: ChildProcess; url: string } {
  const child = spawn(process.execPath, args, {
    cwd: REPO_ROOT,
    env: { ...env, PORT: String(port) },
    stdio: ["ignore", "ignore", "inherit"],
    detached: true,
  });
  return { child, url: `http://127.0.0.1:${port}` };
}

async function waitUp(url: string, probe: string): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (
      await fetch(`${url}${probe}`, {
        method: probe.endsWith("inference") ? "POST" : "GET",
        signal: AbortSignal.timeout(2_000),
      }).then(
        () => true,
        () => false,
      )
    )
      return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${url} did not start`);
}

ensureProductionBuild((line) => console.log(`bench:http ${line}`));
const tdb = await createTestDatabase(4);
const devnet = await startLocalnet({ profile: "devnet", port: 0, dataDir: null, timing: "instant" });
const agents = Array.from({ length: CONCURRENCY }, () => generateKeypair());
const testKey = () => bs58.encode(generateKeypair().seed);
const env: NodeJS.ProcessEnv = minimalChildEnv({
  NODE_ENV: "production",
  NEXT_TELEMETRY_DISABLED: "1",
  SIGNET_NEXT_DIST_DIR: SOAK_DIST_DIR,
  SIGNET_DATA_DIR: mkdtempSync(path.join(os.tmpdir(), "signet-bench-http-")),
  LOG_LEVEL: "silent",
  DATABASE_URL: tdb.url,
  SERVICE_BASE_URL: ORIGIN,
  TRUSTED_PROXY_HOPS: "0",
  METRICS_TOKEN: randomBytes(16).toString("hex"),
  SERVICE_OPERATOR_SECRET_KEY: testKey(),
  VERIFIER_SECRET_KEY: testKey(),
  LOG_SECRET_KEY: testKey(),
  FACILITATOR_SECRET_KEY: testKey(),
  SESSION_SECRET: randomBytes(32).toString("hex"),
  IP_HASH_SALT: randomBytes(16).toString("hex"),
  // Production starts only with an operator listed; nobody signs in during the bench.
  SERVICE_OPERATOR_PUBKEYS: generateKeypair().publicKeyBase58,
  RPC_URL_SOLANA_DEVNET: devnet.url,
  X402_FLAT_PRICE_USDC: "0.001",
  PREPAID_RATE_LIMIT_PER_MINUTE: "1000000",
  PREPAID_IP_RATE_LIMIT_PER_MINUTE: "1000000",
});
const servers: { child: ChildProcess }[] = [];
try {
  const start = ["--conditions=react-server", "--import", "tsx", "bin/start/start.ts"];
  const nextServer = spawnServer(start, { ...env, SIGNET_API_DIRECT: "false" }, await freePort());
  servers.push(nextServer);
  const direct = spawnServer(start, env, await freePort());
  servers.push(direct);
  await waitUp(nextServer.url, "/api/health?probe=live");
  await waitUp(direct.url, "/api/health?probe=live");
  for (const a of agents) {
    const credited = await creditAgent(tdb.prisma, {
      kind: "test_credit",
      agentPubkey: a.publicKeyBase58,
      network: devnet.caip2,
      units: 1_000_000_000n,
    });
    if (!credited.ok) throw new Error(`credit refused: ${credited.reason}`);
  }

  async function runOn(
    url: string,
    pgid: number,
    calls: number,
  ): Promise<{ perS: number; cpuMsPerCall: number; p50Ms: number }> {
    const jobs = Array.from({ length: calls }, (_, i) => {
      const kp = agents[i % agents.length]!;
      const text = JSON.stringify({
        model: "local/echo-1",
        prompt: `bench ${i}`,
        nonce: newNonce(),
        timestamp: Date.now() + 30_000,
      });
      return { text, headers: signRequestHeaders(kp, "POST", `${ORIGIN}/api/v1/inference`, text) };
    });
    const latencies: number[] = [];
    const cpuBefore = groupCpuMs(pgid);
    const started = performance.now();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async (_, w) => {
        for (let i = w; i < jobs.length; i += CONCURRENCY) {
          const t = performance.now();
          const res = await fetch(`${url}/api/v1/inference`, {
            method: "POST",
            headers: jobs[i]!.headers,
            body: jobs[i]!.text,
          });
          const body = await res.text();
          if (res.status !== 200) throw new Error(`${url}: HTTP ${res.status} ${body.slice(0, 300)}`);
          latencies.push(performance.now() - t);
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    const cpuMs = groupCpuMs(pgid) - cpuBefore;
    return {
      perS: calls / seconds,
      cpuMsPerCall: cpuMs / calls,
      p50Ms: percentile(
        [...latencies].sort((a, b) => a - b),
        50,
      ),
    };
  }

  const targets = { next: nextServer, direct };
  for (const t of Object.values(targets)) await runOn(t.url, t.child.pid!, 300);
  const rounds: Record<keyof typeof targets, { perS: number; cpuMsPerCall: number; p50Ms: number }[]> = {
    next: [],
    direct: [],
  };
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, t] of Object.entries(targets) as [keyof typeof targets, (typeof targets)["next"]][])
      rounds[name].push(await runOn(t.url, t.child.pid!, CALLS));
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const summary = (name: keyof typeof targets) => ({
    calls_per_s: Math.round(median(rounds[name].map((r) => r.perS))),
    server_cpu_ms_per_call: Number(median(rounds[name].map((r) => r.cpuMsPerCall)).toFixed(3)),
    p50_ms: Number(median(rounds[name].map((r) => r.p50Ms)).toFixed(2)),
  });
  const results = {
    machine: `${os.cpus().length} × ${os.cpus()[0]?.model ?? "cpu"}, node ${process.version}`,
    measured_at: new Date().toISOString(),
    load_average_1m: os.loadavg()[0],
    concurrency: CONCURRENCY,
    calls_per_round: CALLS,
    rounds: ROUNDS,
    through_next: summary("next"),
    direct: summary("direct"),
  };
  const nextCpu = results.through_next.server_cpu_ms_per_call;
  const directCpu = results.direct.server_cpu_ms_per_call;
  console.log(
    `\n| prepaid call over HTTP to \`npm start\`, c=${CONCURRENCY} (median of ${ROUNDS} rounds of ${CALLS}) | calls/s | server CPU per call, ms | p50, ms |\n|---|---|---|---|`,
  );
  console.log(
    `| through Next's pipeline (SIGNET_API_DIRECT=false) | ${results.through_next.calls_per_s} | ${nextCpu} | ${results.through_next.p50_ms} |`,
  );
  console.log(
    `| straight to the built handler (the default) | ${results.direct.calls_per_s} | ${directCpu} | ${results.direct.p50_ms} |`,
  );
  console.log(
    `\nNext's pipeline: ${(nextCpu - directCpu).toFixed(3)} ms of server CPU per call (${((100 * (nextCpu - directCpu)) / nextCpu).toFixed(0)}% of what the call costs through it)`,
  );
  mkdirSync(path.join(REPO_ROOT, "bench"), { recursive: true });
  writeFileSync(path.join(REPO_ROOT, "bench/http-results.json"), `${JSON.stringify(results, null, 2)}\n`);
  console.log("bench:http: wrote bench/http-results.json");
} finally {
  for (const s of servers) {
    try {
      process.kill(-s.child.pid!, "SIGKILL");
    } catch {
      // already gone
    }
  }
  await devnet.close();
  await tdb.drop();
}
