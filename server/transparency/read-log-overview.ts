// The public receipt log as its page (/log) shows it to a person: its size, the latest signed checkpoint (the note,
// and the origin, size and root it states), the witnesses whose cosignatures the log holds for it, the log's published
// key, and the newest entries (index, inference id, when logged). Only what the log's routes already publish; the page
// checks the checkpoint's signature in the reader's browser.
import "server-only";
import type { DbClient } from "../db";
import { encodeBase64, parseCheckpointText, parseSignedNote } from "../verify";
import type { LogIdentity } from "../keys/log-key";
import { readLatestCheckpoint } from "./publish-log";
import { logKeyResource } from "./read-log";

/** How many of the newest entries the page lists by default: one screen. */
const RECENT_LOG_ENTRIES = 20;
/** The most entries one read lists: the page is a summary; the tiles serve the whole log. */
const MAX_RECENT_LOG_ENTRIES = 100;

export interface LogOverview {
  /** Receipts in the log: the latest signed checkpoint's tree size. */
  size: number;
  checkpoint: {
    /** The signed note as `GET /log/checkpoint` serves it, cosignature lines included. */
    note: string;
    origin: string;
    /** The root hash, base64, as the note writes it. */
    root: string;
    /** The witnesses whose cosignatures of this checkpoint the log accepted and publishes. */
    cosignedBy: string[];
  };
  key: ReturnType<typeof logKeyResource>;
  /** The newest entries in the checkpoint, newest first. */
  recent: { index: number; inferenceId: string; loggedAtMs: number }[];
}

/** The log's overview, with up to `limit` (1–100) of its newest entries. */
export async function readLogOverview(
  db: DbClient,
  id: LogIdentity,
  limit: number = RECENT_LOG_ENTRIES,
): Promise<LogOverview> {
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_RECENT_LOG_ENTRIES)
    throw new RangeError(`limit must be a whole number from 1 to ${MAX_RECENT_LOG_ENTRIES}, got ${limit}`);
  const latest = await readLatestCheckpoint(db, id);
  const note = parseSignedNote(latest.note);
  const stated = note ? parseCheckpointText(note.text) : null;
  if (!stated) throw new Error(`log: the stored checkpoint of size ${latest.size} is not a checkpoint note`);
  const [cosignatures, entries] = await Promise.all([
    db.logCosignature.findMany({
      where: { size: BigInt(latest.size) },
      select: { witness: true },
      orderBy: { witness: "asc" },
    }),
    // Only what the checkpoint covers: a sequencer round that committed since it was read is not published yet.
    db.logEntry.findMany({
      where: { idx: { lt: BigInt(latest.size) } },
      orderBy: { idx: "desc" },
      take: limit,
      select: { idx: true, inferenceId: true, loggedAt: true },
    }),
  ]);
  return {
    size: latest.size,
    checkpoint: {
      note: latest.note,
      origin: stated.origin,
      root: encodeBase64(stated.root),
      cosignedBy: cosignatures.map((c) => c.witness),
    },
    key: logKeyResource(id),
    recent: entries.map((e) => ({
      index: Number(e.idx),
      inferenceId: e.inferenceId,
      loggedAtMs: e.loggedAt.getTime(),
    })),
  };
}
