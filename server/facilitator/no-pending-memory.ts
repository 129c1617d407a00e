// The stock schemes remember a broadcast-but-unconfirmed transaction in a per-process store and, on the next settle of
// the same payload, wait for it again instead of sending. Here the payments table is where a pending settlement lives
// (`pending`, with its payload and expiry), so every instance and a restarted one finish it the same way: the stock
// store is given one that remembers nothing, and never answers for a settlement another process made.
import "server-only";
import type { PendingSettlementStore } from "@x402/core/facilitator";

/** A PendingSettlementStore that keeps nothing: the database is the one record of a pending settlement. */
export const NO_PENDING_MEMORY: PendingSettlementStore = {
  get: () => Promise.resolve(undefined),
  set: () => Promise.resolve(),
  delete: () => Promise.resolve(),
};
