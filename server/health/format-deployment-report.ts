// The deployment report in words: one readable block, one fact per line, the same for `npm start`, `npm run dev` and
// `signet doctor`. Nothing here decides anything (deployment-report.ts does).
import "server-only";
import type { DeploymentReport, KeyFact, NetworkFact } from "./deployment-report";

/** The label column's width: the longest label, "stops payments", and two spaces. */
const LABEL_WIDTH = 16;

/** The verdict the block opens with. */
function verdict(report: DeploymentReport): string {
  if (report.stops.length > 0) return "payments would stop";
  if (report.degraded.length > 0 || report.status === "degraded") return "serving, degraded";
  return report.status === null ? "health unknown" : "ok";
}

function describeNetwork(n: NetworkFact, mainnetEnabled: boolean | null): string {
  if (n.rpc === false) return "no RPC configured";
  const parts: string[] = [];
  // Over HTTP only the RPC a deployment publishes to browsers is known: an unpublished one goes unnamed.
  if (n.rpcHost !== null) parts.push(`rpc ${n.rpcHost}`);
  if (n.up !== null) parts.push(n.up ? "up" : `down (${n.upError ?? "unreachable"})`);
  const head = parts.join(", ");
  const pays =
    n.takesPayments === true
      ? `takes payments to ${n.depositAddress}`
      : n.takesPayments === false
        ? n.isMainnet && mainnetEnabled === false
          ? "takes no payments: the mainnet switch is off"
          : n.depositAddress === null && n.rpc === true
            ? "takes no payments: no deposit address"
            : "takes no payments"
        : n.rpc === null
          ? "not offered"
          : "payments unknown";
  return head ? `${head}; ${pays}` : pays;
}

function describeKey(k: KeyFact): string {
  return k.ok ? k.id : `unavailable: ${k.reason}`;
}

/** The report as lines of text, the verdict first. */
export function formatDeploymentReport(report: DeploymentReport): string[] {
  if (typeof report !== "object" || report === null || !Array.isArray(report.networks))
    throw new TypeError("formatDeploymentReport: a deployment report is required");
  const lines = [`Signet ${report.version ?? "(version not published)"} at ${report.baseUrl}: ${verdict(report)}`];
  const row = (label: string, text: string) => lines.push(`  ${label.padEnd(LABEL_WIDTH)}${text}`);
  const db = report.database;
  const dbState = db.up === null ? "" : db.up ? ": up" : `: down (${db.error ?? "unreachable"})`;
  row("database", `${db.where ?? "(not published over HTTP)"}${dbState}`);
  for (const n of report.networks) row(n.label, describeNetwork(n, report.mainnet.enabled));
  row("operator key", describeKey(report.keys.operator));
  row("verifier key", describeKey(report.keys.verifier));
  row("log key", describeKey(report.keys.log));
  if (report.feePayers === null) row("fee payer", "(balances need the metrics token)");
  else if (report.feePayers.length === 0) row("fee payer", "no balance read");
  for (const f of report.feePayers ?? []) {
    const balance = f.balance === null ? "balance unreadable" : `${f.balance} ${f.unit}`;
    row(
      "fee payer",
      `${f.address} on ${f.label}: ${balance} (alert below ${f.alertBelow}, warn below ${f.warnBelow}): ${f.level}`,
    );
  }
  row("mainnet switch", report.mainnet.enabled === null ? "unknown" : report.mainnet.enabled ? "on" : "off");
  if (report.degraded.length === 0) row("degraded", "nothing");
  for (const d of report.degraded) row("degraded", d);
  if (report.stops.length === 0) row("stops payments", "nothing");
  for (const s of report.stops) row("stops payments", s);
  return lines;
}
