// A served payment's kept answer, for the payer's repeat of the same request: the body first answered and the route's
// signed receipt first issued with it (x402's, on the paid route), so a repeat gets back exactly those, never a new
// receipt. Kept as JSON text: a model may answer any string, and JSON.stringify escapes U+0000 and a lone surrogate,
// which jsonb refuses.
import "server-only";
import type { RouteReceipt } from "./call-types";

export interface KeptAnswer {
  body: Record<string, unknown>;
  /** The route's signed receipt issued with the first answer; null when it had none. */
  routeReceipt: RouteReceipt | null;
}

/** The text a payment keeps for `answer`. */
export function keptAnswerText(answer: KeptAnswer): string {
  return JSON.stringify({ body: answer.body, x402_receipt: answer.routeReceipt });
}

/** A kept answer as its payment stores it; null when none is kept (or the text is not one). */
export function readKeptAnswer(text: string | null): KeptAnswer | null {
  if (text === null) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return null;
  }
  const kept = parsed as { body?: unknown; x402_receipt?: unknown } | null;
  if (typeof kept !== "object" || kept === null || typeof kept.body !== "object" || kept.body === null) return null;
  const receipt = kept.x402_receipt as RouteReceipt | null | undefined;
  return {
    body: kept.body as Record<string, unknown>,
    routeReceipt: receipt && typeof receipt === "object" ? receipt : null,
  };
}
