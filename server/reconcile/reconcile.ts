// `signet reconcile`: compares what the chain says each deposit address received with the payments table and the
// ledger, and the ledger with the receipts and holds, per network, and lists every mismatch:
// - paid_not_recorded: a transfer in on chain that no recorded payment accounts for;
// - recorded_not_on_chain: a payment recorded as settled whose transaction did not pay the deposit address;
// - wrong_amount: both exist, for different amounts;
// - payment_reorged: a recorded Base payment whose transaction a reorg took out of the canonical chain (no receipt,
//   or a receipt in a block that is no longer canonical); the call it paid for may already have been served;
// - ledger_drift: a settled payment without exactly one credit of its amount in the ledger;
// - the money checks of money-checks.ts: charges against receipts, paid credits against their holds, open holds
//   against their leases, balances against their ledger entries.
// Read-only: it never changes a row. Claims still settling (or abandoned by a crash) are listed as pending, and so are
// pending settlements (broadcast, confirmation not seen in time): one whose transfer landed is counted as landed and
// pending, never as paid_not_recorded, until a retry or the sweeper records it. A claim learns its transaction only
// when it is recorded, so a transfer nobody recorded, of a claim's amount to its address, is that claim's, landed and
// pending, while the claim lasts.
import "server-only";
import type { Facilitator } from "../facilitator/create-facilitator";
import type { DbClient } from "../db";
import type { Config } from "../env";
import type { SignetMetrics } from "../metrics/registry";
import type { NetworkId } from "../verify";
import { readSettings } from "../settings/read-settings";
import { configuredDepositAddress } from "../x402/deposit-address";
import type { Inflow } from "../chain/chain-inflows";
import { familyAdapter } from "../chain/family-adapter";
import { checkMoney, type MoneyMismatchKind } from "./money-checks";
import { LANDED_STATES, STATE } from "../ledger/payment-states";
import type { Logger } from "../log";

export const MISMATCH_KINDS = [
  "paid_not_recorded",
  "recorded_not_on_chain",
  "wrong_amount",
  "payment_reorged",
  "ledger_drift",
  "charge_mismatch",
  "cost_exceeds_hold",
  "receipt_missing",
  "credit_not_reserved",
  "hold_state_mismatch",
  "hold_lease_expired",
  "balance_drift",
] as const satisfies readonly string[];
// Every money check's kind is one of the kinds above.
const MONEY_KINDS_LISTED: MoneyMismatchKind extends MismatchKind ? true : never = true;
void MONEY_KINDS_LISTED;

type MismatchKind = (typeof MISMATCH_KINDS)[number];

interface Mismatch {
  kind: MismatchKind;
  transaction: string;
  detail: string;
}

export interface NetworkReport {
  network: string;
  label: string;
  depositAddresses: string[];
  onChainTransfers: number;
  recordedPayments: number;
  /** Payments still `claimed`: settling now, or abandoned by a crash until a retry resolves them. */
  pendingClaims: number;
  /** Payments `pending`: broadcast, their confirmation not seen within the settle wait, not yet resolved. */
  pendingSettlements: number;
  /** Of those, the ones whose transfer is on chain: a retry or the sweeper records them shortly. */
  pendingLanded: number;
  mismatches: Mismatch[];
}

const CREDIT_KINDS = ["payment_credit", "topup_credit"];

export interface ReconcileOptions {
  networks?: NetworkId[];
  since?: Date;
}

/** What reconcile reads: the database, the chains through the facilitator, the config (lease, setting defaults). */
export interface ReconcileDeps {
  db: DbClient;
  config: Config;
  /** Where an invalid stored setting is logged. */
  log: Logger;
  chains: { facilitator: Facilitator };
  /** Where each network's drift is set (signet_reconcile_drift); default: nowhere. */
  metrics?: SignetMetrics;
}

