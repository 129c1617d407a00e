// Structured JSON logs (pino). Operator-facing events are logged with an `event` field. Helpers only, no logger
// instance: a runtime's logger is made from its config (createLogger) and passed down as ctx.log (per request, a child
// carrying the request id); code that runs before or without a runtime makes its own or is given one.
import "server-only";
import pino from "pino";

/** A logger at `level`. */
export function createLogger(level: pino.LevelWithSilent): pino.Logger {
  return pino({ level, base: { service: "signet" }, timestamp: pino.stdTimeFunctions.isoTime });
}

/** A logger: the runtime's (ctx.log), or a child of it carrying a request's id. */
export type Logger = pino.Logger;

/** Logs one operator-facing event (`chat.settle_ok`, `agent.not_allowed`, …) with its fields on `logger`. */
export function logEvent(
  logger: Logger,
  event: string,
  fields: Record<string, unknown> = {},
  level: pino.Level = "info",
): void {
  logger[level]({ event, ...fields }, event);
}

/**
 * An error as pino can log it. pino's `err` serializer tags the object it walks, so a frozen error (kit's RPC errors
 * are frozen) would make the logging call itself throw; such an error is logged as a plain copy.
 */
export function loggableError(err: unknown): unknown {
  return err instanceof Error && !Object.isExtensible(err)
    ? { type: err.name, message: err.message, stack: err.stack }
    : err;
}
