// `signet doctor` as operators run it (`node bin/cli/signet.mjs doctor …`, a child process): over real HTTP against the
// paid stack's own route handlers (the health, the x402 offers, the keys), and with --local against the deployment the
// stack's environment configures. Exit 0 when payments would flow, 1 for each thing that would stop them (no chain
// reachable, the fee payer under its alert level, the database down, mainnet on without its deposit address or RPC, a
// missing key), 2 for a usage error or a service that does not answer. Also `npm start`'s start-up report, which
// prints the same block and logs it as one JSON line.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { Writable } from "node:stream";
import bs58 from "bs58";
import pino from "pino";
import { address } from "@solana/kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET as healthRoute } from "@/app/api/health/route";
import { GET as discoveryRoute } from "@/app/.well-known/x402/route";
import { GET as operatorKeyRoute } from "@/app/api/v1/operator-key/route";
import { GET as verifierKeyRoute } from "@/app/api/verify/operator-key/route";
import { GET as logKeyRoute } from "@/app/log/key/route";
import { createFacilitator } from "../../facilitator/create-facilitator";
import { generateKeypair } from "../../keys/parse-secret-key";
import { closeRouteRuntime, resetHealthCacheForTests } from "../../runtime/route-edge";
import { printDeploymentReport } from "../../runtime/read-deployment-report";
import { closedPort } from "../verify/local-servers";
import { tempDataDir, testConfig, withEnv } from "../support/env";
import { startPaidStack, type PaidStack } from "../support/paid-stack";
import { answerWithRoute, type FetchRoute } from "../support/route-adapter";
import { runSignet, type CliRun } from "../support/signet-cli";

const TOKEN = "doctor-metrics-token-0123456789";
const ROUTES: Record<string, FetchRoute> = {
  "/api/health": (r) => healthRoute(r, {}),
  "/.well-known/x402": (r) => discoveryRoute(r, {}),
  "/api/v1/operator-key": (r) => operatorKeyRoute(r, {}),
  "/api/verify/operator-key": (r) => verifierKeyRoute(r, {}),
  "/log/key": (r) => logKeyRoute(r, {}),
};

let stack: PaidStack;
let server: http.Server;
let url: string;
let feePayer: string;

beforeAll(async () => {
  stack = await startPaidStack({ mainnet: true });
  feePayer = (await stack.runtime()).chains.facilitator.address;
  server = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      const route = ROUTES[(req.url ?? "/").split("?")[0]!];
      if (!route) return void res.writeHead(404).end();
      // Each doctor run reads the health afresh, as a new process's first read would.
      resetHealthCacheForTests();
      void answerWithRoute(route, req, "", res);
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r));
  await stack?.close();
});

const doctor = (args: string[], env: Record<string, string | undefined> = {}): Promise<CliRun> =>
  runSignet(["doctor", ...args], stack.config.dataDir, 60_000, env);

/** The lines the report names under `label` ("stops payments", "degraded", "fee payer", …). */
const rows = (r: CliRun, label: string) =>
  r.stdout
    .split("\n")
    .filter((l) => l.startsWith(`  ${label.padEnd(16)}`))
    .map((l) => l.slice(18));

/** Sets the fee payer's SOL on the devnet chain directly (the local chain's LiteSVM). */
function setLamports(owner: string, lamports: bigint): void {
  const svm = stack.devnet.chain["svm"];
  svm.setAccount({
    address: address(owner),
    programAddress: address("11111111111111111111111111111111"),
    lamports,
    data: new Uint8Array(),
    executable: false,
    space: 0n,
  } as never);
}

