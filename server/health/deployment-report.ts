// A deployment at a glance and whether anything in it would stop payments: the start-up report of `npm start` and
// `npm run dev`, and `signet doctor`'s. Built from this process's own config and parts, or from a deployment's
// answers over HTTP; the facts and the judgement are here, the words in format-deployment-report.ts.
import "server-only";
import path from "node:path";
import { z } from "zod";
import { feePayerHealthSchema, type FeePayerHealth } from "../dashboard/fee-payer-health";
import { rpcUrlVariable, type Config } from "../env";
import type { NetworkId, NetworkRegistry } from "../verify";
import type { HealthReport, PublicHealth } from "./check-health";

/** A public key the deployment signs with, or why it has none. */
export type KeyFact = { ok: true; id: string } | { ok: false; reason: string };

export interface NetworkFact {
  network: string;
  label: string;
  isMainnet: boolean;
  /** Whether an RPC is configured for it; null when the deployment does not say (over HTTP). */
  rpc: boolean | null;
  /** SECURITY: the RPC's host (and port) only, never its path, query or credentials: an RPC URL may carry an API key. */
  rpcHost: string | null;
  /** Whether its RPC answered the health probe, and if not why; null when not probed. */
  up: boolean | null;
  upError?: string;
  /** Whether it takes payments now (an RPC, and on a mainnet the switch on); null when unknown. */
  takesPayments: boolean | null;
  /** Where its payments go; null when none is configured, or unknown. */
  depositAddress: string | null;
}

export interface DeploymentReport {
  /** `config`: this process's config and parts (start-up, `signet doctor --local`); `http`: a deployment's answers. */
  source: "config" | "http";
  /** package.json's version; null over HTTP (the service does not publish it). */
  version: string | null;
  baseUrl: string;
  /** SECURITY: `where` names the host and the database, never the URL (it carries the password). */
  database: { where: string | null; up: boolean | null; error?: string };
  networks: NetworkFact[];
  keys: { operator: KeyFact; verifier: KeyFact; log: KeyFact };
  /** The fee payers' balances against their levels; null when not known (over HTTP without the metrics token). */
  feePayers: FeePayerHealth[] | null;
  /** The mainnet switch (the operator setting); null when unknown. */
  mainnet: { enabled: boolean | null };
  /** The readiness verdict; null when the health could not be read. */
  status: HealthReport["status"] | null;
  /** Serving, with these parts down, low or unusual. */
  degraded: string[];
  /** What would stop payments: `signet doctor` exits 1 when there is one. */
  stops: string[];
}

/** Where the report's database is, without its credentials: the PostgreSQL host and database, or PGlite's folder. */
export function describeDatabase(cfg: Pick<Config, "DATABASE_URL" | "dataDir">): string {
  // The embedded database's folder, as server/db/index.ts opens it.
  if (!cfg.DATABASE_URL) return `embedded PGlite at ${path.join(cfg.dataDir, "pglite")}`;
  if (!URL.canParse(cfg.DATABASE_URL)) return "PostgreSQL (DATABASE_URL is not a URL)";
  const url = new URL(cfg.DATABASE_URL);
  // A socket directory may stand in ?host= for the URL's host; no database in the path means the user's own.
  const host = url.host || url.searchParams.get("host") || "localhost";
  const name = decodeURIComponent(url.pathname.replace(/^\/+/, "")) || "(the user's default database)";
  return `PostgreSQL ${host}/${name}`;
}

/** An RPC URL's host and port, or null when it is not a URL. SECURITY: the path, the query and any user:password stay out. */
export function rpcHost(url: string): string | null {
  return URL.canParse(url) ? new URL(url).host || null : null;
}

/** Runs `load` for a key's public id; a key that cannot be loaded is its reason, first line only. */
export function keyFact(load: () => string): KeyFact {
  try {
    return { ok: true, id: load() };
  } catch (err) {
    return { ok: false, reason: (err instanceof Error ? err.message : String(err)).split("\n")[0]! };
  }
}

