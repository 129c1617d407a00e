// The prepaid route's settlement strategy for the shared call pipeline: the call's hold is the agent's own credit, so
// a call that is not served, or whose answer nobody got, releases it whole (nothing is charged); the answer carries no
// payment and is not kept.
import "server-only";
import { whenDatabaseBack } from "../db/when-database-back";
import { AppError } from "../errors";
import { readBalance } from "../ledger/credit-agent";
import { releaseHold } from "../ledger/credit-holds";
import type { CallSettlement } from "../pipeline/call-types";
import { formatUnitsAsUsdc } from "../verify";

const RETRY_AFTER = { "Retry-After": "1" };

/** The settlement of every prepaid call: holds released on failure, no payment, no kept answer. */
export const PREPAID_CALL_SETTLEMENT: CallSettlement = {
  route: "prepaid",
  leasedPayment: null,
  keepsAnswer: () => false,
  receiptPayment: null,
  headers: () => ({}),
  routeReceipt: async () => null,
  async onUpstreamFailure(db, reservation) {
    const balance = await releaseHold(db, reservation.holdId);
    return new AppError("upstream_error", "the model provider failed; the hold was released and nothing was charged", {
      balance_usdc: formatUnitsAsUsdc(balance ?? (await readBalance(db, reservation.agentPubkey, reservation.network))),
    });
  },
  onDatabaseLost(ctx, reservation, err) {
    // Nothing was charged: a capture that did commit left no `held` hold to release.
    whenDatabaseBack(
      ctx,
      err,
      { event: "call.hold_released_after_database_loss", fields: { inference_id: reservation.holdId } },
      () => releaseHold(ctx.db, reservation.holdId),
    );
  },
  giveBack: (db, reservation) => releaseHold(db, reservation.holdId),
  recordPending(reservation, how) {
    const receiptAt = `GET /api/v1/receipts/${reservation.holdId}`;
    if (how.delivered) {
      return new AppError(
        "receipt_log_unavailable",
        `the answer was sent, but its receipt could not be recorded yet; it is charged once it is, and its receipt will be at ${receiptAt}`,
        { inference_id: reservation.holdId },
        RETRY_AFTER,
      );
    }
    if (how.balanceUnits !== null) {
      return new AppError(
        "receipt_log_unavailable",
        "the answer could not be recorded, so it is not sent; its hold was released and nothing was charged",
        { inference_id: reservation.holdId, balance_usdc: formatUnitsAsUsdc(how.balanceUnits) },
        RETRY_AFTER,
      );
    }
    return new AppError(
      "receipt_log_unavailable",
      `the answer could not be recorded, so it is not sent; its hold is released as soon as the database answers and nothing is charged, unless its record reached the database before the connection broke: then it was charged, and its receipt is at ${receiptAt}`,
      { inference_id: reservation.holdId },
      RETRY_AFTER,
    );
  },
  recordRefused(reservation, balanceUnits) {
    return new AppError(
      "call_not_recorded",
      "the database refused this call's record, so it has no receipt and nothing was charged; the hold was released",
      {
        inference_id: reservation.holdId,
        ...(balanceUnits !== null ? { balance_usdc: formatUnitsAsUsdc(balanceUnits) } : {}),
      },
    );
  },
};
