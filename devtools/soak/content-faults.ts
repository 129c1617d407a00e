// The soak's content fault profile: what a model may answer that breaks naive storage and encoding (U+0000, lone UTF-16
// surrogates, line and paragraph separators, a BOM, escapes that only look like escapes). With it on, a seeded share of
// the agents' prompts carry such a piece (the built-in model echoes the prompt) and so does a share of the fake
// provider's answers; the invariants must hold all the same.
import "server-only";

/** The pieces, each a way text has gone wrong before. */
const NASTY_PIECES = [
  "\u0000",
  "\ud800",
  "\udfff",
  "\u2028\u2029",
  "\ufeff",
  "\\u0000",
  "x\ud800\ud83d\ude00",
] as const;

/** The share of prompts and provider answers that carry a piece when the profile is on. */
const NASTY_SHARE = 0.3;

/** `text` with a nasty piece appended when `roll` (a uniform draw in [0, 1)) falls in the profile's share. */
export function withNastyContent(text: string, roll: number): string {
  if (roll >= NASTY_SHARE) return text;
  return `${text} ${NASTY_PIECES[Math.floor((roll / NASTY_SHARE) * NASTY_PIECES.length)]!}`;
}

/** Whether `text` carries one of the profile's pieces (a lone surrogate or U+0000 stands out; the rest are listed). */
export function isNasty(text: string): boolean {
  return NASTY_PIECES.some((piece) => text.includes(piece));
}
