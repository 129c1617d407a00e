// Which fields of a payment's accepted requirement differ from the challenge's, to name them when the payment is
// refused as requirements_mismatch. The match itself is the x402 package's (findMatchingRequirements): this only says
// why it found none, comparing as it does (the core fields whole; of `extra`, each field the challenge set, but for the
// fields a scheme fills per challenge, a Solana blockhash and its last valid height).
import "server-only";
import { canonicalJson } from "../verify";

/** `extra` fields a scheme fills anew in each challenge: a payment may carry an older challenge's. */
const PER_CHALLENGE_EXTRA = new Set(["recentBlockhash", "lastValidBlockHeight"]);

/** What an x402 v1 payment names of its requirement, and so all a match compares for it. */
const V1_NAMED = ["scheme", "network"];

/**
 * The differing fields, as `amount` or `extra.feePayer`, in the challenge's order; [] when none is found to differ. An
 * x402 v1 payment (`v1`) names only its scheme and network: its amount, asset and payee are checked in its transaction.
 */
export function mismatchedFields(required: object, accepted: unknown, { v1 = false } = {}): string[] {
  if (accepted === null || typeof accepted !== "object") return ["accepted"];
  const want = required as Record<string, unknown>;
  const got = accepted as Record<string, unknown>;
  if (v1) return V1_NAMED.filter((key) => !same(want[key], got[key]));
  const core = [...new Set([...Object.keys(want), ...Object.keys(got)])].filter((key) => key !== "extra");
  const fields = core.filter((key) => !same(want[key], got[key]));
  const wantExtra = want.extra;
  if (wantExtra !== null && typeof wantExtra === "object") {
    const gotExtra = (got.extra ?? {}) as Record<string, unknown>;
    for (const [key, value] of Object.entries(wantExtra))
      if (!PER_CHALLENGE_EXTRA.has(key) && !same(value, gotExtra[key])) fields.push(`extra.${key}`);
  }
  return fields;
}

/** The refusal's message: the fields that differ, or the fields a match compares when none is found to. */
export function mismatchMessage(required: object, accepted: unknown, options: { v1?: boolean } = {}): string {
  const fields = mismatchedFields(required, accepted, options);
  return fields.length > 0
    ? `the payment does not match the challenge: its ${fields.join(", ")} ${fields.length === 1 ? "differs" : "differ"}`
    : "the payment does not match the challenge (scheme, network, amount, asset, payee or extra)";
}

function same(a: unknown, b: unknown): boolean {
  if (a === undefined || b === undefined) return a === b;
  try {
    return canonicalJson(a) === canonicalJson(b);
  } catch {
    return false;
  }
}
