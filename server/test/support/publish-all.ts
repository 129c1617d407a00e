// Publishes every staged receipt into the log, for a test that then reads the log whole. Another sequencer (the
// service's own background round) may hold the sequencer's lock at that moment: a round that finds it taken waits for
// that holder's transaction to end, by taking the same lock, and tries again.
import type { DbClient } from "../../db";
import type { Logger } from "../../log";
import type { LogIdentity } from "../../keys/log-key";
import { LOG_SEQUENCER_LOCK_KEY, publishLog } from "../../transparency/publish-log";

/** Rounds before giving up: a log that refuses to sign (its key's continuity broken) never empties its staging. */
const MAX_ROUNDS = 1_000;

export async function publishAll(db: DbClient, id: LogIdentity, log: Logger): Promise<void> {
  for (let round = 0; round < MAX_ROUNDS; round++) {
    if (await publishLog(db, id, log)) continue;
    const [staged] = await db.$queryRaw<{ any: boolean }[]>`SELECT EXISTS (SELECT 1 FROM log_staging) AS any`;
    if (!staged?.any) return;
    await db.$transaction(async (tx) => {
      await tx.$queryRaw`SELECT pg_advisory_xact_lock(${LOG_SEQUENCER_LOCK_KEY})`;
    });
  }
  throw new Error(`receipts still staged after ${MAX_ROUNDS} rounds: the log refuses to publish them`);
}
