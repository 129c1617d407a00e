// The paid route's settlement strategy for the shared call pipeline: the call's hold belongs to a settled payment, so a
// call that fails keeps that hold for the payment's one retry (the payment becomes `unserved`), the answer is kept for
// the payer's repeat of the request, and a served call carries the x402 settlement headers and signed receipt.
import "server-only";
import type { Payment } from "../db";
import type { AppContext } from "../app-context";
import { AppError } from "../errors";
import { readBalance } from "../ledger/credit-agent";
import type { CallSettlement, RouteReceipt } from "../pipeline/call-types";
import { formatUnitsAsUsdc } from "../verify";
import type { PaidResource } from "../x402/paid-resources";
import { settlementHeaders } from "../x402/payment-headers";
import type { SettledPayment } from "./paid-request-types";
import { markUnserved } from "./payment-store";
import { releaseIfDatabaseLost } from "./release-after-database-loss";

const RETRY_AFTER = { "Retry-After": "1" };

const KEPT_FOR_RETRY =
  "the payment stays reserved for this call and the same payment header can be sent again once";

/** The settlement of a call served from `payment`'s hold, for the resource it bought (chat unless said). */
export function paidCallSettlement(ctx: Pick<AppContext, "config" | "gateway">, payment: SettledPayment, resource?: PaidResource): CallSettlement {
  const settlement = { transaction: payment.txSignature, network: payment.network, payer: payment.payer };
  return {
    route: "paid",
    leasedPaymentId: payment.id,
    keepsAnswer: () => ctx.config.PAID_ANSWER_RETENTION_HOURS > 0,
    receiptPayment: { amountUnits: payment.units, txSignature: payment.txSignature, network: payment.network, payTo: payment.payTo },
    headers: (extensions) => settlementHeaders({ ...settlement, extensions }),
    afterAnswer: () => issuePaidCallReceipt(ctx, payment, resource),
    async onUpstreamFailure(db, reservation, err) {
      // The payment becomes `unserved` and its hold stays reserved: only a retry with the same header can use it.
      await markUnserved(db, payment.id, err instanceof AppError ? err.code : "upstream_error");
      const balance = await readBalance(db, reservation.agentPubkey, reservation.network);
      return new AppError("upstream_error", `the model provider failed after your payment settled; ${KEPT_FOR_RETRY}`, {
        tx_signature: payment.txSignature,
        balance_usdc: formatUnitsAsUsdc(balance),
        reserved_usdc: formatUnitsAsUsdc(reservation.holdUnits),
      });
    },
    async onNotRecorded(db, reservation) {
      // Each step only moves what is still where this call left it: a capture that did commit after all stays served.
      await markUnserved(db, payment.id, "receipt_log_unavailable").catch((err: unknown) => releaseIfDatabaseLost(db, payment.id, err));
      return new AppError(
        "receipt_log_unavailable",
        `the receipt could not be written to the receipt log, so the answer is not served; ${KEPT_FOR_RETRY}`,
        { tx_signature: payment.txSignature, reserved_usdc: formatUnitsAsUsdc(reservation.holdUnits) },
        RETRY_AFTER,
      );
    },
    onCaptureUndone(reservation, balanceUnits) {
      return new AppError(
        "receipt_log_unavailable",
        `the receipt could not be written to the receipt log, so the answer is not served; ${KEPT_FOR_RETRY}`,
        { tx_signature: payment.txSignature, balance_usdc: formatUnitsAsUsdc(balanceUnits), reserved_usdc: formatUnitsAsUsdc(reservation.holdUnits) },
        RETRY_AFTER,
      );
    },
    onDatabaseLost(db, _reservation, err) {
      releaseIfDatabaseLost(db, payment.id, err);
    },
  };
}

/** The x402 signed receipt of a served paid call: the payment's settlement, for the resource it bought (chat unless said). */
export function issuePaidCallReceipt(ctx: Pick<AppContext, "gateway">, payment: Pick<Payment, "payer" | "network"> & { txSignature: string }, resource: PaidResource = "chat"): Promise<RouteReceipt | null> {
  return ctx.gateway.offerReceipts.issueSettlementReceipt(resource, { payer: payment.payer, network: payment.network, transaction: payment.txSignature });
}
