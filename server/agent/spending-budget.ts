// The local MCP server's budget: what one call may spend and what the whole session may, in USDC's atomic units. A
// spend is reserved before anything is signed (the price an x402 challenge asks, or a prepaid call's cap), so calls
// that run at once cannot overspend together; it is then committed at what was charged, or released when nothing was.
// Pure: the decision is budgetDecision; SpendingBudget only keeps the two sums.

export interface BudgetLimits {
  /** The most one call (or one top-up) may spend. */
  perCallUnits: bigint;
  /** The most the session may spend, all calls and top-ups together. */
  sessionUnits: bigint;
}

export type BudgetDecision = { ok: true } | { ok: false; reason: "over_per_call" | "over_session"; message: string };

/** Whether a spend of `units` fits, with `committed` spent and `reserved` held by calls still running. */
export function budgetDecision(
  limits: BudgetLimits,
  committed: bigint,
  reserved: bigint,
  units: bigint,
  format: (units: bigint) => string,
): BudgetDecision {
  if (units > limits.perCallUnits) {
    return {
      ok: false,
      reason: "over_per_call",
      message: `this call would spend ${format(units)} USDC, over the per-call budget of ${format(limits.perCallUnits)} USDC`,
    };
  }
  const left = limits.sessionUnits - committed - reserved;
  if (units > left) {
    return {
      ok: false,
      reason: "over_session",
      message: `this call would spend ${format(units)} USDC; ${format(left < 0n ? 0n : left)} USDC of the session's budget of ${format(limits.sessionUnits)} USDC is left`,
    };
  }
  return { ok: true };
}

/** A reserved spend of `units`: committed at what was charged, or released. Either once; later calls do nothing. */
export interface Reservation {
  readonly units: bigint;
  commit(chargedUnits: bigint): void;
  release(): void;
}

/** What a call that was asked for no payment holds. */
export const NOTHING_RESERVED: Reservation = { units: 0n, commit: () => undefined, release: () => undefined };

export class SpendingBudget {
  private committed = 0n;
  private reserved = 0n;

  constructor(
    readonly limits: BudgetLimits,
    private readonly format: (units: bigint) => string,
  ) {}

  /** Reserves `units`, or says why it does not fit. */
  reserve(units: bigint): { ok: true; reservation: Reservation } | Extract<BudgetDecision, { ok: false }> {
    const decision = budgetDecision(this.limits, this.committed, this.reserved, units, this.format);
    if (!decision.ok) return decision;
    this.reserved += units;
    let open = true;
    const close = (charged: bigint) => {
      if (!open) return;
      open = false;
      this.reserved -= units;
      this.committed += charged;
    };
    return { ok: true, reservation: { units, commit: close, release: () => close(0n) } };
  }

  /** What the session has spent, and what it has left (reservations of running calls held back). */
  state(): { spentUnits: bigint; leftUnits: bigint } {
    const left = this.limits.sessionUnits - this.committed - this.reserved;
    return { spentUnits: this.committed, leftUnits: left < 0n ? 0n : left };
  }
}