/** What a report is built from in this process: its config and the parts it built from it. */
export interface ConfigFacts {
  version: string;
  config: Pick<Config, "baseUrl" | "DATABASE_URL" | "dataDir" | "networks">;
  /** The lines production logs at every start for what it was allowed to run with (env.ts's productionOptIns). */
  optIns: readonly string[];
  /** Each network's configured RPC URL (the facilitator's, Solana's and Base's). */
  rpcUrls: Partial<Record<NetworkId, string>>;
  keys: DeploymentReport["keys"];
  /** The mainnet switch, from the settings; null when the settings could not be read. */
  mainnetEnabled: boolean | null;
  /** Each network's deposit address (configuredDepositAddress); null when none, undefined when unknown. */
  deposits: Partial<Record<NetworkId, string | null>>;
  /** The health report, as the metrics token's holder reads it. */
  health: HealthReport;
}

/** The report of this process's own deployment. */
export function configDeploymentReport(facts: ConfigFacts): DeploymentReport {
  if (typeof facts !== "object" || facts === null || typeof facts.health !== "object" || facts.health === null)
    throw new TypeError("configDeploymentReport: facts with a health report are required");
  const chainOf = (caip2: string) => facts.health.chains.find((c) => c.network === caip2);
  const registry = facts.config.networks;
  const networks = registry.rows.map((info): NetworkFact => {
    const id = info.id;
    const url = facts.rpcUrls[id];
    const chain = chainOf(info.caip2);
    const deposit = facts.deposits[id];
    // Payments need an RPC, on a mainnet the switch on, and somewhere to go.
    const switchOn = info.isMainnet ? facts.mainnetEnabled : true;
    const takesPayments =
      url === undefined
        ? false
        : switchOn === false
          ? false
          : switchOn === null || deposit === undefined
            ? null
            : deposit !== null;
    return {
      network: info.caip2,
      label: info.label,
      isMainnet: info.isMainnet,
      rpc: url !== undefined,
      rpcHost: url === undefined ? null : rpcHost(url),
      up: chain ? chain.ok : null,
      ...(chain && !chain.ok && chain.error ? { upError: chain.error } : {}),
      takesPayments,
      // Without an RPC nothing is paid there, wherever the settings would send it.
      depositAddress: url === undefined ? null : (deposit ?? null),
    };
  });
  const health = facts.health;
  const report: Omit<DeploymentReport, "stops" | "degraded"> = {
    source: "config",
    version: facts.version,
    baseUrl: facts.config.baseUrl,
    database: {
      where: describeDatabase(facts.config),
      up: health.database.ok,
      ...(health.database.error ? { error: health.database.error } : {}),
    },
    networks,
    keys: facts.keys,
    feePayers: health.feePayer.accounts,
    mainnet: { enabled: facts.mainnetEnabled },
    status: health.status,
  };
  return {
    ...report,
    ...judge(report, registry, { reasons: health.reasons, warnings: [...facts.optIns, ...health.warnings] }),
  };
}

/** One answer of the deployment to a GET: its status and JSON body, or why there was none. */
export type HttpAnswer = { status: number; body: unknown } | { error: string };

/** The answers `signet doctor` reads a deployment from (each a public route; the health's detail with the token). */
export interface HttpAnswers {
  /** GET /api/health. */
  health: HttpAnswer;
  /** GET /.well-known/x402. */
  discovery: HttpAnswer;
  /** GET /api/v1/operator-key. */
  operatorKey: HttpAnswer;
  /** GET /api/verify/operator-key. */
  verifierKey: HttpAnswer;
  /** GET /log/key. */
  logKey: HttpAnswer;
}

