// Whether this log key may go on signing the stored log: the latest checkpoint must already carry a verifying
// signature by LOG_SECRET_KEY or LOG_PREVIOUS_SECRET_KEY. Otherwise serving would switch the log's key without a
// transition, and whoever pinned the key that signed the log could verify nothing it signs from then on. Pure: the
// caller reads the row.
import {
  checkNoteSignature,
  parseCheckpointText,
  parseSignedNote,
  parseVerifierKey,
  SIG_ED25519,
  verifyEd25519Noble,
  type Ed25519Backend,
  type NoteVerifierKey,
} from "../verify";

/** What the rule needs of the log's identity (a LogIdentity is one): its origin, its key, its previous key. */
export interface LogKeys {
  origin: string;
  /** LOG_SECRET_KEY's verifier key, `<origin>+<key ID>+<base64>`. */
  verifierKey: string;
  /** LOG_PREVIOUS_SECRET_KEY's, during a rotation; else null. */
  previous: { verifierKey: string } | null;
}

/** The latest stored checkpoint: its tree size and its note with the log's own signature lines (no cosignatures). */
export interface LatestCheckpoint {
  size: number;
  note: string;
}

/** Why this key may not go on: signed by none of the configured keys, or a note that cannot be read at all. */
type LogKeyMismatchReason = "key_switch_without_transition" | "unreadable_checkpoint";

export type LogKeyContinuity =
  | {
      ok: true;
      /**
       * none: no checkpoint yet (this key signs the first); signed: by LOG_SECRET_KEY or LOG_PREVIOUS_SECRET_KEY;
       * other_origin: the latest is another origin's, a log renamed (LOG_ORIGIN, or SERVICE_BASE_URL's host when it
       * is unset, changed): what this origin signs is a new log's statement, which no verifier of the old origin takes
       * for the old log's (its origin line and key name differ), so no pinned key is silently switched.
       */
      basis: "none" | "signed" | "other_origin";
    }
  | {
      ok: false;
      reason: LogKeyMismatchReason;
      size: number;
      /** The key IDs (8 hex digits) of the checkpoint's signature lines under this origin, in their order. */
      found: string[];
      /** The key IDs of LOG_SECRET_KEY, then LOG_PREVIOUS_SECRET_KEY when set. */
      expected: string[];
      /** One line for an operator: what was found, what was expected, and how to rotate the log key. */
      detail: string;
    };

const hex8 = (n: number) => n.toString(16).padStart(8, "0");

function logKey(vkey: unknown, what: string): NoteVerifierKey {
  const key = typeof vkey === "string" ? parseVerifierKey(vkey) : null;
  if (!key || key.type !== SIG_ED25519)
    throw new TypeError(`checkLogKeyContinuity: ${what} is not an Ed25519 verifier key`);
  return key;
}

/**
 * Decides whether the log `keys` names may sign and extend a log whose latest stored checkpoint is `latest` (null: none
 * yet). A line with one of the keys' IDs whose signature does not verify over the note counts as no signature.
 */
export function checkLogKeyContinuity(
  latest: LatestCheckpoint | null,
  keys: LogKeys,
  backend: Ed25519Backend = verifyEd25519Noble,
): LogKeyContinuity {
  if (typeof keys !== "object" || keys === null || typeof keys.origin !== "string")
    throw new TypeError("checkLogKeyContinuity: a log identity is required");
  const current = logKey(keys.verifierKey, "the log key");
  const previous = keys.previous ? logKey(keys.previous.verifierKey, "the previous log key") : null;
  if (current.name !== keys.origin || (previous && previous.name !== keys.origin))
    throw new TypeError("checkLogKeyContinuity: the log keys must be named by the log's origin");
  if (latest === null) return { ok: true, basis: "none" };
  if (
    typeof latest !== "object" ||
    !Number.isSafeInteger(latest.size) ||
    latest.size < 0 ||
    typeof latest.note !== "string"
  ) {
    throw new TypeError("checkLogKeyContinuity: the latest checkpoint is { size, note }");
  }
  const signers = previous ? [current, previous] : [current];
  const expected = signers.map((k) => hex8(k.keyId));
  const expectedText = previous
    ? `not by LOG_SECRET_KEY (key ${expected[0]}) nor LOG_PREVIOUS_SECRET_KEY (key ${expected[1]})`
    : `not by LOG_SECRET_KEY (key ${expected[0]}), and LOG_PREVIOUS_SECRET_KEY is unset`;
  const note = parseSignedNote(latest.note);
  const checkpoint = note ? parseCheckpointText(note.text) : null;
  // SECURITY: fail closed. This service wrote every stored note; one it cannot read was written by someone else, and
  // signing a successor of a checkpoint nobody can verify would vouch for a history no one has seen.
  if (!note || !checkpoint) {
    return {
      ok: false,
      reason: "unreadable_checkpoint",
      size: latest.size,
      found: [],
      expected,
      detail: `the receipt log's latest stored checkpoint (size ${latest.size}) is not a signed checkpoint note, so no key can be seen to have signed it; the log is not signed or extended past it`,
    };
  }
  if (checkpoint.origin !== keys.origin) return { ok: true, basis: "other_origin" };
  if (signers.some((key) => note.signatures.some((sig) => checkNoteSignature(note.text, sig, key, backend).ok)))
    return { ok: true, basis: "signed" };
  const lines = note.signatures.filter((sig) => sig.name === keys.origin);
  const found = lines.map((sig) => hex8(sig.keyId));
  const foundText =
    lines.length === 0
      ? "carries no signature under its origin"
      : `is signed by ${lines.map((sig) => `key ${hex8(sig.keyId)}${signers.some((k) => k.keyId === sig.keyId) ? " (a line whose signature does not verify)" : ""}`).join(", ")}`;
  const signedBy = [...new Set(found.filter((id) => !expected.includes(id)))];
  const rotate =
    signedBy.length > 0 ? `the key that signed the log (key ${signedBy.join(" or ")})` : "the key that signed the log";
  return {
    ok: false,
    reason: "key_switch_without_transition",
    size: latest.size,
    found,
    expected,
    detail:
      `the receipt log's latest checkpoint (${keys.origin}, size ${latest.size}) ${foundText}, ${expectedText}: signing on would switch the log's key ` +
      `without a transition, and whoever pinned the key that signed it could verify nothing signed from then on; to rotate the log key, set ` +
      `LOG_PREVIOUS_SECRET_KEY to ${rotate} beside the new LOG_SECRET_KEY; a restored backup or another deployment's database needs the log key that signed it`,
  };
}
