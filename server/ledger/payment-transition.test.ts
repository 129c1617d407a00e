import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { PAYMENT_STATES, transitionPairs, type PaymentPurpose, type PaymentStatus } from "./payment-states";
import {
  EFFECT_MEANINGS,
  EFFECTS,
  EVENT_MEANINGS,
  FINAL_STATES,
  PAYMENT_EVENTS,
  moveOf,
  movesOf,
  targetOf,
  transition,
  type Decision,
  type Effect,
  type Move,
  type PaymentEvent,
} from "./payment-transition";

/** Every event, each payload that changes its answer spelled out. */
const EVENTS: Record<string, PaymentEvent> = {
  claim: { type: "claim" },
  "settled call": { type: "settled", purpose: "call" },
  "settled topup": { type: "settled", purpose: "topup" },
  pending: { type: "pending" },
  "landed-late call waiting": { type: "landed-late", purpose: "call", waiting: true },
  "landed-late call unwaited": { type: "landed-late", purpose: "call", waiting: false },
  "landed-late topup waiting": { type: "landed-late", purpose: "topup", waiting: true },
  "landed-late topup unwaited": { type: "landed-late", purpose: "topup", waiting: false },
  failed: { type: "failed" },
  expired: { type: "expired" },
  served: { type: "served" },
  "upstream-failed": { type: "upstream-failed" },
  "not-served": { type: "not-served" },
  "not-recorded": { type: "not-recorded" },
  "database-lost": { type: "database-lost" },
  "lease-taken-over": { type: "lease-taken-over" },
  retried: { type: "retried" },
  replayed: { type: "replayed" },
  purged: { type: "purged" },
};

const F = "× final";
const H = "× held";
const N = "× not-its-state";

/**
 * The whole table, written out: per event, the answer for each state in PAYMENT_STATES' order (claimed, pending,
 * settled, serving, served, unserved, refunded, failed, expired). "→ s: effects" moves to s, "= stays: effects" moves
 * nothing, "× reason" refuses.
 */
const EXPECTED: Record<keyof typeof EVENTS, readonly string[]> = {
  claim: [H, N, H, H, F, N, F, "→ claimed: take-lease send-transfer", F],
  "settled call": ["→ settled: credit-payer place-hold serve-from-hold", N, N, N, F, N, F, N, F],
  "settled topup": ["→ served: credit-payer keep-answer", N, N, N, F, N, F, N, F],
  pending: ["→ pending: keep-payload", N, N, N, F, N, F, N, F],
  "landed-late call waiting": [
    N,
    "→ settled: credit-payer place-hold drop-payload take-lease serve-from-hold",
    N,
    N,
    F,
    N,
    F,
    N,
    F,
  ],
  "landed-late call unwaited": [N, "→ unserved: credit-payer place-hold drop-payload keep-hold", N, N, F, N, F, N, F],
  "landed-late topup waiting": [N, "→ served: credit-payer drop-payload keep-answer", N, N, F, N, F, N, F],
  "landed-late topup unwaited": [N, "→ served: credit-payer drop-payload keep-answer", N, N, F, N, F, N, F],
  failed: ["→ failed: free-payment-id", "→ failed: free-payment-id drop-payload", N, N, F, N, F, N, F],
  expired: ["→ expired: free-payment-id", "→ expired: free-payment-id drop-payload", N, N, F, N, F, N, F],
  served: [N, N, "→ served: capture-hold keep-answer", "→ served: capture-hold keep-answer", F, N, F, N, F],
  "upstream-failed": [N, N, "→ unserved: keep-hold", "→ unserved: keep-hold", F, N, F, N, F],
  "not-served": [N, N, "→ unserved: keep-hold", "→ unserved: keep-hold", F, N, F, N, F],
  "not-recorded": [N, N, "→ refunded: refund-hold", "→ refunded: refund-hold", F, N, F, N, F],
  "database-lost": ["→ claimed: end-lease", N, "→ unserved: keep-hold", "→ unserved: keep-hold", F, N, F, N, F],
  "lease-taken-over": [
    "→ claimed: take-lease ask-chain",
    N,
    "→ serving: take-lease serve-from-hold",
    "→ serving: take-lease serve-from-hold",
    F,
    N,
    F,
    N,
    F,
  ],
  retried: [H, "= stays: ask-chain", H, H, F, "→ serving: take-lease serve-from-hold", F, N, F],
  replayed: [N, N, N, N, "= stays: answer-again", N, F, N, F],
  purged: [N, N, N, N, "= stays: drop-answer", N, F, N, F],
};

