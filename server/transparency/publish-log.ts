// The log's sequencer and checkpoint signer. Why this design: a served call only appends its inference id to
// log_staging, in the statement that stores the receipt, which takes no lock shared with other calls. A single counter
// row bumped by that statement (`UPDATE log_head SET size = size + 1`) would also give dense indices, but it holds one
// row lock from the bump to the commit's WAL flush, so every call on every instance queues behind the one before:
// measured on this machine at 8 concurrent appends, p50 1.6–4.4 ms and ~1,200–3,500 appends/s for the counter against
// 0.6–1.5 ms and ~3,900–10,700/s for the staging insert (`npm run bench:log`). A sequence has gaps on rollback.
//
// The staged row is only the inference id: the entry (docs/log.md) is encoded here from the stored receipt, which is
// what the operator signed, so a call writes no second copy of it.
//
// So one sequencer at a time (pg_try_advisory_xact_lock: whichever instance gets it; a crash releases it with its
// transaction) runs every LOG_PUBLISH_INTERVAL_MS, and in ONE transaction: reads a batch of staged receipts (in the
// order their calls were logged), gives them the next dense indices, stores their entries and every perfect subtree
// they complete, deletes them from staging, and signs one checkpoint for the new size (one signature per checkpoint
// and log key, not per receipt: two during a log key rotation, see log-key.ts; and only when the log key or the
// previous one signed the latest checkpoint, see log-key-continuity.ts). The order is
// total because exactly one transaction extends the tree at a time; a rollback leaves no trace; the primary key on
// the index and the unique inference id make a second sequencer (or a bug) fail rather than fork the tree.
import "server-only";
import { createHash } from "node:crypto";
import type { DbClient, DbTransaction } from "../db";
import { signEd25519, verifyEd25519Node } from "../keys/node-ed25519";
import { logEvent, type Logger } from "../log";
import {
  EMPTY_ROOT,
  encodeReceiptEntry,
  formatCheckpointText,
  formatSignatureLine,
  newSubtrees,
  parseCheckpointText,
  parseSignedNote,
  TILE_HEIGHT,
  treeHash,
} from "../verify";
import { logSigners, type LogIdentity, type LogSigner } from "../keys/log-key";
import { checkLogKeyContinuity, type LogKeyContinuity } from "./log-key-continuity";
import type { ServiceKeys } from "../keys/service-keys";
import { readCheckpoint, storedHashReader, type StoredCheckpoint } from "./read-log";

/** Arbitrary constant key for pg_try_advisory_xact_lock: one sequencer at a time across instances. */
export const LOG_SEQUENCER_LOCK_KEY = 72_910_518;
/** Staged receipts sequenced per transaction: bounds the transaction's size; a full batch runs the next at once. */
const LOG_BATCH = 4_096;

const sha256 = (data: Uint8Array) => new Uint8Array(createHash("sha256").update(data).digest());
const leafHashNode = (entry: Uint8Array) => sha256(Buffer.concat([Buffer.from([0]), entry]));
const nodeHashNode = (l: Uint8Array, r: Uint8Array) => sha256(Buffer.concat([Buffer.from([1]), l, r]));

export interface PublishedCheckpoint {
  size: number;
  /** How many staged receipts this round sequenced. */
  appended: number;
  note: string;
}

/** The signature line of `signer` over a checkpoint's note `text`, under the log's origin. */
function signatureLine(origin: string, signer: LogSigner, text: string): string {
  return formatSignatureLine(origin, signer.keyId, signEd25519(new TextEncoder().encode(text), signer.keypair.seed));
}

/** Signs the checkpoint note for (size, root) with the log key, and with the previous key during a key rotation. */
export function signCheckpoint(id: LogIdentity, size: number, root: Uint8Array): string {
  const text = formatCheckpointText({ origin: id.origin, size, root });
  return `${text}\n${logSigners(id)
    .map((signer) => signatureLine(id.origin, signer, text))
    .join("")}`;
}

