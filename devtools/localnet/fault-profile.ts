// The local chains' fault profile: which failures a real RPC node shows, at what rates, drawn from a seed so a failing
// run replays identically. Each decision is a hash of (seed, kind, n): the nth request of a kind meets the same fate in
// every run, whatever the timing.
import "server-only";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { z } from "zod";

const rate = z.number().min(0).max(1);
const msRange = z
  .tuple([z.number().int().min(0), z.number().int().min(0)])
  .refine(([lo, hi]) => lo <= hi, "the range's first number must not exceed the second");

/** How long a timed-out request is held before its connection is cut: longer than any client waits. */
const DEFAULT_TIMEOUT_HOLD_MS = 60_000;
/** How long a 429 tells the client to wait, seconds (the header real providers send). */
const DEFAULT_RETRY_AFTER_SEC = 1;
/** An early-expiring Solana blockhash lives 0 to this many slots instead of 150. */
const EARLY_EXPIRY_MAX_SLOTS = 10;
/** How many fault events the log keeps; the counters keep counting past it. */
const FAULT_LOG_CAPACITY = 1_000;

const faultProfileSchema = z
  .object({
    /** Any integer; the same seed and the same requests give the same faults. */
    seed: z.number().int(),
    /** Solana sends (and Base raw transactions) answered with a signature (hash) that never lands. */
    dropSendRate: rate.default(0),
    /** Sends that land late, after a delay drawn from `confirmDelayMs`. Default: every send when the range is set. */
    delaySendRate: rate.optional(),
    confirmDelayMs: msRange.optional(),
    /** Requests answered with HTTP 429 and a Retry-After header. */
    rate429: rate.default(0),
    retryAfterSec: z.number().int().min(0).max(3_600).default(DEFAULT_RETRY_AFTER_SEC),
    /** Requests answered with HTTP 503. */
    rate503: rate.default(0),
    /** Requests the server handles but never answers: it holds the connection `timeoutHoldMs`, then cuts it. */
    timeoutRate: rate.default(0),
    timeoutHoldMs: z.number().int().min(0).max(600_000).default(DEFAULT_TIMEOUT_HOLD_MS),
    /** Solana blockhashes that are refused after 0..EARLY_EXPIRY_MAX_SLOTS slots though 150 were promised. */
    earlyExpiryRate: rate.default(0),
    /** Base only: the chance that each new block triggers a reorg of depth 1 or 2. */
    reorgRate: rate.default(0),
  })
  .strict()
  .refine((p) => p.rate429 + p.rate503 + p.timeoutRate <= 1, "rate429 + rate503 + timeoutRate must not exceed 1")
  .refine((p) => p.delaySendRate === undefined || p.confirmDelayMs !== undefined, "delaySendRate needs confirmDelayMs");

export type FaultProfile = z.output<typeof faultProfileSchema>;
export type FaultProfileInput = z.input<typeof faultProfileSchema>;

/** Parses a profile given as JSON text, or as the path of a JSON file; throws with the offending field named. */
export function parseFaultProfile(text: string): FaultProfile {
  const trimmed = text.trim();
  const json = trimmed.startsWith("{") ? trimmed : readFileSync(trimmed, "utf8");
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch {
    throw new Error("fault profile: not valid JSON");
  }
  const parsed = faultProfileSchema.safeParse(raw);
  if (!parsed.success)
    throw new Error(
      `fault profile: ${parsed.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; ")}`,
    );
  return parsed.data;
}

export type FaultKind = "drop" | "delay" | "429" | "503" | "timeout" | "earlyExpiry" | "reorg";

/** One HTTP request the fault profile judged: when it arrived (ms since epoch), what it called, and its fate. */
export interface RequestLogEntry {
  at: number;
  method: string;
  fate: "ok" | "429" | "503" | "timeout";
}

export interface FaultEvent {
  kind: FaultKind;
  /** Which draw of its stream: the nth request, send or slot. */
  n: number;
  detail?: string | number;
}

