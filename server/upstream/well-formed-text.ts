// What a model says, made well-formed once, where it enters the service: every lone UTF-16 surrogate becomes U+FFFD,
// and every other code point (U+0000, U+2028, a BOM, anything) passes through unchanged. JSON carries a lone surrogate
// only as an escape that UTF-8 cannot hold, so a client in another language could not read back, or hash, the text a
// receipt's response_hash covers; well-formed, the text sent, hashed and kept is the same on every side. A surrogate
// pair that a provider split across two stream events is joined again, not replaced.
import "server-only";

/** `text` with each lone surrogate replaced by U+FFFD. */
export function wellFormed(text: string): string {
  return text.toWellFormed();
}

/** `value` (parsed JSON) with every string in it, keys included, well-formed. */
export function wellFormedJson<T>(value: T): T {
  if (typeof value === "string") return wellFormed(value) as T;
  if (Array.isArray(value)) return value.map((v: unknown) => wellFormedJson(v)) as T;
  if (typeof value === "object" && value !== null)
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [wellFormed(k), wellFormedJson(v)])) as T;
  return value;
}

/**
 * Well-forms text that arrives in pieces, per named run (an answer's text, each tool call's arguments): a piece that
 * ends in a high surrogate keeps it back until the next piece of its run shows whether its pair follows.
 */
export interface WellFormedPieces {
  /** The piece as it may be sent now, with a surrogate kept back from the run's last piece in front. */
  push(run: string, piece: string): string;
  /** What the run still keeps back (a high surrogate that no pair followed, as U+FFFD), or "". */
  flush(run: string): string;
}

/** A new joiner of pieces (see WellFormedPieces). */
export function wellFormedPieces(): WellFormedPieces {
  const held = new Map<string, string>();
  return {
    push(run, piece) {
      const text = (held.get(run) ?? "") + piece;
      held.delete(run);
      const last = text.charCodeAt(text.length - 1);
      if (last >= 0xd800 && last <= 0xdbff) {
        held.set(run, text.slice(-1));
        return wellFormed(text.slice(0, -1));
      }
      return wellFormed(text);
    },
    flush(run) {
      const rest = held.get(run) ?? "";
      held.delete(run);
      return wellFormed(rest);
    },
  };
}