/**
 * Whether `id`'s keys may sign and extend the stored log: its latest checkpoint carries a verifying signature by the log
 * key or the previous one (log-key-continuity.ts). Read inside the sequencer's transaction, or on its own.
 */
export async function readLogKeyContinuity(db: DbClient | DbTransaction, id: LogIdentity): Promise<LogKeyContinuity> {
  const latest = await db.logCheckpoint.findFirst({ orderBy: { size: "desc" }, select: { size: true, note: true } });
  return checkLogKeyContinuity(latest ? { size: Number(latest.size), note: latest.note } : null, id, verifyEd25519Node);
}

/**
 * SECURITY: a log key that did not sign the latest checkpoint (nor did the previous key) signs nothing: the log stalls,
 * its receipts wait in staging, rather than switching keys under whoever pinned the one that signed it. Logged as an
 * error on every round it stalls; setting LOG_PREVIOUS_SECRET_KEY to the key that signed the log resumes it.
 */
function refusesToSign(log: Logger, continuity: LogKeyContinuity, id: LogIdentity): boolean {
  if (continuity.ok) return false;
  logEvent(
    log,
    "log.key_mismatch",
    {
      reason: continuity.reason,
      size: continuity.size,
      origin: id.origin,
      found: continuity.found,
      expected: continuity.expected,
      detail: continuity.detail,
    },
    "error",
  );
  return true;
}

/**
 * Adds to the latest checkpoint the signature of every log key that has not signed it: after a key rotation, the
 * checkpoint the old key signed alone is signed by the new one too (the same statement: same origin, size and root),
 * so whoever pins the new key reads a checkpoint it can verify before the next append. Only when the log key or the
 * previous one signed it already: a key that did not continues nothing.
 */
async function signLatestWithEveryKey(db: DbClient, id: LogIdentity, log: Logger): Promise<void> {
  const latest = await db.logCheckpoint.findFirst({ orderBy: { size: "desc" }, select: { size: true, note: true } });
  if (!latest) return;
  if (
    refusesToSign(
      log,
      checkLogKeyContinuity({ size: Number(latest.size), note: latest.note }, id, verifyEd25519Node),
      id,
    )
  )
    return;
  const note = parseSignedNote(latest.note);
  // A checkpoint of another origin is another log's statement: the keys of this one do not sign it.
  if (!note || parseCheckpointText(note.text)?.origin !== id.origin) return;
  const missing = logSigners(id).filter(
    (signer) => !note.signatures.some((sig) => sig.name === id.origin && sig.keyId === signer.keyId),
  );
  if (missing.length === 0) return;
  const signed = latest.note + missing.map((signer) => signatureLine(id.origin, signer, note.text)).join("");
  // Only over the note as read: another instance adding the same line meanwhile wins, and this one adds nothing.
  const updated = await db.logCheckpoint.updateMany({
    where: { size: latest.size, note: latest.note },
    data: { note: signed },
  });
  if (updated.count > 0)
    logEvent(log, "log.checkpoint_resigned", {
      size: Number(latest.size),
      keys: missing.map((signer) => signer.verifierKey),
    });
}

/**
 * Signs the empty tree's checkpoint (size 0, root SHA-256 of no bytes) when the log has signed none yet, so a client
 * reads a checkpoint from the first moment and starts from an empty log as from any other. Idempotent across instances.
 */
async function signEmptyCheckpoint(db: DbClient, id: LogIdentity): Promise<void> {
  await db.$executeRaw`
    INSERT INTO log_checkpoints (size, root, note)
    SELECT 0, ${Buffer.from(EMPTY_ROOT)}, ${signCheckpoint(id, 0, EMPTY_ROOT)} WHERE NOT EXISTS (SELECT 1 FROM log_checkpoints)
    ON CONFLICT (size) DO NOTHING`;
}

/** The latest signed checkpoint with its cosignatures; on a log that never signed one, the empty tree's, signed now. */
export async function readLatestCheckpoint(db: DbClient, id: LogIdentity): Promise<StoredCheckpoint> {
  const latest = await readCheckpoint(db);
  if (latest) return latest;
  await signEmptyCheckpoint(db, id);
  const signed = await readCheckpoint(db);
  if (!signed) throw new Error("log: the empty checkpoint was not stored");
  return signed;
}

