import { describe, expect, it } from "vitest";
import {
  BASE_MAINNET_CAIP2,
  BASE_SEPOLIA_CAIP2,
  SHIPPED_NETWORKS,
  SOLANA_DEVNET_CAIP2,
  SOLANA_MAINNET_CAIP2,
} from "../verify";
import type { HealthReport } from "./check-health";
import {
  configDeploymentReport,
  describeDatabase,
  httpDeploymentReport,
  keyFact,
  rpcHost,
  type ConfigFacts,
  type HttpAnswers,
} from "./deployment-report";
import { formatDeploymentReport } from "./format-deployment-report";

const FEE_PAYER = "FeePayer1111111111111111111111111111111111";
const EVM = "0x1111111111111111111111111111111111111111";
const OPERATOR = "Operator111111111111111111111111111111111";

/** A ready health report over devnet and Base Sepolia, as the metrics token's holder reads it. */
function health(over: Partial<HealthReport> = {}): HealthReport {
  return {
    checkedAt: "2026-01-01T00:00:00.000Z",
    status: "ok",
    ready: true,
    reasons: [],
    publicReasons: [],
    warnings: [],
    shuttingDown: false,
    database: { ok: true, latencyMs: 2 },
    chains: [
      { network: SOLANA_DEVNET_CAIP2, label: "Solana devnet", ok: true, latencyMs: 3, slotLag: 1 },
      { network: BASE_SEPOLIA_CAIP2, label: "Base Sepolia", ok: true, latencyMs: 3, latestBlockAgeSeconds: 1 },
    ],
    feePayer: {
      ok: true,
      accounts: [
        {
          network: SOLANA_DEVNET_CAIP2,
          label: "Solana devnet",
          address: FEE_PAYER,
          balance: 10,
          unit: "SOL",
          warnBelow: 0.5,
          alertBelow: 0.1,
          level: "ok",
        },
        {
          network: BASE_SEPOLIA_CAIP2,
          label: "Base Sepolia",
          address: EVM,
          balance: 1,
          unit: "ETH",
          warnBelow: 0.005,
          alertBelow: 0.001,
          level: "ok",
        },
      ],
    },
    upstream: { kind: "built-in", name: "local", ok: true },
    ...over,
  };
}

/** A healthy production deployment on PostgreSQL, whose RPC URLs carry their providers' API keys. */
function facts(over: Partial<ConfigFacts> = {}): ConfigFacts {
  return {
    version: "0.1.0",
    config: {
      baseUrl: "https://signet.example",
      DATABASE_URL: "postgresql://signet:hunter2-secret@db.internal:6543/signet_prod?sslmode=require",
      dataDir: "/srv/signet",
      networks: SHIPPED_NETWORKS,
    },
    optIns: [],
    rpcUrls: {
      "solana-devnet": "https://devnet.helius-rpc.com/?api-key=rpc-secret-1",
      "base-sepolia": "https://user:rpc-secret-2@base-sepolia.g.alchemy.com/v2/rpc-secret-3",
    },
    keys: {
      operator: { ok: true, id: OPERATOR },
      verifier: { ok: true, id: "Verifier11111111111111111111111111111111111" },
      log: { ok: true, id: "signet.example/log+01020304+AQID" },
    },
    mainnetEnabled: false,
    deposits: { "solana-devnet": FEE_PAYER, "solana-mainnet": null, "base-sepolia": EVM, base: EVM },
    health: health(),
    ...over,
  };
}

describe("describeDatabase()", () => {
  it("names PostgreSQL's host and database, never the user's password", () => {
    const where = describeDatabase({
      DATABASE_URL: "postgresql://signet:hunter2@db.internal:5432/signet_prod?sslmode=require",
      dataDir: "/x",
    });
    expect(where).toBe("PostgreSQL db.internal:5432/signet_prod");
    expect(describeDatabase({ DATABASE_URL: "postgres://u:p@db.internal", dataDir: "/x" })).toBe(
      "PostgreSQL db.internal/(the user's default database)",
    );
    expect(describeDatabase({ DATABASE_URL: "postgresql:///signet?host=/var/run/postgresql", dataDir: "/x" })).toBe(
      "PostgreSQL /var/run/postgresql/signet",
    );
  });

  it("names the embedded database's folder when DATABASE_URL is unset", () => {
    expect(describeDatabase({ DATABASE_URL: undefined, dataDir: "/srv/signet" })).toBe(
      "embedded PGlite at /srv/signet/pglite",
    );
  });

  it("rejects malformed input: a DATABASE_URL that is not a URL is named as such, and not echoed", () => {
    expect(describeDatabase({ DATABASE_URL: "host=db password=hunter2", dataDir: "/x" })).toBe(
      "PostgreSQL (DATABASE_URL is not a URL)",
    );
  });
});

