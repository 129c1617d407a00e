// Every credit to an agent's balance goes through here: a settled x402 payment (with the hold for the call it pays
// for), a top-up, a grant, and the test and bench helper. One statement writes the ledger entry and the balance
// together, so the ledger sum equals the balance at every moment.
import "server-only";
import { Prisma, type DbClient, type DbTransaction } from "../db";
import { isUniqueViolation } from "../db";
import { hotQuery } from "../db/hot-query";
import { pointsExpression } from "./credit-holds";
import type { CreditMove } from "./payment-transition";
import { creditedPaymentStatement } from "./payment-row-statements";

export type CreditKind = "payment_credit" | "topup_credit" | "grant_credit" | "test_credit";

export interface CreditFacts {
  kind: CreditKind;
  agentPubkey: string;
  /** CAIP-2 id of the network whose ledger is credited. */
  network: string;
  units: bigint;
  /**
   * The settled payment that pays for this credit. The credit hangs off the payment's move (out of `claimed`; or out
   * of `pending`, a broadcast whose confirmation was late found landed), so a second run (or a race) credits nothing.
   * A chat payment resolved with nobody waiting moves to `unserved`: the retry of the request that paid serves it.
   */
  payment?: {
    id: string;
    txSignature: string;
    move: CreditMove;
    /** From `claimed`: the attempt holding it; from `pending`: the attempt taking it (null: nobody). */ attempt:
      string | null;
  };
  /**
   * Reserve the whole credit at once for the one call it pays for: a hold with this id (the payment's), tied to the
   * payment, so no other call of the same agent can spend that money.
   */
  holdForCall?: { holdId: string; leaseMs: number };
  /**
   * A write of the same transition outside the ledger, run in this statement whatever the credit's outcome (the
   * payer's settlement lane, freed as the settlement is recorded). Rolled back with it on `transaction_already_used`.
   */
  alongside?: Prisma.Sql;
}

export type CreditOutcome =
  | {
      ok: true;
      balanceUnits: bigint;
      heldUnits: bigint;
      /** The agent's points as the statement read them (0 for a new agent). */ points: number;
      /** The statement's time by the database's clock (epoch ms, microsecond precision): when `alongside` ran. */
      atMs: number;
    }
  /**
   * The payment was not in `from` any more (another request moved it), or its transaction is another payment's (then
   * the statement was rolled back: nothing of it, `alongside` included, was written).
   */
  | { ok: false; reason: "payment_not_claimed" | "transaction_already_used" };

/** Credits the agent (and reserves, for a paid call); returns facts, never throws on an expected outcome. */
export async function creditAgent(db: DbClient | DbTransaction, facts: CreditFacts): Promise<CreditOutcome> {
  const paymentId = facts.payment?.id ?? null;
  const heldUnits = facts.holdForCall ? facts.units : 0n;
  const holdId = facts.holdForCall?.holdId ?? null;
  const leaseMs = facts.holdForCall?.leaseMs ?? 0;
  try {
    const rows = await hotQuery<{ credited: bigint; balance: bigint | null; points: number; at_ms: number }>(
      db,
      Prisma.sql`
      WITH moved AS (${creditedPaymentStatement(facts.payment ?? null)}
      ), gate AS (
        SELECT 1 AS go WHERE ${paymentId}::uuid IS NULL
        UNION ALL SELECT 1 FROM moved
      ), agent AS (
        INSERT INTO agents (pubkey) SELECT ${facts.agentPubkey} FROM gate ON CONFLICT (pubkey) DO NOTHING
      ), credit AS (
        INSERT INTO ledger_entries (agent_pubkey, network, kind, units, payment_id)
        SELECT ${facts.agentPubkey}, ${facts.network}, ${facts.kind}, ${facts.units}, ${paymentId}::uuid FROM gate
      ), held AS (
        INSERT INTO credit_holds (id, agent_pubkey, network, units, status, payment_id, lease_expires_at)
        SELECT ${holdId}::uuid, ${facts.agentPubkey}, ${facts.network}, ${heldUnits}, 'held', ${paymentId}::uuid,
               now() + make_interval(secs => ${leaseMs}::double precision / 1000)
        FROM gate WHERE ${holdId}::uuid IS NOT NULL
      ), hold_entry AS (
        INSERT INTO ledger_entries (agent_pubkey, network, kind, units, inference_id)
        SELECT ${facts.agentPubkey}, ${facts.network}, 'hold', ${-heldUnits}, ${holdId}::uuid FROM gate WHERE ${holdId}::uuid IS NOT NULL
      ), balance AS (
        INSERT INTO balances (agent_pubkey, network, units, updated_at)
        SELECT ${facts.agentPubkey}, ${facts.network}, ${facts.units - heldUnits}, now() FROM gate
        ON CONFLICT (agent_pubkey, network) DO UPDATE SET units = balances.units + EXCLUDED.units, updated_at = now()
        RETURNING units
      )${facts.alongside ? Prisma.sql`, alongside AS (${facts.alongside})` : Prisma.empty}
      SELECT (SELECT count(*) FROM gate) AS credited, (SELECT units FROM balance) AS balance, ${pointsExpression(facts.agentPubkey)} AS points,
        (extract(epoch from now()) * 1000)::float8 AS at_ms`,
    );
    const row = rows[0];
    if (!row || Number(row.credited) !== 1 || row.balance === null) return { ok: false, reason: "payment_not_claimed" };
    return {
      ok: true,
      balanceUnits: BigInt(row.balance),
      heldUnits,
      points: Number(row.points),
      atMs: Number(row.at_ms),
    };
  } catch (err) {
    // SECURITY: one transaction, one payment. Another payment row already settled with this transaction: this one
    // is a replay of it under another encoding.
    if (paymentId && isUniqueViolation(err)) return { ok: false, reason: "transaction_already_used" };
    throw err;
  }
}

/** The spendable balance of an agent on a network (0 when none); held credit is not spendable. */
export async function readBalance(db: DbClient, agentPubkey: string, network: string): Promise<bigint> {
  const row = await db.balance.findUnique({ where: { agentPubkey_network: { agentPubkey, network } } });
  return row?.units ?? 0n;
}
