// This process's deployment report (server/health/deployment-report.ts) from its config and the parts start-up built:
// it opens the database the config names only while it reads the settings and one round of health probes, so
// `npm start` and `npm run dev` read it before their server opens the database, and `signet doctor --local` in place
// of a server.
import "server-only";
import type pino from "pino";
import packageJson from "../../package.json" with { type: "json" };
import { DatabaseInUseError, openDatabase, type DbClient, type OpenDb } from "../db";
import { productionOptIns, type Config } from "../env";
import { createLogger } from "../log";
import type { Facilitator } from "../facilitator/create-facilitator";
import { readHealthFor, type HealthReport } from "../health/check-health";
import { configDeploymentReport, keyFact, type DeploymentReport } from "../health/deployment-report";
import { formatDeploymentReport } from "../health/format-deployment-report";
import { createShutdownFlag } from "../health/shutdown-state";
import { createServiceKeys, type ServiceKeys } from "../keys/service-keys";
import { readSettings } from "../settings/read-settings";
import type { Settings } from "../settings/setting-definitions";
import { familyFacts } from "../verify/chain-family-facts";
import { depositFactsOf } from "../x402/deposit-address";

/** The service's version, as package.json states it. */
const SERVICE_VERSION: string = packageJson.version;

/**
 * How long the report waits for the database to open: a PostgreSQL host that drops packets would otherwise hold
 * start-up for the system's TCP timeout, minutes; the server's own readiness reports it from then on.
 */
const DATABASE_OPEN_TIMEOUT_MS = 10_000;

/**
 * The database `cfg` names, opened (and so migrated) within DATABASE_OPEN_TIMEOUT_MS, or why not. One in use by another
 * process throws. Also how `npm start` opens it for its checks (check-database-at-start.ts).
 */
export async function openForReport(cfg: Config): Promise<{ ok: true; open: OpenDb } | { ok: false; error: Error }> {
  const opening = openDatabase(cfg, createLogger(cfg.logLevel));
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), DATABASE_OPEN_TIMEOUT_MS);
    timer.unref();
  });
  try {
    const result = await Promise.race([opening, timeout]);
    if (result !== "timeout") return { ok: true, open: result };
    // Opened after all: closed at once, nobody reads it.
    void opening.then((late) => late.close()).catch(() => undefined);
    return { ok: false, error: new Error("the database did not open in time") };
  } catch (err) {
    if (err instanceof DatabaseInUseError) throw err;
    return { ok: false, error: err instanceof Error ? err : new Error(String(err)) };
  } finally {
    clearTimeout(timer);
  }
}

/** One round of health probes, as the metrics token's holder reads it (this process holds the config's token). */
async function readOwnHealth(
  cfg: Config,
  db: DbClient | null,
  dbError: Error | null,
  facilitator: Facilitator,
): Promise<HealthReport> {
  const { body } = await readHealthFor(cfg.METRICS_TOKEN ? `Bearer ${cfg.METRICS_TOKEN}` : null, {
    config: cfg,
    deps: () => ({
      db: () => (db ? Promise.resolve(db) : Promise.reject(dbError ?? new Error("no database"))),
      facilitator: async () => facilitator,
      upstream: {
        baseUrl: cfg.UPSTREAM_BASE_URL,
        apiKey: cfg.UPSTREAM_API_KEY,
        providerName: cfg.UPSTREAM_PROVIDER_NAME,
      },
      timeoutMs: cfg.HEALTH_PROBE_TIMEOUT_MS,
      clock: facilitator.clock,
    }),
    cache: { entry: null },
    shutdown: createShutdownFlag(),
    clock: facilitator.clock,
  });
  if (!("ready" in body)) throw new Error("the health report withheld its detail from this process's own token");
  return body;
}

/** Each network's deposit address: from the settings, or, without them, only what needs none (the EVM key's). */
function depositsOf(facilitator: Facilitator, settings: Settings | null): Partial<Record<string, string | null>> {
  const deposits: Partial<Record<string, string | null>> = {};
  const facts = depositFactsOf(facilitator, settings);
  for (const row of facilitator.networks.rows) {
    const deposit = familyFacts(row).configuredDeposit(row, facts);
    if (deposit !== undefined) deposits[row.id] = deposit;
  }
  return deposits;
}

/**
 * The report of the deployment `cfg` describes, with the facilitator start-up built (and its keys, when built). Throws
 * DatabaseInUseError when another process holds the embedded database; any other database failure is in the report.
 */
export async function readDeploymentReport(
  cfg: Config,
  parts: { facilitator: Facilitator; keys?: ServiceKeys },
): Promise<DeploymentReport> {
  const keys = parts.keys ?? createServiceKeys(cfg);
  const opened = await openForReport(cfg);
  const db = opened.ok ? opened.open.prisma : null;
  try {
    const [settings, health] = await Promise.all([
      db ? readSettings(db, cfg, createLogger(cfg.logLevel)).catch(() => null) : Promise.resolve(null),
      readOwnHealth(cfg, db, opened.ok ? null : opened.error, parts.facilitator),
    ]);
    const { facilitator } = parts;
    return configDeploymentReport({
      version: SERVICE_VERSION,
      config: cfg,
      optIns: productionOptIns(cfg),
      rpcUrls: { ...facilitator.rpcUrls, ...(facilitator.evm?.rpcUrls ?? {}) },
      keys: {
        operator: keyFact(() => keys.operator().publicKeyBase58),
        verifier: keyFact(() => keys.verifier().publicKeyBase58),
        log: keyFact(() => keys.log().verifierKey),
      },
      mainnetEnabled: settings ? settings.mainnetEnabled : null,
      deposits: depositsOf(facilitator, settings),
      health,
    });
  } finally {
    if (opened.ok) await opened.open.close();
  }
}

/**
 * The start-up report of `npm start` and `npm run dev`: one readable block through `print`, and one JSON log line
 * (`service.report`). A report that cannot be read is a warning, never a reason not to serve.
 */
export async function printDeploymentReport(
  cfg: Config,
  parts: { facilitator: Facilitator; keys?: ServiceKeys },
  print: (line: string) => void,
  logger: pino.Logger = createLogger(cfg.logLevel),
): Promise<void> {
  try {
    const report = await readDeploymentReport(cfg, parts);
    for (const line of formatDeploymentReport(report)) print(line);
    logger.info({ event: "service.report", ...report }, "service.report");
  } catch (err) {
    const reason = (err instanceof Error ? err.message : String(err)).split("\n")[0]!;
    print(`signet: no start-up report: ${reason}`);
    logger.warn({ event: "service.report_unavailable", reason }, "service.report_unavailable");
  }
}
