// The one error table: stable error codes, their HTTP statuses, and the mapping of any thrown value to a Response.
// Codes are part of the public API (clients branch on them): never rename one once shipped.
import "server-only";
import { isDatabaseUnavailable } from "../db/classify-database-error";
import { loggableError, type Logger } from "../log";

/** One row of the error table: the status, what happened and what the client does next; retired codes are never answered. */
export interface ErrorRow {
  status: number;
  meaning: string;
  retired?: true;
}

/**
 * Every error code, its HTTP status, and what it means to a client. The docs' error table (docs/errors.md) and the
 * OpenAPI document are generated from it.
 */
export const ERRORS = {
  // Generic request problems
  invalid_request: {
    status: 400,
    meaning:
      "The request is malformed (not JSON, a field missing or out of range); `param` names the field. Fix the request; nothing was charged.",
  },
  invalid_json: {
    status: 400,
    meaning: "Retired: a body that is not JSON is `invalid_request` with `param: body`.",
    retired: true,
  },
  not_found: { status: 404, meaning: "No such route or record." },
  method_not_allowed: {
    status: 405,
    meaning: "The path does not serve this method; the `Allow` header lists those it does.",
  },
  streaming_not_supported: {
    status: 400,
    meaning:
      "This route answers in one piece and does not stream (embeddings): send the request without `stream`; nothing was charged.",
  },
  payload_too_large: { status: 413, meaning: "The body is larger than the route accepts; send less." },
  unsupported_media_type: {
    status: 415,
    meaning: "Retired: the body is read as JSON whatever its content type.",
    retired: true,
  },
  rate_limited: { status: 429, meaning: "Too many requests from this client; retry after `Retry-After` seconds." },
  // Payments
  payment_required: {
    status: 402,
    meaning:
      "This route is paid: pay the challenge (x402 v2 in `PAYMENT-REQUIRED`, v1 as the body, with the error's fields beside it rather than under `error`) and retry. A refused payment says why in `reason` (malformed, requirements_mismatch, payment_expired, insufficient_balance, payment_invalid, or its settlement's reason); nothing was charged.",
  },
  payment_invalid: {
    status: 402,
    meaning: "Retired: a refused payment is `payment_required` with a `reason`.",
    retired: true,
  },
  payment_failed: {
    status: 402,
    meaning: "Retired: a payment that failed to settle is `payment_required` with a `reason`.",
    retired: true,
  },
  payment_replay: {
    status: 409,
    meaning:
      "This payment was already used, or is being processed by another request; send a new payment (or retry the same request later).",
  },
  payment_refunded: {
    status: 409,
    meaning:
      "This payment's call could not be recorded, so its price was returned to the payer's prepaid credit on its network (`error.tx_signature` names it); it buys no call and no receipt. Spend the credit with signed requests, or pay again.",
  },
  invalid_payment_id: {
    status: 400,
    meaning: "The payment-identifier extension's id is malformed; nothing was charged.",
  },
  payment_id_conflict: {
    status: 409,
    meaning:
      "The payment id belongs to another payment of this payer; this one was neither settled nor charged. Use a new id.",
  },
  payment_request_mismatch: {
    status: 409,
    meaning:
      "The payment paid for another request (route, body, network, or top-up beneficiary); nothing moved for this one. A retry repeats the paid request exactly.",
  },
  agent_not_allowed: { status: 403, meaning: "Mainnet is allowlisted and this payer is not on the list." },
  mainnet_disabled: { status: 503, meaning: "The operator's mainnet kill switch is off; use a test network, or wait." },
  invalid_network: { status: 400, meaning: "The network name is not one this service knows." },
  network_not_supported: { status: 501, meaning: "This deployment does not offer that network (no RPC configured)." },
  model_not_allowed: {
    status: 400,
    meaning:
      "The model is not offered on this network, or its worst-case cost exceeds the price; GET /api/v1/models lists those offered.",
  },
  model_not_found: { status: 404, meaning: "GET /api/v1/models/{id} for a model this deployment does not offer." },
  // Prepaid credits and signed requests
  missing_auth_headers: { status: 401, meaning: "A prepaid request lacks X-Agent-Pubkey or X-Agent-Signature." },
  invalid_signature: { status: 401, meaning: "The request's (or challenge's) Ed25519 signature does not verify." },
  request_expired: {
    status: 401,
    meaning: "The signed request's timestamp is too far from the service's clock; sign it again.",
  },
  nonce_replay: { status: 409, meaning: "This nonce was already used by this key; sign the request with a new nonce." },
  insufficient_credits: {
    status: 402,
    meaning:
      "The key's prepaid credit cannot cover the call's worst case; top up (POST /api/v1/credits) or claim a grant.",
  },
  // Grants
  grant_already_claimed: { status: 409, meaning: "This wallet already claimed its grant." },
  grant_ip_limit: { status: 429, meaning: "Too many grants from this address; try later." },
  grant_budget_exhausted: { status: 503, meaning: "The operator's grant budget is spent." },
  challenge_expired: {
    status: 401,
    meaning: "The sign-in or grant challenge (or login link) expired or was used; fetch a new one.",
  },
  // Operator surfaces
  unauthorized: { status: 401, meaning: "Sign in as an operator first." },
  forbidden: { status: 403, meaning: "This key is not an operator of this service, or the request crossed origins." },
  // Server side
  upstream_error: {
    status: 502,
    meaning:
      "The model provider failed. Prepaid: nothing was charged. Paid: the payment's credit is kept for a retry of the same request.",
  },
  chain_unavailable: {
    status: 502,
    meaning: "The chain's RPC could not be reached to verify or settle; nothing was charged. Retry later.",
  },
  settlement_pending: {
    status: 502,
    meaning:
      "The payment's transaction was broadcast and its confirmation not seen in time: retry the same request after `Retry-After`; it is then served (landed), refused as 402 (expired or failed: nothing charged), or pending again.",
  },
  upstream_timeout: {
    status: 504,
    meaning: "The model provider did not answer in time; as upstream_error for what was charged.",
  },
  receipt_log_unavailable: {
    status: 503,
    meaning:
      "The call's answer and receipt could not be recorded yet (the database is away). Paid: they are kept, and recorded as soon as it answers: send the same request with the same payment header after `Retry-After` to get the answer with its one receipt (never a second call or charge). Prepaid: an answer not yet sent is not sent and not charged; a streamed one is charged once recorded, its receipt then at `GET /api/v1/receipts/{inference_id}`.",
  },
  call_not_recorded: {
    status: 500,
    meaning:
      "The database refused the call's record for good, so the call has no receipt and is not charged: prepaid, the hold was released; paid, the payment's price was returned to the payer's prepaid credit (a retry of the same payment header answers `payment_refunded`). The operator is alerted.",
  },
  log_pending: {
    status: 409,
    meaning: "The receipt is staged for the log but not yet in a signed checkpoint: ask again after `Retry-After`.",
  },
  server_misconfigured: {
    status: 500,
    meaning: "The deployment is missing a setting this request needs (the message names it); tell the operator.",
  },
  database_unavailable: {
    status: 503,
    meaning:
      "The database could not be reached, dropped the connection mid-call, or was too busy to start the call's transaction in time: retry the same request after `Retry-After`. A paid call's payment header is settled at most once and served once.",
  },
  shutting_down: {
    status: 503,
    meaning: "This instance is draining after a SIGTERM: retry, and another instance answers.",
  },
  internal_error: { status: 500, meaning: "An unexpected failure; the request id finds it in the service's log." },
} as const satisfies Record<string, ErrorRow>;