function shown(decision: Decision): string {
  if (!decision.ok) return `× ${decision.reason}`;
  return `${decision.move ? `→ ${decision.move.to}` : "= stays"}: ${decision.effects.join(" ")}`;
}

describe("transition()", () => {
  it("answers every state × event as the table above says", () => {
    expect(PAYMENT_STATES).toEqual([
      "claimed",
      "pending",
      "settled",
      "serving",
      "served",
      "unserved",
      "refunded",
      "failed",
      "expired",
    ]);
    expect(new Set(Object.values(EVENTS).map((e) => e.type))).toEqual(new Set(Object.keys(EVENT_MEANINGS)));
    // The events the docs list are rows of this table, every type among them.
    for (const e of PAYMENT_EVENTS) expect(Object.values(EVENTS)).toContainEqual(e);
    expect(new Set(PAYMENT_EVENTS.map((e) => e.type))).toEqual(new Set(Object.keys(EVENT_MEANINGS)));
    for (const [name, event] of Object.entries(EVENTS)) {
      const got = PAYMENT_STATES.map((state) => shown(transition(state, event)));
      expect(got, name).toEqual(EXPECTED[name]);
    }
  });

  it("moves only from the state it was asked about, along the state table", () => {
    const pairs = new Set(transitionPairs().map(([from, to]) => `${from}→${to}`));
    const made = new Set<string>();
    for (const state of PAYMENT_STATES) {
      for (const event of Object.values(EVENTS)) {
        const decided = transition(state, event);
        if (!decided.ok || decided.move === null) continue;
        expect(decided.move.from).toBe(state);
        expect(pairs.has(`${decided.move.from}→${decided.move.to}`), `${state} on ${event.type}`).toBe(true);
        made.add(`${decided.move.from}→${decided.move.to}`);
      }
    }
    // Every move of the table is made by some event: the table has no move nothing makes.
    expect([...made].sort()).toEqual([...pairs].sort());
  });

  it("says what every event and every effect is, and uses every effect", () => {
    for (const meaning of [...Object.values(EVENT_MEANINGS), ...Object.values(EFFECT_MEANINGS)])
      expect(meaning.length).toBeGreaterThan(20);
    const used = new Set(
      PAYMENT_STATES.flatMap((s) =>
        Object.values(EVENTS).flatMap((e) => {
          const d = transition(s, e);
          return d.ok ? d.effects : [];
        }),
      ),
    );
    expect([...used].sort()).toEqual([...EFFECTS].sort());
  });

  it("gives the moves a statement writes, and refuses to make one the table has not", () => {
    expect(moveOf("claimed", { type: "pending" })).toEqual({ from: "claimed", to: "pending" });
    expect(movesOf({ type: "database-lost" })).toEqual([
      { from: "claimed", to: "claimed" },
      { from: "settled", to: "unserved" },
      { from: "serving", to: "unserved" },
    ]);
    expect(movesOf({ type: "lease-taken-over" }, ["settled", "serving"]).map((m) => m.to)).toEqual([
      "serving",
      "serving",
    ]);
    expect(targetOf(movesOf({ type: "served" }))).toBe("served");
    expect(() => targetOf(movesOf({ type: "database-lost" }))).toThrow(/one state/);
    expect(() => targetOf([])).toThrow(/one state/);
    expect(() => moveOf("served", { type: "upstream-failed" })).toThrow(
      /served payment makes no move on upstream-failed \(final\)/,
    );
    expect(() => moveOf("served", { type: "replayed" })).toThrow(/it stays/);
    // @ts-expect-error: a move is made by transition(), never spelled out.
    const handWritten: Move = { from: "claimed", to: "failed" };
    expect(handWritten.to).toBe("failed");
  });
});

/** The state table's moves, `from→to`. */
const TABLE = new Set(transitionPairs().map(([from, to]) => `${from}→${to}`));