describe("signet doctor --endpoint", () => {
  it("exits 0 for a deployment that takes payments, printing the report", async () => {
    const r = await doctor(["--endpoint", url]);
    expect(r.code, r.stderr + r.stdout).toBe(0);
    expect(r.stdout.split("\n")[0]).toBe(`Signet (version not published) at ${url}: ok`);
    // Outside production the service publishes its RPCs (EXPLORER_ADVERTISE_RPC): their hosts are all the report names.
    expect(rows(r, "Solana devnet")).toEqual([
      `rpc ${new URL(stack.devnet.url).host}, up; takes payments to ${feePayer}`,
    ]);
    expect(rows(r, "Solana mainnet")).toEqual([
      `rpc ${new URL(stack.mainnet!.url).host}, up; takes no payments: the mainnet switch is off`,
    ]);
    expect(rows(r, "Base")).toEqual(["no RPC configured"]);
    expect(rows(r, "operator key")[0]).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/);
    expect(rows(r, "fee payer")).toEqual([
      `${feePayer} on Solana devnet: 10 SOL (alert below 0.1, warn below 0.5): ok`,
      `${feePayer} on Solana mainnet: 10 SOL (alert below 0.1, warn below 0.5): ok`,
    ]);
    expect(rows(r, "mainnet switch")).toEqual(["off"]);
    expect(rows(r, "stops payments")).toEqual(["nothing"]);
  });

  it("reads the fee payers only with the metrics token when the deployment has one", async () => {
    await withEnv({ METRICS_TOKEN: TOKEN }, async () => {
      const open = await doctor(["--endpoint", url]);
      expect(open.code, open.stdout).toBe(0);
      expect(rows(open, "fee payer")).toEqual(["(balances need the metrics token)"]);
      const detailed = await doctor(["--endpoint", url, "--metrics-token", TOKEN, "--json"]);
      expect(detailed.code, detailed.stdout).toBe(0);
      const report = JSON.parse(detailed.stdout) as {
        feePayers: { address: string; level: string }[];
        stops: string[];
      };
      expect(report.feePayers.map((f) => [f.address, f.level])).toEqual([
        [feePayer, "ok"],
        [feePayer, "ok"],
      ]);
      expect(report.stops).toEqual([]);
    });
  });

  it("exits 1 when the fee payer is under its alert level", async () => {
    setLamports(feePayer, 50_000_000n);
    try {
      const r = await doctor(["--endpoint", url]);
      expect(r.code, r.stdout).toBe(1);
      expect(r.stdout.split("\n")[0]).toMatch(/: payments would stop$/);
      expect(rows(r, "stops payments")).toEqual([
        `fee payer below the alert level on ${stack.devnet.caip2}: 0.05 SOL < 0.1`,
      ]);
    } finally {
      setLamports(feePayer, 10_000_000_000n);
    }
  });

  it("exits 1 when the database is down", async () => {
    await closeRouteRuntime();
    try {
      await withEnv({ DATABASE_URL: `postgresql://postgres@127.0.0.1:${await closedPort()}/none` }, async () => {
        const r = await doctor(["--endpoint", url]);
        expect(r.code, r.stdout).toBe(1);
        expect(rows(r, "database")).toEqual(["(not published over HTTP): down (unreachable)"]);
        expect(rows(r, "stops payments")).toContain("database unreachable");
      });
    } finally {
      await closeRouteRuntime();
    }
  });

  it("exits 1 when no chain RPC answers", async () => {
    const dead = `http://127.0.0.1:${await closedPort()}`;
    await withEnv({ RPC_URL_SOLANA_DEVNET: dead, RPC_URL_SOLANA_MAINNET: dead }, async () => {
      const r = await doctor(["--endpoint", url]);
      expect(r.code, r.stdout).toBe(1);
      expect(rows(r, "stops payments")).toContain(
        `every chain RPC is down: ${stack.devnet.caip2}, ${stack.mainnet!.caip2}`,
      );
    });
  });

  it("exits 1 when the mainnet switch is on and mainnet has no deposit address", async () => {
    await withEnv({ SERVICE_MAINNET_ENABLED: "true", SERVICE_MAINNET_DEPOSIT_ADDRESS: undefined }, async () => {
      const r = await doctor(["--endpoint", url]);
      expect(r.code, r.stdout).toBe(1);
      expect(rows(r, "mainnet switch")).toEqual(["on"]);
      expect(rows(r, "stops payments")).toEqual([
        "the mainnet switch is on, but Solana mainnet takes no payments: the service offers none for it (its deposit address, SERVICE_MAINNET_DEPOSIT_ADDRESS, or its RPC)",
      ]);
    });
    // With its deposit address, mainnet takes payments.
    const deposit = generateKeypair().publicKeyBase58;
    await withEnv({ SERVICE_MAINNET_ENABLED: "true", SERVICE_MAINNET_DEPOSIT_ADDRESS: deposit }, async () => {
      const r = await doctor(["--endpoint", url]);
      expect(r.code, r.stdout).toBe(0);
      expect(rows(r, "Solana mainnet")).toEqual([
        `rpc ${new URL(stack.mainnet!.url).host}, up; takes payments to ${deposit}`,
      ]);
    });
  });

  it("exits 1 when the deployment has no usable keys", async () => {
    // Production without the operator, verifier and log keys; a fee payer of its own, funded.
    const seed = generateKeypair();
    const env = {
      NODE_ENV: "production",
      LOG_LEVEL: "silent",
      METRICS_TOKEN: TOKEN,
      FACILITATOR_SECRET_KEY: bs58.encode(seed.seed),
      SERVICE_OPERATOR_SECRET_KEY: undefined,
    };
    await withEnv(env, async () => {
      const payer = (await createFacilitator(testConfig())).address;
      for (const chain of [stack.devnet, stack.mainnet!]) await chain.fundAccount(payer, { lamports: 10_000_000_000n });
      const r = await doctor(["--endpoint", url, "--metrics-token", TOKEN]);
      expect(r.code, r.stdout).toBe(1);
      expect(rows(r, "operator key")).toEqual([
        "unavailable: GET /api/v1/operator-key answered 500 server_misconfigured",
      ]);
      expect(rows(r, "stops payments")).toContain(
        "the operator key is unavailable: GET /api/v1/operator-key answered 500 server_misconfigured",
      );
    });
  });

  it("exits 2 with one line when the service does not answer", async () => {
    const down = `http://127.0.0.1:${await closedPort()}`;
    const r = await doctor(["--endpoint", down]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr.trim()).toBe(
      `signet: the service at ${down} did not answer (connection refused): is \`npm run dev\` running?`,
    );
  });
});

