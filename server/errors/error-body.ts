// Reading the service's error bodies, in the browser and in Node. Every error is OpenAI's shape,
// `{ error: { message, type, param, code, ...details }, request_id }`: the stable code is `error.code`, and a failure's
// details (`reason`, `retry_after`, `balance_usdc`…) sit beside it inside `error`. A paid route's 402 is flat instead: the
// same fields beside x402 v1's `x402Version` and `accepts`, with no `error` key. Browser-safe (no imports).

export interface ServiceError {
  /** The stable code ("" when the body is not an error body). */
  code: string;
  /** The message, safe to show ("" when absent). */
  message: string;
  /** The whole error object, for the details of a failure. */
  fields: Record<string, unknown>;
}

/** The error of a parsed response body, in either shape; empty fields for a body that is not an error body. */
export function serviceError(body: unknown): ServiceError {
  const fields = errorFields(body);
  return {
    code: typeof fields.code === "string" ? fields.code : "",
    message: typeof fields.message === "string" ? fields.message : "",
    fields,
  };
}

function errorFields(body: unknown): Record<string, unknown> {
  if (!isRecord(body)) return {};
  if (isRecord(body.error)) return body.error;
  if (body.error !== undefined || typeof body.x402Version !== "number") return {};
  const { x402Version: _version, accepts: _accepts, request_id: _id, ...fields } = body;
  return fields;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