/** Each code's HTTP status. */
export const ERROR_STATUS = Object.fromEntries(Object.entries(ERRORS).map(([code, row]) => [code, row.status])) as {
  readonly [K in keyof typeof ERRORS]: (typeof ERRORS)[K]["status"];
};

export type ErrorCode = keyof typeof ERRORS;

/** Seconds a client waits before retrying after database_unavailable: a pool reconnects within one, a failover in a few. */
const DATABASE_RETRY_AFTER_S = 2;

/**
 * OpenAI's error `type` for a status: SDKs written for OpenAI show it beside the message. Signet's own stable code is
 * the error's `code`.
 */
function errorType(status: number): string {
  if (status === 401) return "authentication_error";
  if (status === 402) return "payment_required_error";
  if (status === 403) return "permission_error";
  if (status === 429) return "rate_limit_error";
  if (status >= 500) return "server_error";
  return "invalid_request_error";
}

/**
 * An expected failure with a stable code. `message` is safe to show to clients; `details` go into the error object
 * beside OpenAI's fields (on a 400, a `detail` names the request field at fault, and becomes `param`). `challenge` is an
 * x402 v1 challenge (`x402Version`, `accepts`) that a 402's body carries: see `errorBody` for that body's shape.
 */
export class AppError extends Error {
  override name = "AppError";
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
    readonly challenge?: X402V1Challenge,
  ) {
    super(message);
    this.status = ERROR_STATUS[code];
  }
}