/**
 * One sequencer round: sequences up to LOG_BATCH staged receipts and signs the checkpoint of the new size. Returns
 * null when another instance holds the sequencer lock, when nothing was staged (no new checkpoint is needed), or when
 * the latest checkpoint was signed by neither the log key nor the previous one (`log.key_mismatch`, logged to `log`:
 * nothing moves).
 */
export async function publishLog(
  db: DbClient,
  id: LogIdentity,
  log: Logger,
  batch = LOG_BATCH,
): Promise<PublishedCheckpoint | null> {
  // An idle log costs one cheap read per round, not a transaction.
  const [waiting] = await db.$queryRaw<{ staged: boolean }[]>`SELECT EXISTS (SELECT 1 FROM log_staging) AS staged`;
  if (!waiting?.staged) return null;
  return db.$transaction(
    async (tx) => {
      const [lock] = await tx.$queryRaw<
        { locked: boolean }[]
      >`SELECT pg_try_advisory_xact_lock(${LOG_SEQUENCER_LOCK_KEY}) AS locked`;
      if (!lock?.locked) return null;
      // Under the lock: no other sequencer adds a checkpoint between this read and this round's.
      if (refusesToSign(log, await readLogKeyContinuity(tx, id), id)) return null;
      // A receipt stored again after a lost answer is staged twice: it is logged once.
      await tx.$executeRaw`DELETE FROM log_staging s USING log_entries e WHERE s.inference_id = e.inference_id`;
      const staged = await tx.$queryRaw<{ inference_id: string; receipt: Record<string, unknown> }[]>`
        SELECT l.id::text AS inference_id, l.receipt FROM inference_logs l
        WHERE l.id IN (SELECT inference_id FROM log_staging) AND l.receipt IS NOT NULL
        ORDER BY l.created_at, l.id LIMIT ${batch}`;
      if (staged.length === 0) {
        // Nothing loggable: rows of calls whose capture was undone (their receipt never stored) are dropped.
        await tx.$executeRaw`DELETE FROM log_staging s WHERE NOT EXISTS (SELECT 1 FROM inference_logs l WHERE l.id = s.inference_id AND l.receipt IS NOT NULL)`;
        return null;
      }
      const entries = staged.map((s) => encodeReceiptEntry(s.receipt));
      const [head] = await tx.$queryRaw<{ size: bigint }[]>`SELECT COALESCE(max(idx) + 1, 0) AS size FROM log_entries`;
      const oldSize = Number(head!.size);
      const newSize = oldSize + staged.length;

      // The hashes this append completes; a left child completed by an earlier append is read from the stored tiles.
      const oldTree = storedHashReader(tx, oldSize);
      const fresh = new Map<string, Uint8Array>();
      entries.forEach((entry, i) => fresh.set(`0/${oldSize + i}`, leafHashNode(entry)));
      const created = newSubtrees(oldSize, newSize);
      // A left child whose leaves all precede this append was completed by an earlier one.
      const oldChildren = created
        .filter((n) => n.level > 0 && (2 * n.index + 1) * 2 ** (n.level - 1) <= oldSize)
        .map((n) => ({ level: n.level - 1, index: 2 * n.index }));
      const oldHashes = await oldTree(oldChildren);
      const stored = new Map(oldChildren.map((c, i) => [`${c.level}/${c.index}`, oldHashes[i]!]));
      for (const n of created) {
        if (n.level === 0) continue;
        const left = fresh.get(`${n.level - 1}/${2 * n.index}`) ?? stored.get(`${n.level - 1}/${2 * n.index}`);
        const right = fresh.get(`${n.level - 1}/${2 * n.index + 1}`);
        if (!left || !right) throw new Error(`log: missing children of subtree ${n.level}/${n.index}`);
        fresh.set(`${n.level}/${n.index}`, nodeHashNode(left, right));
      }
      const root = await treeHash(newSize, async (ids) => {
        const missing = ids.filter((i) => !fresh.has(`${i.level}/${i.index}`));
        const more = await oldTree(missing);
        const found = new Map(missing.map((m, i) => [`${m.level}/${m.index}`, more[i]!]));
        return ids.map((i) => fresh.get(`${i.level}/${i.index}`) ?? found.get(`${i.level}/${i.index}`)!);
      });

      await tx.$executeRaw`
        INSERT INTO log_entries (idx, inference_id, entry)
        SELECT w.idx, w.inference_id, decode(w.entry, 'hex')
        FROM unnest(${staged.map((_, i) => String(oldSize + i))}::bigint[], ${staged.map((s) => s.inference_id)}::uuid[], ${entries.map((e) => Buffer.from(e).toString("hex"))}::text[]) AS w(idx, inference_id, entry)`;
      // Only the tiles' rows are stored (heights 0, 8, 16, …): the heights between are rehashed from them when read.
      const hashes = [...fresh.entries()].filter(([key]) => Number(key.split("/")[0]) % TILE_HEIGHT === 0);
      await tx.$executeRaw`
        INSERT INTO log_hashes (level, idx, hash)
        SELECT w.level, w.idx, decode(w.hash, 'hex')
        FROM unnest(${hashes.map(([k]) => Number(k.split("/")[0]))}::int[], ${hashes.map(([k]) => k.split("/")[1]!)}::bigint[], ${hashes.map(([, h]) => Buffer.from(h).toString("hex"))}::text[]) AS w(level, idx, hash)`;
      await tx.$executeRaw`DELETE FROM log_staging WHERE inference_id = ANY(${staged.map((s) => s.inference_id)}::uuid[])`;
      const note = signCheckpoint(id, newSize, root);
      await tx.$executeRaw`INSERT INTO log_checkpoints (size, root, note) VALUES (${newSize}, ${Buffer.from(root)}, ${note})`;
      return { size: newSize, appended: staged.length, note };
    },
    { timeout: 60_000, maxWait: 10_000 },
  );
}