/** Seeded fault decisions plus a log of the faults dealt, for tests and for whoever replays a run. */
export class FaultDice {
  readonly profile: FaultProfile;
  private readonly counters = new Map<string, number>();
  private readonly events: FaultEvent[] = [];
  private readonly requests: RequestLogEntry[] = [];
  private readonly tally: Record<FaultKind, number> = {
    drop: 0,
    delay: 0,
    "429": 0,
    "503": 0,
    timeout: 0,
    earlyExpiry: 0,
    reorg: 0,
  };

  constructor(profile: FaultProfileInput) {
    this.profile = faultProfileSchema.parse(profile);
  }

  /** The next index of stream `stream` (0, 1, 2, …). */
  next(stream: string): number {
    const n = this.counters.get(stream) ?? 0;
    this.counters.set(stream, n + 1);
    return n;
  }

  /** A number in [0, 1) fixed by (seed, stream, n, salt). */
  roll(stream: string, n: number, salt = 0): number {
    const digest = createHash("sha256").update(`${this.profile.seed}:${stream}:${n}:${salt}`).digest();
    return digest.readUIntBE(0, 6) / 2 ** 48;
  }

  /** What happens to the nth HTTP request (calling `method`, for the request log): answered, or an HTTP-level fault. */
  httpFate(method = "?"): { kind: "ok" } | { kind: "429" | "503" | "timeout"; n: number } {
    const n = this.next("http");
    const u = this.roll("http", n);
    const p = this.profile;
    const kind =
      u < p.rate429
        ? "429"
        : u < p.rate429 + p.rate503
          ? "503"
          : u < p.rate429 + p.rate503 + p.timeoutRate
            ? "timeout"
            : null;
    // Arrival times show whether clients honoured Retry-After: nothing should arrive while a 429's pause runs.
    this.requests.push({ at: Date.now(), method, fate: kind ?? "ok" });
    if (this.requests.length > FAULT_LOG_CAPACITY) this.requests.shift();
    if (!kind) return { kind: "ok" };
    this.record({ kind, n });
    return { kind, n };
  }

  /** What happens to the nth sent transaction: it lands now, later (after `delayMs`), or never. */
  sendFate(): { kind: "land" } | { kind: "drop"; n: number } | { kind: "delay"; n: number; delayMs: number } {
    const n = this.next("send");
    const p = this.profile;
    if (this.roll("send", n) < p.dropSendRate) {
      this.record({ kind: "drop", n });
      return { kind: "drop", n };
    }
    if (p.confirmDelayMs && this.roll("send", n, 1) < (p.delaySendRate ?? 1)) {
      const [lo, hi] = p.confirmDelayMs;
      const delayMs = lo + Math.floor(this.roll("send", n, 2) * (hi - lo + 1));
      this.record({ kind: "delay", n, detail: delayMs });
      return { kind: "delay", n, delayMs };
    }
    return { kind: "land" };
  }

  /** How many slots the blockhash of `slot` lives: `normal`, or fewer when the profile expires it early. */
  blockhashLifetime(slot: number, normal: number): number {
    if (this.roll("slot", slot) >= this.profile.earlyExpiryRate) return normal;
    const lifetime = Math.floor(this.roll("slot", slot, 1) * (EARLY_EXPIRY_MAX_SLOTS + 1));
    this.record({ kind: "earlyExpiry", n: slot, detail: lifetime });
    return lifetime;
  }

  /** Whether the nth block is followed by a reorg, and of what depth (1 or 2). */
  reorgAfterBlock(n: number): 0 | 1 | 2 {
    if (this.roll("block", n) >= this.profile.reorgRate) return 0;
    const depth = this.roll("block", n, 1) < 0.5 ? 1 : 2;
    this.record({ kind: "reorg", n, detail: depth });
    return depth;
  }

  record(event: FaultEvent): void {
    this.tally[event.kind]++;
    this.events.push(event);
    if (this.events.length > FAULT_LOG_CAPACITY) this.events.shift();
  }

  /** The latest FAULT_LOG_CAPACITY requests the profile judged, oldest first. */
  requestLog(): RequestLogEntry[] {
    return [...this.requests];
  }

  /** The faults dealt so far (the latest FAULT_LOG_CAPACITY) and a count per kind. */
  log(): { events: FaultEvent[]; counts: Record<FaultKind, number> } {
    return { events: [...this.events], counts: { ...this.tally } };
  }
}
