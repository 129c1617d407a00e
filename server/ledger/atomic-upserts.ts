// Race-free upserts for rows that concurrent calls of one agent create together. Prisma's `upsert` reads, then
// inserts, so two first calls of one agent at once fail with a unique violation (it took 500s under the bench's
// concurrency, issue #7). PostgreSQL's INSERT … ON CONFLICT does it in one atomic statement.
import type { DbTransaction } from "../db";

/** Makes sure the agent row exists. */
export async function ensureAgent(tx: DbTransaction, pubkey: string): Promise<void> {
  await tx.$executeRaw`INSERT INTO "agents" ("pubkey") VALUES (${pubkey}) ON CONFLICT ("pubkey") DO NOTHING`;
}
