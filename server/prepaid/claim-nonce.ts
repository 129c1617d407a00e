// Nonces are claimed in the database (a primary key per agent), so a replay is refused across restarts and instances.
import type { DbClient } from "../db";
import { isUniqueViolation } from "../db";
import { AppError } from "../errors";
import { SIGNED_REQUEST_WINDOW_MS } from "./signed-request";

/** Purge about one claim in this many: old nonces are useless once outside the window. */
const PURGE_EVERY = 500;

/** Claims `nonce` for `agent`; a reuse is 409 `nonce_replay`. */
export async function claimNonce(db: DbClient, agentPubkey: string, nonce: string): Promise<void> {
  try {
    await db.requestNonce.create({ data: { agentPubkey, nonce } });
  } catch (err) {
    if (isUniqueViolation(err)) throw new AppError("nonce_replay", "this nonce was already used by this agent");
    throw err;
  }
  if (Math.random() < 1 / PURGE_EVERY) {
    // A nonce older than twice the window can never be replayed into an accepted request.
    await db.requestNonce.deleteMany({ where: { createdAt: { lt: new Date(Date.now() - 2 * SIGNED_REQUEST_WINDOW_MS) } } }).catch(() => undefined);
  }
}