describe("rpcHost()", () => {
  it("keeps the host and port only: an API key in the path, the query or the credentials stays out", () => {
    expect(rpcHost("https://mainnet.helius-rpc.com/?api-key=secret")).toBe("mainnet.helius-rpc.com");
    expect(rpcHost("https://solana-mainnet.g.alchemy.com/v2/secret")).toBe("solana-mainnet.g.alchemy.com");
    expect(rpcHost("http://user:secret@127.0.0.1:8899")).toBe("127.0.0.1:8899");
  });

  it("rejects malformed input: not a URL is null", () => {
    expect(rpcHost("not a url")).toBeNull();
    expect(rpcHost("")).toBeNull();
  });
});

describe("keyFact()", () => {
  it("is the key's id, or the first line of why it cannot be loaded", () => {
    expect(keyFact(() => OPERATOR)).toEqual({ ok: true, id: OPERATOR });
    expect(
      keyFact(() => {
        throw new Error("LOG_SECRET_KEY is required in production\nmore");
      }),
    ).toEqual({ ok: false, reason: "LOG_SECRET_KEY is required in production" });
  });

  it("rejects malformed input: a loader that throws a non-error is its text", () => {
    expect(
      keyFact(() => {
        throw "broken";
      }),
    ).toEqual({ ok: false, reason: "broken" });
  });
});

describe("configDeploymentReport()", () => {
  it("reports a healthy deployment with nothing that would stop payments", () => {
    const report = configDeploymentReport(facts());
    expect(report.stops).toEqual([]);
    expect(report.degraded).toEqual([]);
    expect(report.database).toEqual({ where: "PostgreSQL db.internal:6543/signet_prod", up: true });
    expect(report.networks.map((n) => [n.label, n.rpcHost, n.up, n.takesPayments, n.depositAddress])).toEqual([
      ["Solana devnet", "devnet.helius-rpc.com", true, true, FEE_PAYER],
      ["Solana mainnet", null, null, false, null],
      ["Base", null, null, false, null],
      ["Base Sepolia", "base-sepolia.g.alchemy.com", true, true, EVM],
      ["Polygon", null, null, false, null],
      ["Polygon Amoy", null, null, false, null],
      ["Avalanche", null, null, false, null],
      ["Avalanche Fuji", null, null, false, null],
    ]);
    expect(report.mainnet).toEqual({ enabled: false });
  });

  it("carries no password and no RPC path, query or credentials, printed or logged", () => {
    const report = configDeploymentReport(facts());
    const printed = formatDeploymentReport(report).join("\n");
    for (const text of [printed, JSON.stringify(report)]) {
      expect(text).not.toMatch(/hunter2|rpc-secret|api-key|sslmode|signet:|user:/);
      expect(text).toContain("db.internal:6543/signet_prod");
      expect(text).toContain("devnet.helius-rpc.com");
    }
  });

  it("stops payments for each reason readiness gives, and degrades for each warning and production opt-in", () => {
    const down = health({
      status: "unavailable",
      ready: false,
      reasons: ["database unreachable", "fee payer below the alert level on solana:x: 0.05 SOL < 0.1"],
      warnings: ["upstream openrouter timeout"],
      database: { ok: false, latencyMs: 2000, error: "unreachable" },
    });
    const report = configDeploymentReport(
      facts({ health: down, optIns: ["production runs on the embedded PGlite database under /srv/signet"] }),
    );
    expect(report.stops).toEqual([
      "database unreachable",
      "fee payer below the alert level on solana:x: 0.05 SOL < 0.1",
    ]);
    expect(report.degraded).toEqual([
      "production runs on the embedded PGlite database under /srv/signet",
      "upstream openrouter timeout",
    ]);
    expect(report.database).toEqual({
      where: "PostgreSQL db.internal:6543/signet_prod",
      up: false,
      error: "unreachable",
    });
  });

  it("stops payments without any chain RPC", () => {
    const report = configDeploymentReport(
      facts({ rpcUrls: {}, health: health({ chains: [], feePayer: { ok: true, accounts: [] } }) }),
    );
    expect(report.stops).toEqual([
      "no chain RPC is configured (RPC_URL_SOLANA_DEVNET, RPC_URL_SOLANA_MAINNET, RPC_URL_BASE, RPC_URL_BASE_SEPOLIA, RPC_URL_POLYGON, RPC_URL_POLYGON_AMOY, RPC_URL_AVALANCHE, RPC_URL_AVALANCHE_FUJI)",
    ]);
  });

  it("stops payments when the mainnet switch is on without a mainnet RPC, or without the mainnet deposit address", () => {
    expect(configDeploymentReport(facts({ mainnetEnabled: true })).stops).toEqual([
      "the mainnet switch is on, but no mainnet RPC is configured (RPC_URL_SOLANA_MAINNET or RPC_URL_BASE or RPC_URL_POLYGON or RPC_URL_AVALANCHE)",
    ]);
    const mainnet = facts({
      mainnetEnabled: true,
      rpcUrls: { ...facts().rpcUrls, "solana-mainnet": "https://mainnet.helius-rpc.com/?api-key=x" },
    });
    expect(configDeploymentReport(mainnet).stops).toEqual([
      "the mainnet switch is on, but Solana mainnet has no deposit address (SERVICE_MAINNET_DEPOSIT_ADDRESS)",
    ]);
    const ready = configDeploymentReport({
      ...mainnet,
      deposits: { ...mainnet.deposits, "solana-mainnet": "Deposit11111111111111111111111111111111111" },
    });
    expect(ready.stops).toEqual([]);
    expect(ready.networks.find((n) => n.label === "Solana mainnet")).toMatchObject({
      takesPayments: true,
      rpcHost: "mainnet.helius-rpc.com",
    });
  });

  it("stops payments for a key the service cannot load", () => {
    const report = configDeploymentReport(
      facts({ keys: { ...facts().keys, log: { ok: false, reason: "LOG_SECRET_KEY is required in production" } } }),
    );
    expect(report.stops).toEqual(["the log key is unavailable: LOG_SECRET_KEY is required in production"]);
  });

  it("rejects malformed input: facts without a health report", () => {
    expect(() => configDeploymentReport({ ...facts(), health: undefined as unknown as HealthReport })).toThrow(
      TypeError,
    );
    expect(() => configDeploymentReport(null as unknown as ConfigFacts)).toThrow(TypeError);
  });
});