const healthStatus = z.enum(["ok", "degraded", "unavailable"]);
const publicHealthSchema = z.object({ status: healthStatus, reasons: z.array(z.string()) });
const fullHealthSchema = publicHealthSchema.extend({
  ready: z.boolean(),
  warnings: z.array(z.string()),
  database: z.object({ ok: z.boolean(), error: z.string().optional() }),
  chains: z.array(z.object({ network: z.string(), ok: z.boolean(), error: z.string().optional() })),
  feePayer: z.object({ accounts: z.array(feePayerHealthSchema) }),
});
const discoverySchema = z.object({
  networks: z.array(z.object({ network: z.string(), rpc: z.string().nullable().optional(), enabled: z.boolean() })),
  paid_resources: z.array(z.object({ accepts: z.array(z.object({ network: z.string(), payTo: z.string() })) })),
});
const keyResourceSchema = z.object({ pubkey: z.string().min(1) });
const logKeySchema = z.object({ verifier_key: z.string().min(1) });

/** Why an answer carries nothing usable: it never came, or came with another status. */
function answerFailure(answer: HttpAnswer, what: string): string {
  if ("error" in answer) return answer.error;
  const code = (answer.body as { error?: { code?: unknown } } | null)?.error?.code;
  return `${what} answered ${answer.status}${typeof code === "string" ? ` ${code}` : ""}`;
}

/** The body of a 2xx answer parsed by `schema`, else why not. */
function parsed<T>(
  answer: HttpAnswer,
  schema: z.ZodType<T>,
  what: string,
  statuses: readonly number[] = [200],
): { ok: true; value: T } | { ok: false; reason: string } {
  if ("error" in answer || !statuses.includes(answer.status)) return { ok: false, reason: answerFailure(answer, what) };
  const result = schema.safeParse(answer.body);
  return result.success
    ? { ok: true, value: result.data }
    : { ok: false, reason: `${what} answered ${answer.status} with a body that is not the service's` };
}

/** The report of the deployment at `baseUrl`, from its answers over HTTP, for each network of `networks`. */
export function httpDeploymentReport(
  baseUrl: string,
  answers: HttpAnswers,
  networks: NetworkRegistry,
): DeploymentReport {
  if (typeof baseUrl !== "string" || !URL.canParse(baseUrl))
    throw new TypeError("httpDeploymentReport: baseUrl must be a URL");
  // Readiness answers 503 with its reasons: both are the health.
  const full = parsed(answers.health, fullHealthSchema, "GET /api/health", [200, 503]);
  const open = parsed(answers.health, publicHealthSchema, "GET /api/health", [200, 503]);
  const detail = full.ok ? full.value : null;
  const health: PublicHealth | null = open.ok ? open.value : null;
  const discovery = parsed(answers.discovery, discoverySchema, "GET /.well-known/x402");
  const listed = discovery.ok ? discovery.value : null;
  const facts = networks.rows.map((info): NetworkFact => {
    const entry = listed?.networks.find((n) => n.network === info.caip2);
    const chain = detail?.chains.find((c) => c.network === info.caip2);
    const payTo = listed?.paid_resources[0]?.accepts.find((a) => a.network === info.caip2)?.payTo ?? null;
    // A network the document lists as enabled without requirements was left out: no deposit address, or its RPC.
    const takesPayments = entry ? entry.enabled && payTo !== null : null;
    return {
      network: info.caip2,
      label: info.label,
      isMainnet: info.isMainnet,
      // The detail lists every network with an RPC; one that takes payments has one too.
      rpc: chain || entry?.enabled ? true : detail ? false : null,
      // Only the RPC the service publishes for browsers (EXPLORER_ADVERTISE_RPC) is known here.
      rpcHost: entry?.rpc ? rpcHost(entry.rpc) : null,
      up: chain ? chain.ok : null,
      ...(chain && !chain.ok && chain.error ? { upError: chain.error } : {}),
      takesPayments,
      depositAddress: payTo,
    };
  });
  const mainnets = facts.filter((n) => n.isMainnet);
  const enabledMainnet = listed
    ? listed.networks.some((n) => n.enabled && mainnets.some((m) => m.network === n.network))
    : false;
  // On: a mainnet takes payments. Off: a mainnet has an RPC and takes none. Otherwise the answers do not say.
  const mainnetEnabled = enabledMainnet ? true : mainnets.some((m) => m.rpc === true) ? false : null;
  const key = (answer: HttpAnswer, what: string, pick: (body: unknown) => string | null): KeyFact => {
    if ("error" in answer) return { ok: false, reason: answer.error };
    const id = answer.status === 200 ? pick(answer.body) : null;
    return id ? { ok: true, id } : { ok: false, reason: answerFailure(answer, what) };
  };
  const report: Omit<DeploymentReport, "stops" | "degraded"> = {
    source: "http",
    version: null,
    baseUrl,
    database: detail
      ? { where: null, up: detail.database.ok, ...(detail.database.error ? { error: detail.database.error } : {}) }
      : { where: null, up: null },
    networks: facts,
    keys: {
      operator: key(
        answers.operatorKey,
        "GET /api/v1/operator-key",
        (b) => keyResourceSchema.safeParse(b).data?.pubkey ?? null,
      ),
      verifier: key(
        answers.verifierKey,
        "GET /api/verify/operator-key",
        (b) => keyResourceSchema.safeParse(b).data?.pubkey ?? null,
      ),
      log: key(answers.logKey, "GET /log/key", (b) => logKeySchema.safeParse(b).data?.verifier_key ?? null),
    },
    feePayers: detail ? detail.feePayer.accounts : null,
    mainnet: { enabled: mainnetEnabled },
    status: health?.status ?? null,
  };
  const warnings = detail
    ? detail.warnings
    : health?.status === "degraded"
      ? ["a part is down or low (its detail needs the metrics token)"]
      : [];
  const unread: string[] = [];
  if (!open.ok) unread.push(`health unreadable: ${open.reason}`);
  if (!discovery.ok) unread.push(`payment offers unreadable: ${discovery.reason}`);
  return { ...report, ...judge(report, networks, { reasons: [...unread, ...(health?.reasons ?? [])], warnings }) };
}