/**
 * Runs the sequencer every `intervalMs` (LOG_PUBLISH_INTERVAL_MS) until the returned stop is called. Every instance
 * runs it; the advisory lock lets one at a time extend the tree, and a crashed one's lock ends with its connection.
 * Logs to `log`.
 */
export function startLogPublisher(db: DbClient, keys: ServiceKeys, intervalMs: number, log: Logger): () => void {
  let busy = false;
  // The empty tree's checkpoint at start-up (a failure is retried on demand, by the checkpoint route).
  // The key is read inside the promise: a missing one is logged, never thrown at whoever starts the publisher.
  // After a log key rotation, the latest checkpoint gets the new key's signature at once (signLatestWithEveryKey).
  void Promise.resolve()
    .then(() => signEmptyCheckpoint(db, keys.log()))
    .then(() => signLatestWithEveryKey(db, keys.log(), log))
    .catch((err: unknown) =>
      logEvent(
        log,
        "log.publish_failed",
        { reason: err instanceof Error ? err.message.slice(0, 200) : "unknown" },
        "error",
      ),
    );
  const tick = async () => {
    if (busy) return;
    busy = true;
    try {
      // A full batch means more is waiting: keep going, so a burst is logged within one interval.
      for (let round = 0; round < 64; round++) {
        const published = await publishLog(db, keys.log(), log);
        if (!published) break;
        logEvent(log, "log.checkpoint", { size: published.size, appended: published.appended });
        if (published.appended < LOG_BATCH) break;
      }
    } catch (err) {
      logEvent(
        log,
        "log.publish_failed",
        { reason: err instanceof Error ? err.message.slice(0, 200) : "unknown" },
        "error",
      );
    } finally {
      busy = false;
    }
  };
  const timer = setInterval(() => void tick(), intervalMs);
  timer.unref?.();
  return () => clearInterval(timer);
}
