// Reading the service's error bodies in the browser. Every error is OpenAI's shape,
// `{ error: { message, type, param, code, ...details }, request_id }`: the stable code is `error.code`, and a failure's
// details (`reason`, `retry_after`, `balance_usdc`…) sit beside it inside `error`. Browser-safe (no imports).

export interface ServiceError {
  /** The stable code ("" when the body is not an error body). */
  code: string;
  /** The message, safe to show ("" when absent). */
  message: string;
  /** The whole error object, for the details of a failure. */
  fields: Record<string, unknown>;
}

/** The error of a parsed response body; empty fields for a body that is not an error body. */
export function serviceError(body: unknown): ServiceError {
  const error = typeof body === "object" && body !== null ? (body as { error?: unknown }).error : undefined;
  const fields =
    typeof error === "object" && error !== null && !Array.isArray(error) ? (error as Record<string, unknown>) : {};
  return {
    code: typeof fields.code === "string" ? fields.code : "",
    message: typeof fields.message === "string" ? fields.message : "",
    fields,
  };
}
