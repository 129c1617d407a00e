// `signet doctor [--endpoint URL | --local] [--metrics-token TOKEN] [--json]`: the deployment report `npm start`
// prints, for a running deployment read over HTTP (its health, with the parts' detail when given the metrics token,
// its payment offers and its public keys), or with --local for the one this machine's environment configures, checked
// as `npm start` checks it. Exits 1 when something would stop payments, 0 otherwise, 2 on a usage error or a service
// that did not answer.
import { parseArgs } from "node:util";
import type { DeploymentReport, HttpAnswer, HttpAnswers } from "../../../server/health/deployment-report";
import { cliConfig, resolveEndpoint, serviceFetch, UsageError } from "../cli-support";
import { DOCTOR_USAGE } from "./usage";

/** Per answer: generous, `next dev` compiles a route on its first call. */
const ANSWER_TIMEOUT_MS = 20_000;

/** Prints the report; exits 1 when it names something that would stop payments. */
export async function runDoctor(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      endpoint: { type: "string" },
      local: { type: "boolean", default: false },
      "metrics-token": { type: "string" },
      json: { type: "boolean", default: false },
    },
    strict: true,
  });
  if (values.local && values.endpoint !== undefined)
    throw new UsageError(`--endpoint and --local exclude each other\nusage: ${DOCTOR_USAGE}`);
  if (values.local && values["metrics-token"] !== undefined)
    throw new UsageError(
      `--metrics-token goes with --endpoint: --local holds the configured METRICS_TOKEN itself\nusage: ${DOCTOR_USAGE}`,
    );
  if (values["metrics-token"] === "") throw new UsageError(`--metrics-token needs a value\nusage: ${DOCTOR_USAGE}`);
  const outcome = values.local
    ? await localReport()
    : { report: await httpReport(resolveEndpoint(values.endpoint), values["metrics-token"]) };
  if ("refused" in outcome) {
    // The configuration itself would stop start-up: nothing else is worth reading.
    process.stdout.write(
      values.json
        ? `${JSON.stringify({ source: "config", stops: [outcome.refused] })}\n`
        : `start-up would refuse: ${outcome.refused}\n`,
    );
    return 1;
  }
  const { formatDeploymentReport } = await import("../../../server/health/format-deployment-report");
  process.stdout.write(
    values.json ? `${JSON.stringify(outcome.report)}\n` : `${formatDeploymentReport(outcome.report).join("\n")}\n`,
  );
  return outcome.report.stops.length > 0 ? 1 : 0;
}

/** The report of the deployment this environment configures, or the one line start-up would refuse with. */
async function localReport(): Promise<{ report: DeploymentReport } | { refused: string }> {
  const { ConfigError } = await import("../../../server/env");
  const { DatabaseInUseError } = await import("../../../server/db");
  const { checkReadyToStart } = await import("../../../server/runtime/check-ready-to-start");
  const { checkDatabaseAtStart } = await import("../../../server/runtime/check-database-at-start");
  const { readDeploymentReport } = await import("../../../server/runtime/read-deployment-report");
  try {
    const cfg = await cliConfig();
    const facilitator = await checkReadyToStart(cfg);
    // A database a newer release migrated, a log key that did not sign its log: start-up's refusals too.
    await checkDatabaseAtStart(cfg);
    return { report: await readDeploymentReport(cfg, { facilitator }) };
  } catch (err) {
    if (err instanceof ConfigError) return { refused: err.message.replace(/\s*\n\s*/g, " ") };
    if (err instanceof DatabaseInUseError)
      throw new UsageError(`${err.message}; or ask the running server: signet doctor --endpoint URL`);
    throw err;
  }
}

/** The report of the deployment at `endpoint`, from its public answers (the health's detail with `token`). */
async function httpReport(endpoint: string, token: string | undefined): Promise<DeploymentReport> {
  const fetchAnswer = serviceFetch(endpoint, ANSWER_TIMEOUT_MS);
  const get = async (path: string, headers: Record<string, string> = {}): Promise<HttpAnswer> => {
    // SECURITY: a redirect is an answer of its own, never followed: the metrics token goes to this origin only.
    const res = await fetchAnswer(`${endpoint}${path}`, {
      headers: { accept: "application/json", ...headers },
      redirect: "manual",
    });
    const text = await res.text();
    try {
      return { status: res.status, body: JSON.parse(text) as unknown };
    } catch {
      return { status: res.status, body: null };
    }
  };
  const [health, discovery, operatorKey, verifierKey, logKey] = await Promise.all([
    get("/api/health", token ? { authorization: `Bearer ${token}` } : {}),
    get("/.well-known/x402"),
    get("/api/v1/operator-key"),
    get("/api/verify/operator-key"),
    get("/log/key"),
  ]);
  const answers: HttpAnswers = { health, discovery, operatorKey, verifierKey, logKey };
  const { httpDeploymentReport } = await import("../../../server/health/deployment-report");
  const { SHIPPED_NETWORKS } = await import("../../../server/verify");
  // A deployment read over HTTP, whose config is not this machine's: its answers are read for this release's networks.
  return httpDeploymentReport(endpoint, answers, SHIPPED_NETWORKS);
}
