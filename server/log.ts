// Structured JSON logs (pino). Operator-facing events are logged with an `event` field.
import "server-only";
import pino from "pino";

const globalForLog = globalThis as unknown as { signetLog?: pino.Logger };

function createLogger(): pino.Logger {
  const level = process.env.LOG_LEVEL ?? (process.env.NODE_ENV === "test" ? "silent" : "info");
  return pino({ level, base: { service: "signet" }, timestamp: pino.stdTimeFunctions.isoTime });
}

/** The shared logger. */
export const log: pino.Logger = (globalForLog.signetLog ??= createLogger());

/** Logs one operator-facing event (`chat.settle_ok`, `agent.not_allowed`, …) with its fields. */
export function logEvent(event: string, fields: Record<string, unknown> = {}, level: pino.Level = "info"): void {
  log[level]({ event, ...fields }, event);
}

/**
 * An error as pino can log it. pino's `err` serializer tags the object it walks, so a frozen error (kit's RPC errors
 * are frozen) would make the logging call itself throw; such an error is logged as a plain copy.
 */
export function loggableError(err: unknown): unknown {
  return err instanceof Error && !Object.isExtensible(err) ? { type: err.name, message: err.message, stack: err.stack } : err;
}