/** A healthy deployment's answers, with the metrics token: devnet and Base Sepolia offered, mainnet off. */
function answers(over: Partial<HttpAnswers> = {}): HttpAnswers {
  const networks = [
    { network: SOLANA_DEVNET_CAIP2, name: "Solana devnet", rpc: null, enabled: true },
    { network: SOLANA_MAINNET_CAIP2, name: "Solana mainnet", rpc: null, enabled: false },
    { network: BASE_MAINNET_CAIP2, name: "Base", rpc: null, enabled: false },
    { network: BASE_SEPOLIA_CAIP2, name: "Base Sepolia", rpc: "http://127.0.0.1:8545/", enabled: true },
  ];
  const accepts = [
    { network: SOLANA_DEVNET_CAIP2, payTo: FEE_PAYER },
    { network: BASE_SEPOLIA_CAIP2, payTo: EVM },
  ];
  return {
    health: { status: 200, body: health() },
    discovery: { status: 200, body: { networks, paid_resources: [{ accepts }, { accepts }] } },
    operatorKey: { status: 200, body: { pubkey: OPERATOR, algorithm: "ed25519", encoding: "base58" } },
    verifierKey: { status: 200, body: { pubkey: "Verifier11111111111111111111111111111111111" } },
    logKey: { status: 200, body: { verifier_key: "signet.example/log+01020304+AQID" } },
    ...over,
  };
}

/** The report of `answers` for this release's networks. */
const httpReport = (baseUrl: string, given: HttpAnswers) => httpDeploymentReport(baseUrl, given, SHIPPED_NETWORKS);