/** Reconciles every network the facilitator serves (or those named). */
export async function reconcile(deps: ReconcileDeps, opts: ReconcileOptions = {}): Promise<NetworkReport[]> {
  const { db, config } = deps;
  const facilitator = deps.chains.facilitator;
  const served = [...Object.keys(facilitator.rpcs), ...Object.keys(facilitator.evm?.rpcUrls ?? {})];
  const networks = opts.networks ? served.filter((n) => opts.networks!.includes(n)) : served;
  const settings = await readSettings(db, config, deps.log);
  const reports: NetworkReport[] = [];
  for (const id of networks) {
    const info = facilitator.networks.get(id);
    const adapter = familyAdapter(info);
    const sinceSeconds = opts.since ? Math.floor(opts.since.getTime() / 1000) : null;
    // The chain is read before the payments: a transfer it shows landed after its payment was claimed, so the rows read
    // next hold that payment (claimed, pending or landed), and a payment in flight is never taken for money nobody
    // recorded.
    const payees = await db.payment.findMany({
      where: { network: info.caip2 },
      distinct: ["payTo"],
      select: { payTo: true },
    });
    // Every address payments were made to, plus the current one: a changed setting must not hide older inflows.
    const current = configuredDepositAddress(facilitator, settings, id);
    const deposits = [...new Set([...(current ? [current] : []), ...payees.map((p) => p.payTo)])];
    const inflows: Inflow[] = [];
    for (const deposit of deposits)
      inflows.push(...(await adapter.readInflows(facilitator, id, deposit, sinceSeconds)));

    const recorded = await db.payment.findMany({
      where: {
        network: info.caip2,
        status: { in: [...LANDED_STATES] },
        ...(opts.since ? { createdAt: { gte: opts.since } } : {}),
      },
      select: { id: true, txSignature: true, units: true, payTo: true },
    });
    const pending = await db.payment.findMany({
      where: { network: info.caip2, status: STATE.pending },
      select: { txSignature: true, payTo: true },
    });
    const claims = await db.payment.findMany({
      where: { network: info.caip2, status: STATE.claimed },
      select: { units: true, payTo: true },
    });
    const pendingClaims = claims.length;

    const mismatches: Mismatch[] = [];
    const byTx = new Map(recorded.map((p) => [normalize(p.txSignature ?? ""), p]));
    const pendingTx = new Set(pending.map((p) => normalize(p.txSignature ?? "")));
    let pendingLanded = 0;
    // Per transaction: the units it brought in, and the deposit address it paid (the first one read).
    const onChain = new Map<string, { units: bigint; payTo: string }>();
    for (const inflow of inflows) {
      const tx = normalize(inflow.transaction);
      const seen = onChain.get(tx);
      onChain.set(tx, { units: (seen?.units ?? 0n) + inflow.units, payTo: seen?.payTo ?? inflow.payTo });
    }
    for (const [tx, { units, payTo }] of onChain) {
      const payment = byTx.get(tx);
      if (!payment && (pendingTx.has(tx) || takeClaimFor(claims, units, payTo))) pendingLanded++;
      else if (!payment)
        mismatches.push({
          kind: "paid_not_recorded",
          transaction: tx,
          detail: `${units} units arrived with no recorded payment`,
        });
      else if (payment.units !== units)
        mismatches.push({
          kind: "wrong_amount",
          transaction: tx,
          detail: `on chain ${units} units, recorded ${payment.units}`,
        });
    }
    // A reorged payment is named as such, not also as missing from the chain.
    const reorged = await adapter.findReorgedPayments(facilitator, id, recorded);
    const reorgedTx = new Set(reorged.map((r) => r.transaction));
    for (const r of reorged) mismatches.push({ kind: "payment_reorged", transaction: r.transaction, detail: r.detail });
    for (const payment of recorded) {
      const tx = normalize(payment.txSignature ?? "");
      if (!onChain.has(tx) && !reorgedTx.has(tx))
        mismatches.push({
          kind: "recorded_not_on_chain",
          transaction: tx || `(payment ${payment.id})`,
          detail: `recorded ${payment.units} units to ${payment.payTo}, not found on chain`,
        });
    }

    const credits = await db.ledgerEntry.groupBy({
      by: ["paymentId"],
      where: { paymentId: { in: recorded.map((p) => p.id) }, kind: { in: CREDIT_KINDS } },
      _sum: { units: true },
      _count: { _all: true },
    });
    const creditOf = new Map(credits.map((c) => [c.paymentId, c]));
    for (const payment of recorded) {
      const credit = creditOf.get(payment.id);
      if (!credit || credit._count._all !== 1 || credit._sum.units !== payment.units) {
        mismatches.push({
          kind: "ledger_drift",
          transaction: normalize(payment.txSignature ?? ""),
          detail: `payment ${payment.id}: ${credit?._count._all ?? 0} credit entries for ${credit?._sum.units ?? 0n} units, expected one for ${payment.units}`,
        });
      }
    }

    mismatches.push(...(await checkMoney(db, info.caip2, config.PAYMENT_LEASE_MS, opts.since ?? null)));

    reports.push({
      network: info.caip2,
      label: info.label,
      depositAddresses: deposits,
      onChainTransfers: onChain.size,
      recordedPayments: recorded.length,
      pendingClaims,
      pendingSettlements: pending.length,
      pendingLanded,
      mismatches,
    });
    deps.metrics?.reconcileDrift.set({ network: info.caip2 }, mismatches.length);
  }
  return reports;
}

/**
 * A transfer no recorded payment names, explained by a claim still settling: one to the same address for the same
 * amount (a claim learns its transaction only when it is recorded). Each claim explains one transfer; it is taken from
 * the list.
 */
function takeClaimFor(claims: { units: bigint; payTo: string }[], units: bigint, payTo: string): boolean {
  const index = claims.findIndex((c) => c.units === units && normalize(c.payTo) === normalize(payTo));
  if (index === -1) return false;
  claims.splice(index, 1);
  return true;
}

/** EVM hashes compare case-insensitively; Solana signatures are case-sensitive base58. */
function normalize(tx: string): string {
  return tx.startsWith("0x") ? tx.toLowerCase() : tx;
}