function isAppError(err: unknown): err is AppError {
  return err instanceof AppError;
}

/** OpenAI's error object, with Signet's stable code in `code` and any details of the failure beside it. */
interface ErrorObject {
  message: string;
  type: string;
  param: string | null;
  code: ErrorCode;
  [key: string]: unknown;
}

/**
 * Every error body: OpenAI's shape (`{ error: { message, type, param, code } }`), and the request id. A body that carries
 * an x402 v1 challenge is flat instead: the error object's fields sit beside `x402Version` and `accepts`, with no `error`
 * key. x402 v1's schema allows `error` only as one of its reason codes, and the openai SDK reads a body without `error`
 * as the error object itself, so both read the same body (the SDK shows `402 <message>`, with `code` and `type`).
 */
export type ErrorBody =
  { error: ErrorObject; request_id?: string } | (ErrorObject & X402V1Challenge & { request_id?: string });

/** x402 v1's challenge, as a 402's body carries it. */
export interface X402V1Challenge {
  x402Version: 1;
  accepts: unknown[];
}

/** The error object of either body shape. */
export function errorObjectOf(body: ErrorBody): ErrorObject {
  if (!("x402Version" in body)) return body.error;
  const { x402Version: _version, accepts: _accepts, request_id: _id, ...error } = body;
  return error;
}

/** The body for `code`: the error object (message first), the request id, and an x402 v1 challenge when there is one. */
export function errorBody(
  code: ErrorCode,
  message: string,
  details: Record<string, unknown> = {},
  requestId?: string,
  challenge?: X402V1Challenge,
): ErrorBody {
  // A 400's `detail` names the request field at fault; elsewhere it says something else (a facilitator's reason).
  const param = ERRORS[code].status === 400 && typeof details.detail === "string" ? details.detail : null;
  const error: ErrorObject = { message, type: errorType(ERROR_STATUS[code]), param, code, ...details };
  const id = requestId ? { request_id: requestId } : {};
  if (challenge) return { ...error, ...id, ...challenge };
  return { error, ...id };
}

/**
 * The JSON body for an error. Unknown errors become a generic 500: `err.message` never reaches a client; they are logged
 * to `log` (the request's logger, which carries its id).
 */
export function toErrorBody(
  err: unknown,
  log: Logger,
  requestId?: string,
): { status: number; body: ErrorBody; headers: Record<string, string> } {
  if (isAppError(err)) {
    return {
      status: err.status,
      body: errorBody(err.code, err.message, err.details, requestId, err.challenge),
      headers: err.headers,
    };
  }
  if (isDatabaseUnavailable(err)) {
    log.warn({ err: loggableError(err) }, "database unavailable");
    return {
      status: ERROR_STATUS.database_unavailable,
      body: errorBody("database_unavailable", "the database is unavailable; retry the same request", {}, requestId),
      headers: { "retry-after": String(DATABASE_RETRY_AFTER_S) },
    };
  }
  log.error({ err: loggableError(err) }, "unhandled error");
  return { status: 500, body: errorBody("internal_error", "internal error", {}, requestId), headers: {} };
}

/** Maps any thrown value to a JSON Response. */
export function toResponse(err: unknown, log: Logger, requestId?: string): Response {
  const { status, body, headers } = toErrorBody(err, log, requestId);
  return Response.json(body, { status, headers: { ...headers, ...(requestId ? { "x-request-id": requestId } : {}) } });
}
