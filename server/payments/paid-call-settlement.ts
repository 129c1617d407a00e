// The paid route's settlement strategy for the shared call pipeline: the call's hold belongs to a settled payment, so a
// call whose upstream fails keeps that hold for the payment's one retry (the payment becomes `unserved`), the answer is
// kept for the payer's repeat of the request (with the x402 receipt first issued for it), and a call whose record the
// database refuses for good is refunded to the payer's credit (the payment ends `refunded`).
import "server-only";
import type { Payment } from "../db";
import type { AppContext } from "../context/app-context";
import { AppError } from "../errors";
import { readBalance } from "../ledger/credit-agent";
import { refundHold } from "../ledger/credit-holds";
import type { CallSettlement, RouteReceipt } from "../pipeline/call-types";
import { formatUnitsAsUsdc } from "../verify";
import type { PaidRoute } from "../x402/paid-routes";
import { settlementHeaders } from "../x402/payment-headers";
import type { SettledPayment } from "./paid-request-types";
import { markUnserved } from "./payment-store";
import { movesOf } from "../ledger/payment-transition";
import { releaseIfDatabaseLost } from "./release-after-database-loss";

const RETRY_AFTER = { "Retry-After": "1" };

/** Why a refunded payment was refunded: the database refused its call's record. */
const RECORD_REFUSED = "record_refused";

/** The settlement of a call served from `payment`'s hold, for the resource it bought (chat unless said). */
export function paidCallSettlement(
  ctx: Pick<AppContext, "config" | "gateway">,
  payment: SettledPayment,
  resource?: PaidRoute,
): CallSettlement {
  const settlement = { transaction: payment.txSignature, network: payment.network, payer: payment.payer };
  const held = { id: payment.id, attempt: payment.attempt };
  return {
    route: "paid",
    leasedPayment: held,
    keepsAnswer: () => ctx.config.PAID_ANSWER_RETENTION_HOURS > 0,
    receiptPayment: {
      amountUnits: payment.units,
      txSignature: payment.txSignature,
      network: payment.network,
      payTo: payment.payTo,
    },
    headers: (extensions) => settlementHeaders({ ...settlement, extensions }),
    routeReceipt: () => issuePaidCallReceipt(ctx, payment, resource),
    async onUpstreamFailure(db, reservation, err) {
      // The payment becomes `unserved` and its hold stays reserved: only a retry with the same header can use it.
      await markUnserved(
        db,
        held,
        movesOf({ type: "upstream-failed" }),
        err instanceof AppError ? err.code : "upstream_error",
      );
      const balance = await readBalance(db, reservation.agentPubkey, reservation.network);
      return new AppError(
        "upstream_error",
        "the model provider failed after your payment settled; the payment stays reserved for this call and the same payment header can be sent again once",
        {
          tx_signature: payment.txSignature,
          balance_usdc: formatUnitsAsUsdc(balance),
          reserved_usdc: formatUnitsAsUsdc(reservation.holdUnits),
        },
      );
    },
    onDatabaseLost(ctx, _reservation, err) {
      releaseIfDatabaseLost(ctx, held, err);
    },
    giveBack: (db, reservation) => refundHold(db, reservation.holdId, RECORD_REFUSED),
    recordPending(reservation, how) {
      const details = { tx_signature: payment.txSignature, inference_id: reservation.holdId };
      if (!how.kept) {
        const returned = how.balanceUnits !== null ? "was returned" : "is returned as soon as the database answers";
        return new AppError(
          "receipt_log_unavailable",
          `the answer could not be recorded, so it is not sent and has no receipt; the payment's price ${returned} to the payer's prepaid credit on this network, and the same payment header says so`,
          { ...details, ...(how.balanceUnits !== null ? { balance_usdc: formatUnitsAsUsdc(how.balanceUnits) } : {}) },
          RETRY_AFTER,
        );
      }
      const answer = how.delivered
        ? "the answer was sent, but its receipt could not be recorded yet"
        : "the answer could not be recorded yet, so it is not sent now";
      return new AppError(
        "receipt_log_unavailable",
        `${answer}; it is kept and recorded as soon as the database answers: send the same request with the same payment header again to get the answer with its receipt (never a second call or charge)`,
        details,
        RETRY_AFTER,
      );
    },
    recordRefused(reservation, balanceUnits) {
      return new AppError(
        "call_not_recorded",
        "the database refused this call's record, so it has no receipt; the payment's price was returned to the payer's prepaid credit on this network (spend it with signed requests on /api/v1/inference)",
        {
          tx_signature: payment.txSignature,
          inference_id: reservation.holdId,
          refunded_usdc: formatUnitsAsUsdc(payment.units),
          ...(balanceUnits !== null ? { balance_usdc: formatUnitsAsUsdc(balanceUnits) } : {}),
        },
      );
    },
  };
}

/** The x402 signed receipt of a paid call: the payment's settlement, for the resource it bought (chat unless said). */
function issuePaidCallReceipt(
  ctx: Pick<AppContext, "gateway">,
  payment: Pick<Payment, "payer" | "network"> & { txSignature: string },
  resource: PaidRoute = "chat",
): Promise<RouteReceipt | null> {
  return ctx.gateway.offerReceipts.issueSettlementReceipt(resource, {
    payer: payment.payer,
    network: payment.network,
    transaction: payment.txSignature,
  });
}