describe("httpDeploymentReport()", () => {
  it("reads a healthy deployment from its health detail, offers and keys", () => {
    const report = httpReport("https://signet.example", answers());
    expect(report).toMatchObject({
      source: "http",
      version: null,
      status: "ok",
      stops: [],
      degraded: [],
      mainnet: { enabled: null },
      database: { where: null, up: true },
    });
    expect(report.networks.map((n) => [n.label, n.rpc, n.rpcHost, n.up, n.takesPayments, n.depositAddress])).toEqual([
      ["Solana devnet", true, null, true, true, FEE_PAYER],
      ["Solana mainnet", false, null, null, false, null],
      ["Base", false, null, null, false, null],
      ["Base Sepolia", true, "127.0.0.1:8545", true, true, EVM],
      // Networks the offers do not list (this fixture's are the first four's): whether they take payments is unknown.
      ["Polygon", false, null, null, null, null],
      ["Polygon Amoy", false, null, null, null, null],
      ["Avalanche", false, null, null, null, null],
      ["Avalanche Fuji", false, null, null, null, null],
    ]);
    expect(report.feePayers).toHaveLength(2);
    expect(report.keys.operator).toEqual({ ok: true, id: OPERATOR });
  });

  it("without the metrics token, judges by the public verdict and leaves the detail unknown", () => {
    const open = httpReport(
      "https://signet.example",
      answers({
        health: {
          status: 503,
          body: { status: "unavailable", reasons: ["fee payer below the alert level on solana:x"] },
        },
      }),
    );
    expect(open.stops).toEqual(["fee payer below the alert level on solana:x"]);
    expect(open.feePayers).toBeNull();
    expect(open.database).toEqual({ where: null, up: null });
    expect(open.networks.find((n) => n.label === "Solana mainnet")).toMatchObject({ rpc: null, takesPayments: false });
    const degraded = httpReport(
      "https://signet.example",
      answers({ health: { status: 200, body: { status: "degraded", reasons: [] } } }),
    );
    expect(degraded.stops).toEqual([]);
    expect(degraded.degraded).toEqual(["a part is down or low (its detail needs the metrics token)"]);
  });

  it("stops payments when a mainnet is on without payment offers, and reads the switch from what is offered", () => {
    const body = answers().discovery as {
      status: number;
      body: { networks: { network: string; enabled: boolean }[]; paid_resources: unknown[] };
    };
    const networks = body.body.networks.map((n) => (n.network === SOLANA_MAINNET_CAIP2 ? { ...n, enabled: true } : n));
    const report = httpReport(
      "https://signet.example",
      answers({ discovery: { status: 200, body: { ...body.body, networks } } }),
    );
    expect(report.mainnet.enabled).toBe(true);
    expect(report.stops).toEqual([
      "the mainnet switch is on, but Solana mainnet takes no payments: the service offers none for it (its deposit address, SERVICE_MAINNET_DEPOSIT_ADDRESS, or its RPC)",
    ]);
  });

  it("stops payments for a key the service will not serve, and for a health or offers it cannot read", () => {
    const report = httpReport(
      "https://signet.example",
      answers({
        operatorKey: {
          status: 500,
          body: { error: { code: "server_misconfigured", message: "the service has no usable operator key" } },
        },
        health: { status: 404, body: null },
        discovery: { error: "timed out after 20 s" },
      }),
    );
    expect(report.stops).toEqual([
      "health unreadable: GET /api/health answered 404",
      "payment offers unreadable: timed out after 20 s",
      "the operator key is unavailable: GET /api/v1/operator-key answered 500 server_misconfigured",
    ]);
    expect(report.status).toBeNull();
  });

  it("rejects malformed input: a base URL that is not a URL, and bodies that are not the service's", () => {
    expect(() => httpReport("signet.example", answers())).toThrow(TypeError);
    const report = httpReport(
      "https://signet.example",
      answers({ health: { status: 200, body: { status: "fine" } }, logKey: { status: 200, body: { key: 1 } } }),
    );
    expect(report.stops).toEqual([
      "health unreadable: GET /api/health answered 200 with a body that is not the service's",
      "the log key is unavailable: GET /log/key answered 200",
    ]);
  });
});

describe("formatDeploymentReport()", () => {
  it("prints one block: the verdict first, then one fact per line", () => {
    const lines = formatDeploymentReport(configDeploymentReport(facts()));
    expect(lines).toEqual([
      "Signet 0.1.0 at https://signet.example: ok",
      "  database        PostgreSQL db.internal:6543/signet_prod: up",
      `  Solana devnet   rpc devnet.helius-rpc.com, up; takes payments to ${FEE_PAYER}`,
      "  Solana mainnet  no RPC configured",
      "  Base            no RPC configured",
      `  Base Sepolia    rpc base-sepolia.g.alchemy.com, up; takes payments to ${EVM}`,
      "  Polygon         no RPC configured",
      "  Polygon Amoy    no RPC configured",
      "  Avalanche       no RPC configured",
      "  Avalanche Fuji  no RPC configured",
      `  operator key    ${OPERATOR}`,
      "  verifier key    Verifier11111111111111111111111111111111111",
      "  log key         signet.example/log+01020304+AQID",
      `  fee payer       ${FEE_PAYER} on Solana devnet: 10 SOL (alert below 0.1, warn below 0.5): ok`,
      `  fee payer       ${EVM} on Base Sepolia: 1 ETH (alert below 0.001, warn below 0.005): ok`,
      "  mainnet switch  off",
      "  degraded        nothing",
      "  stops payments  nothing",
    ]);
  });

  it("names what would stop payments in its verdict and on a line each", () => {
    const lines = formatDeploymentReport(configDeploymentReport(facts({ mainnetEnabled: true })));
    expect(lines[0]).toBe("Signet 0.1.0 at https://signet.example: payments would stop");
    expect(lines.at(-1)).toBe(
      "  stops payments  the mainnet switch is on, but no mainnet RPC is configured (RPC_URL_SOLANA_MAINNET or RPC_URL_BASE or RPC_URL_POLYGON or RPC_URL_AVALANCHE)",
    );
  });

  it("rejects malformed input: anything but a report", () => {
    expect(() => formatDeploymentReport(null as never)).toThrow(TypeError);
    expect(() => formatDeploymentReport({} as never)).toThrow(TypeError);
  });
});
