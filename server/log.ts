// Structured JSON logs (pino). Operator-facing events are logged with an `event` field. A runtime's logger is made
// from its config (createLogger); `log` is the default logger for code that runs before or without a runtime, at the
// level the last runtime was made with.
import "server-only";
import pino from "pino";

/** A logger at `level`. */
export function createLogger(level: pino.LevelWithSilent): pino.Logger {
  return pino({ level, base: { service: "signet" }, timestamp: pino.stdTimeFunctions.isoTime });
}

/** The default logger: info until a runtime sets its config's level (setDefaultLogLevel). */
export const log: pino.Logger = createLogger("info");

/** Sets the default logger's level: a runtime does, from its config's LOG_LEVEL. */
export function setDefaultLogLevel(level: pino.LevelWithSilent): void {
  // Setting a level rebinds pino's level methods: only a change does it.
  if (log.level !== level) log.level = level;
}

/** A logger: the runtime's (ctx.log), or a child of it carrying a request's id. */
export type Logger = pino.Logger;

/** Logs one operator-facing event (`chat.settle_ok`, `agent.not_allowed`, …) with its fields on `logger`. */
export function logEvent(logger: Logger, event: string, fields?: Record<string, unknown>, level?: pino.Level): void;
/** @deprecated the default logger's: pass the runtime's logger instead. */
export function logEvent(event: string, fields?: Record<string, unknown>, level?: pino.Level): void;
export function logEvent(...args: [Logger, string, Record<string, unknown>?, pino.Level?] | [string, Record<string, unknown>?, pino.Level?]): void {
  const [logger, event, fields = {}, level = "info"] = typeof args[0] === "string" ? [log, ...(args as [string, Record<string, unknown>?, pino.Level?])] : (args as [Logger, string, Record<string, unknown>?, pino.Level?]);
  logger[level]({ event, ...fields }, event);
}

/**
 * An error as pino can log it. pino's `err` serializer tags the object it walks, so a frozen error (kit's RPC errors
 * are frozen) would make the logging call itself throw; such an error is logged as a plain copy.
 */
export function loggableError(err: unknown): unknown {
  return err instanceof Error && !Object.isExtensible(err) ? { type: err.name, message: err.message, stack: err.stack } : err;
}
