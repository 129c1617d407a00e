// The client's payment id: the x402 `payment-identifier` extension (@x402/extensions), an idempotency key the client
// chooses and sends inside its payment payload (`extensions["payment-identifier"].info.id`). Read here, once, from the
// decoded payload, with the package's own checks.
import "server-only";
import type { PaymentPayload } from "@x402/core/types";
import {
  declarePaymentIdentifierExtension,
  isPaymentIdentifierExtension,
  isValidPaymentId,
  PAYMENT_ID_MAX_LENGTH,
  PAYMENT_ID_MIN_LENGTH,
  PAYMENT_IDENTIFIER,
  type PaymentIdentifierExtension,
} from "@x402/extensions/payment-identifier";

/** What every 402 declares: payment ids are accepted, never required (the payment itself is the idempotency key). */
export const PAYMENT_IDENTIFIER_DECLARATION: PaymentIdentifierExtension = declarePaymentIdentifierExtension(false);

/** Why a payment id was refused: a stable value for the 400's `reason`. */
type PaymentIdRefusal = "malformed_extension" | "malformed_id";

export type ReadPaymentId = { ok: true; id: string | null } | { ok: false; reason: PaymentIdRefusal; detail: string };

/**
 * The payload's payment id: null when it carries none (a stock client echoes the declaration without an id), else a
 * valid id, else why not. The declared JSON schema is not compiled per request: `isValidPaymentId` checks exactly what
 * it states (16–128 of `[A-Za-z0-9_-]`). Never throws.
 */
export function readPaymentId(payload: PaymentPayload): ReadPaymentId {
  const extensions: unknown = payload.extensions;
  if (extensions === undefined || extensions === null) return { ok: true, id: null };
  if (typeof extensions !== "object" || Array.isArray(extensions))
    return { ok: false, reason: "malformed_extension", detail: "extensions must be an object" };
  const extension = (extensions as Record<string, unknown>)[PAYMENT_IDENTIFIER];
  if (extension === undefined) return { ok: true, id: null };
  if (!isPaymentIdentifierExtension(extension)) {
    return {
      ok: false,
      reason: "malformed_extension",
      detail: `extensions.${PAYMENT_IDENTIFIER} must be { info: { required: boolean, id?: string } }`,
    };
  }
  const id: unknown = (extension.info as { id?: unknown }).id;
  if (id === undefined) return { ok: true, id: null };
  if (typeof id !== "string" || !isValidPaymentId(id)) {
    return {
      ok: false,
      reason: "malformed_id",
      detail: `the payment id must be ${PAYMENT_ID_MIN_LENGTH}-${PAYMENT_ID_MAX_LENGTH} characters of A-Z, a-z, 0-9, _ and -`,
    };
  }
  return { ok: true, id };
}