describe("signet doctor --local", () => {
  it("exits 0 for the configured deployment, naming its database without the password and each RPC by its host only", async () => {
    const db = new URL(stack.tdb.url);
    db.password = "doctor-db-password";
    const rpc = new URL(stack.devnet.url);
    rpc.pathname = "/v2/doctor-rpc-key";
    rpc.search = "?api-key=doctor-rpc-key";
    const r = await doctor(["--local"], { DATABASE_URL: db.toString(), RPC_URL_SOLANA_DEVNET: rpc.toString() });
    expect(r.code, r.stderr + r.stdout).toBe(0);
    expect(r.stdout.split("\n")[0]).toMatch(/^Signet \d+\.\d+\.\d+ at http:\/\/signet\.test: ok$/);
    expect(rows(r, "database")).toEqual([`PostgreSQL ${db.host}${db.pathname}: up`]);
    expect(rows(r, "Solana devnet")).toEqual([`rpc ${rpc.host}, up; takes payments to ${feePayer}`]);
    expect(r.stdout).not.toContain("doctor-db-password");
    expect(r.stdout).not.toContain("doctor-rpc-key");
  });

  it("exits 1 when the mainnet switch is on without a mainnet RPC", async () => {
    const r = await doctor(["--local"], { SERVICE_MAINNET_ENABLED: "true", RPC_URL_SOLANA_MAINNET: undefined });
    expect(r.code, r.stdout).toBe(1);
    expect(rows(r, "stops payments")).toEqual([
      "the mainnet switch is on, but no mainnet RPC is configured (RPC_URL_SOLANA_MAINNET or RPC_URL_BASE or RPC_URL_POLYGON or RPC_URL_AVALANCHE)",
    ]);
  });

  it("exits 1 when the database is down", async () => {
    const r = await doctor(["--local"], { DATABASE_URL: `postgresql://postgres@127.0.0.1:${await closedPort()}/none` });
    expect(r.code, r.stdout).toBe(1);
    expect(rows(r, "stops payments")).toEqual(["database unreachable"]);
  });

  it("exits 1 with the one line start-up would refuse with when a key is missing", async () => {
    // A data dir of its own: the stack's holds its dev keys, which production refuses first.
    const env = {
      NODE_ENV: "production",
      SIGNET_DATA_DIR: tempDataDir("signet-doctor-"),
      TRUSTED_PROXY_HOPS: "0",
      METRICS_TOKEN: TOKEN,
      SERVICE_OPERATOR_PUBKEYS: generateKeypair().publicKeyBase58,
    };
    const r = await doctor(["--local"], env);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toBe("start-up would refuse: SERVICE_OPERATOR_SECRET_KEY is required in production\n");
  });
});

