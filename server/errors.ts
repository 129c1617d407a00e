// The one error table: stable error codes, their HTTP statuses, and the mapping of any thrown value to a Response.
// Codes are part of the public API (clients branch on them): never rename one once shipped.
import "server-only";
import { isDatabaseUnavailable } from "./db/is-database-unavailable";
import { log, loggableError } from "./log";

export const ERROR_STATUS = {
  // Generic request problems
  invalid_request: 400,
  invalid_json: 400,
  not_found: 404,
  method_not_allowed: 405,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  // Payments
  // Every 402 of a paid route is payment_required with the challenge; why a payment was refused is its `reason`.
  payment_required: 402,
  // Retired: no answer carries these any more. Kept so the table (and old clients reading it) still knows them.
  payment_invalid: 402,
  payment_failed: 402,
  payment_replay: 409,
  // x402 payment-identifier: the id in the payment payload is malformed (400); or it already belongs to another
  // payment of the same payer (409), and this one was neither settled nor charged.
  invalid_payment_id: 400,
  payment_id_conflict: 409,
  // The payment paid for another request (route, body, network, or top-up beneficiary): nothing moved for this one.
  payment_request_mismatch: 409,
  agent_not_allowed: 403,
  mainnet_disabled: 503,
  invalid_network: 400,
  network_not_supported: 501,
  model_not_allowed: 400,
  // GET /api/v1/models/{id} for a model this deployment does not offer (OpenAI's models.retrieve answers it 404).
  model_not_found: 404,
  // Prepaid credits and signed requests
  missing_auth_headers: 401,
  invalid_signature: 401,
  request_expired: 401,
  nonce_replay: 409,
  insufficient_credits: 402,
  // Grants
  grant_already_claimed: 409,
  grant_ip_limit: 429,
  grant_budget_exhausted: 503,
  challenge_expired: 401,
  // Operator surfaces
  unauthorized: 401,
  forbidden: 403,
  // Server side
  upstream_error: 502,
  chain_unavailable: 502,
  // The payment's transaction was broadcast and its confirmation not seen in time: retry the same request after
  // Retry-After; it is then served (landed), refused as 402 (expired or failed: nothing charged), or pending again.
  settlement_pending: 502,
  upstream_timeout: 504,
  // The receipt could not be written to the receipt log, so the answer was not served: nothing was charged (prepaid),
  // or the payment stays reserved for a retry with the same header (paid). Retry after Retry-After.
  receipt_log_unavailable: 503,
  // The receipt is staged for the log but not yet in a signed checkpoint: ask again after Retry-After.
  log_pending: 409,
  server_misconfigured: 500,
  // The database could not be reached, or dropped the connection mid-call (a failover, a restart): retry the same
  // request after Retry-After; a paid call's same payment header is settled at most once and served once (a call cut
  // off mid-way hands its payment back once the database answers again; until then, payment_replay, being processed).
  database_unavailable: 503,
  // The instance is draining after a SIGTERM (the front server answers it, bin/serve-next.ts): retry on another one.
  shutting_down: 503,
  internal_error: 500,
} as const satisfies Record<string, number>;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** Seconds a client waits before retrying after database_unavailable: a pool reconnects within one, a failover in a few. */
const DATABASE_RETRY_AFTER_S = 2;

/**
 * OpenAI's error `type` for a status: SDKs written for OpenAI show it beside the message. Signet's own stable code is
 * the error's `code`.
 */
export function errorType(status: number): string {
  if (status === 401) return "authentication_error";
  if (status === 402) return "payment_required_error";
  if (status === 403) return "permission_error";
  if (status === 429) return "rate_limit_error";
  if (status >= 500) return "server_error";
  return "invalid_request_error";
}

/**
 * An expected failure with a stable code. `message` is safe to show to clients; `details` go into the error object
 * beside OpenAI's fields (a `detail` names the request field at fault, and becomes `param`); `topLevel` fields sit
 * beside `error` in the body, for protocols that read them there (x402 v1's `x402Version` and `accepts` on a 402).
 */
export class AppError extends Error {
  override name = "AppError";
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
    readonly topLevel: Record<string, unknown> = {},
  ) {
    super(message);
    this.status = ERROR_STATUS[code];
  }
}

export function isAppError(err: unknown): err is AppError {
  return err instanceof AppError;
}

/** OpenAI's error object, with Signet's stable code in `code` and any details of the failure beside it. */
export interface ErrorObject {
  message: string;
  type: string;
  param: string | null;
  code: ErrorCode;
  [key: string]: unknown;
}

/** Every error body: OpenAI's shape (`{ error: { message, type, param, code } }`), and the request id. */
export interface ErrorBody {
  error: ErrorObject;
  request_id?: string;
  [key: string]: unknown;
}

/** The body for `code`: `error` first (message first within it), the request id, then any protocol fields. */
export function errorBody(code: ErrorCode, message: string, details: Record<string, unknown> = {}, requestId?: string, topLevel: Record<string, unknown> = {}): ErrorBody {
  const param = typeof details.detail === "string" ? details.detail : null;
  return {
    error: { message, type: errorType(ERROR_STATUS[code]), param, code, ...details },
    ...(requestId ? { request_id: requestId } : {}),
    ...topLevel,
  };
}

/** The JSON body for an error. Unknown errors become a generic 500: `err.message` never reaches a client. */
export function toErrorBody(err: unknown, requestId?: string): { status: number; body: ErrorBody; headers: Record<string, string> } {
  if (isAppError(err)) {
    return { status: err.status, body: errorBody(err.code, err.message, err.details, requestId, err.topLevel), headers: err.headers };
  }
  if (isDatabaseUnavailable(err)) {
    log.warn({ err: loggableError(err), request_id: requestId }, "database unavailable");
    return {
      status: ERROR_STATUS.database_unavailable,
      body: errorBody("database_unavailable", "the database is unavailable; retry the same request", {}, requestId),
      headers: { "retry-after": String(DATABASE_RETRY_AFTER_S) },
    };
  }
  log.error({ err: loggableError(err), request_id: requestId }, "unhandled error");
  return { status: 500, body: errorBody("internal_error", "internal error", {}, requestId), headers: {} };
}

/** Maps any thrown value to a JSON Response. */
export function toResponse(err: unknown, requestId?: string): Response {
  const { status, body, headers } = toErrorBody(err, requestId);
  return Response.json(body, { status, headers: { ...headers, ...(requestId ? { "x-request-id": requestId } : {}) } });
}
