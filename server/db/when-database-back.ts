// Work that must reach the database after a request stopped because the database went away: it runs in the background
// as soon as the database answers again, tried for a bounded time, and never throws.
import "server-only";
import { logEvent, type Logger } from "../log";
import type { Clock } from "../clock";
import { isDatabaseUnavailable } from "./classify-database-error";

/** How often, and for how long, the work is tried while the database stays away. */
export const RETRY_EVERY_MS = 500;
const GIVE_UP_AFTER_MS = 60_000;

/**
 * When `err` is a lost database, runs `work` once the database answers again (in the background). Any other error
 * runs nothing: the request's usual path owns it. `what` names the work in `deps.log`; `deps.clock` times the retries.
 */
export function whenDatabaseBack(
  deps: { clock: Clock; log: Logger },
  err: unknown,
  what: { event: string; fields: Record<string, unknown> },
  work: () => Promise<unknown>,
): void {
  if (!isDatabaseUnavailable(err)) return;
  const deadline = deps.clock.monotonic() + GIVE_UP_AFTER_MS;
  const attempt = (): void => {
    work().then(
      () => logEvent(deps.log, what.event, what.fields, "warn"),
      (failed: unknown) => {
        if (deps.clock.monotonic() < deadline)
          return void deps.clock.sleep(RETRY_EVERY_MS, { unref: true }).then(attempt);
        logEvent(deps.log, `${what.event}_failed`, { ...what.fields, reason: String(failed).slice(0, 200) }, "error");
      },
    );
  };
  void deps.clock.sleep(RETRY_EVERY_MS, { unref: true }).then(attempt);
}