describe("signet doctor's usage", () => {
  it.each([
    [["--endpoint", "http://127.0.0.1:1", "--local"], "signet: --endpoint and --local exclude each other"],
    [
      ["--local", "--metrics-token", TOKEN],
      "signet: --metrics-token goes with --endpoint: --local holds the configured METRICS_TOKEN itself",
    ],
    [["--endpiont", "http://x"], "signet: unknown option --endpiont for signet doctor; did you mean --endpoint?"],
    [["--endpoint", "ftp://x"], "signet: --endpoint must be an http(s) URL, got ftp://x"],
    [["extra"], "signet: unexpected argument extra for signet doctor"],
  ])("rejects malformed input %j with one line, exit 2", async (args, line) => {
    const r = await doctor(args);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr.split("\n")[0]).toBe(line);
  });
});

describe("npm start's start-up report", () => {
  it("prints the report as one block and logs it as one JSON line", async () => {
    const lines: string[] = [];
    const logged: string[] = [];
    const logger = pino(
      { level: "info" },
      new Writable({ write: (chunk: Buffer, _enc, done) => (logged.push(chunk.toString()), done()) }),
    );
    const cfg = testConfig();
    await printDeploymentReport(
      cfg,
      { facilitator: (await stack.runtime()).chains.facilitator },
      (line) => lines.push(line),
      logger,
    );
    expect(lines[0]).toMatch(/^Signet \d+\.\d+\.\d+ at http:\/\/signet\.test: ok$/);
    expect(lines.at(-1)).toBe("  stops payments  nothing");
    expect(logged).toHaveLength(1);
    const line = JSON.parse(logged[0]!) as Record<string, unknown>;
    expect(line).toMatchObject({
      event: "service.report",
      source: "config",
      baseUrl: "http://signet.test",
      stops: [],
      database: { where: expect.stringMatching(/^PostgreSQL 127\.0\.0\.1:5432\//), up: true },
    });
  });

  it("rejects malformed input: a report it cannot read is one line and a warning, never a failed start", async () => {
    const lines: string[] = [];
    const logged: string[] = [];
    const logger = pino(
      { level: "info" },
      new Writable({ write: (chunk: Buffer, _enc, done) => (logged.push(chunk.toString()), done()) }),
    );
    await printDeploymentReport(testConfig(), { facilitator: null as never }, (line) => lines.push(line), logger);
    expect(lines).toEqual([expect.stringMatching(/^signet: no start-up report: /)]);
    expect(JSON.parse(logged[0]!)).toMatchObject({ level: 40, event: "service.report_unavailable" });
  });
});