/** A payment's history as the effects it has seen, for the invariants a sequence of events must keep. */
interface History {
  state: PaymentStatus;
  credits: number;
  holdsPlaced: number;
  captures: number;
  refunds: number;
  serves: number;
}

/** Applies one decision to `h`, checking every invariant that bears on it; throws on the first broken one. */
function apply(h: History, purpose: PaymentPurpose, event: PaymentEvent, decided: Decision): void {
  const at = () => `${h.state} on ${JSON.stringify(event)}`;
  const wasFinal = FINAL_STATES.includes(h.state);
  if (!decided.ok) return;
  const has = (e: Effect) => decided.effects.includes(e);
  const holdOpen = () => h.holdsPlaced === 1 && h.captures === 0 && h.refunds === 0;
  if (decided.move) {
    if (wasFinal) throw new Error(`a final state moved: ${at()}`);
    if (decided.move.from !== h.state) throw new Error(`moved from another state: ${at()}`);
    if (!TABLE.has(`${decided.move.from}→${decided.move.to}`)) throw new Error(`a move outside the table: ${at()}`);
    h.state = decided.move.to;
  }
  if (has("credit-payer") && ++h.credits > 1) throw new Error(`credited twice: ${at()}`);
  if (has("place-hold")) {
    if (purpose !== "call") throw new Error(`a top-up placed a hold: ${at()}`);
    if (!has("credit-payer") || ++h.holdsPlaced > 1)
      throw new Error(`a hold placed without its credit, or twice: ${at()}`);
  }
  if (has("serve-from-hold") && !holdOpen()) throw new Error(`served without an open hold: ${at()}`);
  if (has("keep-hold") && !holdOpen()) throw new Error(`kept a hold that is not open: ${at()}`);
  if (has("capture-hold")) {
    if (!holdOpen() || ++h.captures > 1) throw new Error(`a second serve, or one without an open hold: ${at()}`);
  }
  if (decided.move?.to === "served" && ++h.serves > 1) throw new Error(`served twice: ${at()}`);
  if (has("refund-hold")) {
    if (h.credits !== 1 || !holdOpen() || has("capture-hold"))
      throw new Error(`a refund without a credit and its open hold: ${at()}`);
    h.refunds++;
  }
  if (h.refunds > 0 && (h.captures > 0 || h.state === "served")) throw new Error(`refunded and served: ${at()}`);
}

describe("transition() over any sequence of events", () => {
  const event = (purpose: PaymentPurpose): fc.Arbitrary<PaymentEvent> =>
    fc.oneof(
      fc.constantFrom<PaymentEvent>(...Object.values(EVENTS).filter((e) => !("purpose" in e)), {
        type: "settled",
        purpose,
      }),
      fc.boolean().map((waiting): PaymentEvent => ({ type: "landed-late", purpose, waiting })),
    );
  const run = fc
    .constantFrom<PaymentPurpose>("call", "topup")
    .chain((purpose) => fc.tuple(fc.constant(purpose), fc.array(event(purpose), { maxLength: 40 })));

  it("keeps one serve, one credit, refunds only a credit never served, moves only along the table, and ends where it ends", () => {
    fc.assert(
      fc.property(run, ([purpose, events]) => {
        const h: History = { state: "claimed", credits: 0, holdsPlaced: 0, captures: 0, refunds: 0, serves: 0 };
        for (const e of events) {
          const wasFinal = FINAL_STATES.includes(h.state);
          const before = h.state;
          apply(h, purpose, e, transition(h.state, e));
          if (wasFinal && h.state !== before) throw new Error(`left the final state ${before}`);
        }
      }),
      { numRuns: 3000 },
    );
  });

  it("reaches every state from a claim, so the walk above covers the table", () => {
    const seen = new Set<PaymentStatus>();
    fc.assert(
      fc.property(run, ([, events]) => {
        let state: PaymentStatus = "claimed";
        seen.add(state);
        for (const e of events) {
          const d = transition(state, e);
          if (d.ok && d.move) seen.add((state = d.move.to));
        }
      }),
      { numRuns: 3000, seed: 35 },
    );
    expect([...seen].sort()).toEqual([...PAYMENT_STATES].sort());
  });
});