/**
 * What would stop payments, and what is degraded. Stops: every reason readiness gives (shutting down, the database,
 * every chain down, a fee payer under its alert level), no chain RPC at all, the mainnet switch on without a mainnet
 * RPC or with a mainnet that cannot take payments, a key the service cannot load.
 */
function judge(
  report: Omit<DeploymentReport, "stops" | "degraded">,
  networks: NetworkRegistry,
  health: { reasons: readonly string[]; warnings: readonly string[] },
): Pick<DeploymentReport, "stops" | "degraded"> {
  const stops = [...health.reasons];
  if (report.networks.every((n) => n.rpc === false)) {
    stops.push(`no chain RPC is configured (${networks.ids.map(rpcUrlVariable).join(", ")})`);
  }
  if (report.mainnet.enabled === true) {
    const mainnets = report.networks.filter((n) => n.isMainnet);
    if (mainnets.every((n) => n.rpc === false)) {
      stops.push(
        `the mainnet switch is on, but no mainnet RPC is configured (${networks.mainnets.map((n) => rpcUrlVariable(n.id)).join(" or ")})`,
      );
    }
    // A mainnet with an RPC takes payments once the switch is on: it needs somewhere to take them to.
    for (const n of mainnets) {
      if (n.rpc !== true || n.depositAddress !== null) continue;
      stops.push(
        report.source === "config"
          ? `the mainnet switch is on, but ${n.label} has no deposit address (SERVICE_MAINNET_DEPOSIT_ADDRESS)`
          : `the mainnet switch is on, but ${n.label} takes no payments: the service offers none for it (its deposit address, SERVICE_MAINNET_DEPOSIT_ADDRESS, or its RPC)`,
      );
    }
  }
  for (const [role, fact] of Object.entries(report.keys))
    if (!fact.ok) stops.push(`the ${role} key is unavailable: ${fact.reason}`);
  return { stops, degraded: [...health.warnings] };
}
