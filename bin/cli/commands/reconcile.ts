// `signet reconcile [--network N] [--since DATE] [--json]`: on-chain deposits against the payments table and the
// ledger. Prints every mismatch; exits 1 when there is one, 0 when there is zero drift.
import { parseArgs } from "node:util";
import type { NetworkId } from "../../../server/verify";
import { DatabaseInUseError, openDatabase, type OpenDb } from "../../../server/db";
import { createFacilitator } from "../../../server/facilitator/create-facilitator";
import { reconcile } from "../../../server/reconcile/reconcile";
import { cliConfig, UsageError } from "../cli-support";
import { RECONCILE_USAGE } from "./usage";
import { createLogger } from "../../../server/log";

export async function runReconcile(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: { network: { type: "string" }, since: { type: "string" }, json: { type: "boolean", default: false } },
    strict: true,
  });
  const config = await cliConfig();
  let networks: NetworkId[] | undefined;
  if (values.network) {
    const id = config.networks.resolve(values.network);
    if (!id) throw new UsageError(`unknown network ${values.network}\nusage: ${RECONCILE_USAGE}`);
    networks = [id];
  }
  let since: Date | undefined;
  if (values.since) {
    since = new Date(values.since);
    if (Number.isNaN(since.getTime())) throw new UsageError(`--since must be a date (ISO 8601), got ${values.since}`);
  }
  let open: OpenDb | null = null;
  try {
    const log = createLogger(config.logLevel);
    open = await openDatabase(config, log);
    const db = open.prisma;
    const facilitator = await createFacilitator(config, { db: async () => db, log });
    const reports = await reconcile(
      { db, config, chains: { facilitator }, log },
      { ...(networks ? { networks } : {}), ...(since ? { since } : {}) },
    );
    const drift = reports.reduce((n, r) => n + r.mismatches.length, 0);
    if (values.json) {
      process.stdout.write(
        `${JSON.stringify({ drift, networks: reports }, (_k, v: unknown) => (typeof v === "bigint" ? v.toString() : v))}\n`,
      );
    } else {
      for (const r of reports) {
        process.stdout.write(
          `${r.label} (${r.network}): ${r.onChainTransfers} transfers on chain, ${r.recordedPayments} recorded, ${r.pendingClaims} pending claims, ${r.pendingSettlements} pending settlements (${r.pendingLanded} landed), ${r.mismatches.length} mismatches\n`,
        );
        for (const m of r.mismatches) process.stdout.write(`  ${m.kind} ${m.transaction}: ${m.detail}\n`);
      }
      process.stdout.write(drift === 0 ? "zero drift\n" : `${drift} mismatches\n`);
    }
    return drift === 0 ? 0 : 1;
  } catch (err) {
    if (err instanceof DatabaseInUseError) throw new UsageError(err.message);
    throw err;
  } finally {
    await open?.close();
  }
}
