// The prepaid route's settlement strategy for the shared call pipeline: the call's hold is the agent's own credit, so
// a call that is not served releases it whole (nothing is charged), and the answer carries no payment and is not kept.
import "server-only";
import { whenDatabaseBack } from "../db/when-database-back";
import { AppError } from "../errors";
import { readBalance } from "../ledger/credit-agent";
import { releaseHold } from "../ledger/credit-holds";
import type { CallSettlement } from "../pipeline/call-types";
import { formatUnitsAsUsdc } from "../verify";

const RETRY_AFTER = { "Retry-After": "1" };

const NOT_LOGGED = "the receipt could not be written to the receipt log, so the answer is not served; the hold was released and nothing was charged";

/** The settlement of every prepaid call: holds released on failure, no payment, no kept answer. */
export const PREPAID_CALL_SETTLEMENT: CallSettlement = {
  route: "prepaid",
  leasedPaymentId: null,
  keepsAnswer: () => false,
  receiptPayment: null,
  headers: () => ({}),
  afterAnswer: async () => null,
  async onUpstreamFailure(db, reservation) {
    const balance = await releaseHold(db, reservation.holdId);
    return new AppError("upstream_error", "the model provider failed; the hold was released and nothing was charged", {
      balance_usdc: formatUnitsAsUsdc(balance ?? (await readBalance(db, reservation.agentPubkey, reservation.network))),
    });
  },
  async onNotRecorded(db, reservation) {
    const balance = await releaseHold(db, reservation.holdId).catch(() => null);
    return new AppError("receipt_log_unavailable", NOT_LOGGED, balance === null ? {} : { balance_usdc: formatUnitsAsUsdc(balance) }, RETRY_AFTER);
  },
  onCaptureUndone(_reservation, balanceUnits) {
    return new AppError("receipt_log_unavailable", NOT_LOGGED, { balance_usdc: formatUnitsAsUsdc(balanceUnits) }, RETRY_AFTER);
  },
  onDatabaseLost(db, reservation, err) {
    // Nothing was charged: a capture that did commit left no `held` hold to release.
    whenDatabaseBack(err, { event: "call.hold_released_after_database_loss", fields: { inference_id: reservation.holdId } }, () => releaseHold(db, reservation.holdId));
  },
};
