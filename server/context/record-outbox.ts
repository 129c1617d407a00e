// Records of calls whose upstream answered but whose record could not be written when the call ended (the database
// went away, or failed on a blip past the call's own retries). Such a call is never handed back for a second upstream
// call: its record (the capture with its receipt and kept answer, or, where the route gives an undelivered answer's
// money back, that give-back) waits here, in the process that served it, and is written as soon as the database takes
// it: the background jobs try every record several times a second, and each round that cannot write one renews the
// call's lease, so no other instance takes the call over while this process lives. A record the database refuses for
// good is given back instead. Bounded in count, bytes and time: a record that finds the outbox full, or waits past
// MAX_WAIT_MS, is given up and logged as an error, and its payment is left to its lease.
import "server-only";
import { isPermanentDatabaseError } from "../db/classify-database-error";
import { logEvent, type Logger } from "../log";
import type { Clock } from "../clock";

/** A call's record that waits for the database. */
export interface PendingRecord {
  /** The call's hold, which is its inference id. */
  holdId: string;
  /** The payment the call was paid with; null on the prepaid route. */
  paymentId: string | null;
  network: string;
  /** What it keeps in memory (its answer and receipt), in bytes: the outbox's bound counts these. */
  bytes: number;
  /** Writes the record; resolves once it is written, or found written or settled by another server. */
  write(): Promise<void>;
  /** The record was refused for good: gives the call's money back instead (prepaid: released; paid: refunded). */
  giveBack(): Promise<void>;
  /** Renews the call's lease (its hold's, and its payment's) while the record waits. */
  keep(): Promise<unknown>;
}

/** The outbox's bounds: how many records, how many bytes of answers, and how long one may wait. */
export interface OutboxLimits {
  maxRecords: number;
  maxBytes: number;
  maxWaitMs: number;
}

/**
 * A failover of a managed PostgreSQL takes seconds to a couple of minutes; a record still unwritten after a quarter of
 * an hour belongs to an outage the operator is handling, and the call's lease ran out long before.
 */
const MAX_WAIT_MS = 15 * 60_000;
/** Records kept at once: far above the calls one process has in flight. */
const MAX_RECORDS = 10_000;
/** Bytes of kept answers at once: a bound on the memory an outage can take (a model may answer megabytes). */
const MAX_BYTES = 256 * 1024 * 1024;

const DEFAULT_OUTBOX_LIMITS: OutboxLimits = { maxRecords: MAX_RECORDS, maxBytes: MAX_BYTES, maxWaitMs: MAX_WAIT_MS };

interface Entry {
  record: PendingRecord;
  since: number;
  /** The database refused the record for good: the give-back is what is written now. */
  refused: boolean;
  /** The round in progress, if any: one at a time per record. */
  running: Promise<boolean> | null;
}

/** The records of one process's calls that wait for the database (see the module comment). */
export class RecordOutbox {
  private readonly entries = new Map<string, Entry>();
  private heldBytes = 0;

  constructor(
    private readonly clock: Clock,
    private readonly log: Logger,
    private readonly limits: OutboxLimits = DEFAULT_OUTBOX_LIMITS,
  ) {}

  /** Keeps `record` until it is written; false (and logged) when the outbox is full. */
  add(record: PendingRecord): boolean {
    if (this.entries.size >= this.limits.maxRecords || this.heldBytes + record.bytes > this.limits.maxBytes) {
      logEvent(
        this.log,
        "call.record_dropped",
        { ...fieldsOf(record), reason: "outbox_full", records: this.entries.size, bytes: this.heldBytes },
        "error",
      );
      return false;
    }
    this.entries.set(record.holdId, { record, since: this.clock.now(), refused: false, running: null });
    this.heldBytes += record.bytes;
    return true;
  }

  /** Whether a record of this hold (or of the payment with this id: a paid call's hold shares it) waits here. */
  has(holdId: string): boolean {
    return this.entries.has(holdId);
  }

  get size(): number {
    return this.entries.size;
  }

  get bytes(): number {
    return this.heldBytes;
  }

  /**
   * Tries the record of `holdId` now; true when it no longer waits. A round already under way began before this was
   * asked: it is waited for, and when it failed, one more round follows (the database may have come back since).
   */
  async settle(holdId: string): Promise<boolean> {
    const entry = this.entries.get(holdId);
    if (!entry) return true;
    if (entry.running && (await entry.running)) return true;
    const still = this.entries.get(holdId);
    return still ? this.round(still) : true;
  }

  /** One round over every record: each written, given back, kept (its lease renewed) or given up. */
  async drain(): Promise<void> {
    await Promise.all([...this.entries.values()].map((entry) => this.round(entry)));
  }

  private round(entry: Entry): Promise<boolean> {
    entry.running ??= this.attempt(entry).finally(() => {
      entry.running = null;
    });
    return entry.running;
  }

  private async attempt(entry: Entry): Promise<boolean> {
    const { record } = entry;
    try {
      await (entry.refused ? record.giveBack() : record.write());
      logEvent(
        this.log,
        entry.refused ? "call.record_given_back" : "call.record_written",
        { ...fieldsOf(record), waited_ms: this.clock.now() - entry.since },
        "warn",
      );
      return this.remove(entry);
    } catch (err) {
      const reason = err instanceof Error ? err.message.slice(0, 200) : String(err).slice(0, 200);
      if (isPermanentDatabaseError(err)) {
        if (entry.refused) {
          logEvent(
            this.log,
            "call.record_dropped",
            { ...fieldsOf(record), reason: "give_back_refused", detail: reason },
            "error",
          );
          return this.remove(entry);
        }
        // SECURITY: a record refused for good is not retried; its call's money is given back, once, instead.
        logEvent(this.log, "call.record_refused", { ...fieldsOf(record), reason }, "error");
        entry.refused = true;
        return this.attempt(entry);
      }
      if (this.clock.now() - entry.since > this.limits.maxWaitMs) {
        logEvent(
          this.log,
          "call.record_dropped",
          { ...fieldsOf(record), reason: "waited_too_long", detail: reason },
          "error",
        );
        return this.remove(entry);
      }
      await record.keep().catch(() => undefined);
      return false;
    }
  }

  private remove(entry: Entry): true {
    if (this.entries.get(entry.record.holdId) === entry) {
      this.entries.delete(entry.record.holdId);
      this.heldBytes -= entry.record.bytes;
    }
    return true;
  }
}

function fieldsOf(record: PendingRecord): Record<string, unknown> {
  return {
    inference_id: record.holdId,
    network: record.network,
    ...(record.paymentId ? { payment_id: record.paymentId } : {}),
  };
}
