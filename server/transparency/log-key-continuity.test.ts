import { describe, expect, it } from "vitest";
import { generateKeypair, type Ed25519Keypair } from "../keys/parse-secret-key";
import { signEd25519, verifyEd25519Node } from "../keys/node-ed25519";
import {
  EMPTY_ROOT,
  formatCheckpointText,
  formatSignatureLine,
  formatVerifierKey,
  parseVerifierKey,
  SIG_COSIGNATURE_V1,
} from "../verify";
import { checkLogKeyContinuity, type LogKeys } from "./log-key-continuity";

const ORIGIN = "signet.example/log";
const CURRENT = generateKeypair();
const PREVIOUS = generateKeypair();
const UNKNOWN = generateKeypair();
const ROOT = new Uint8Array(32).fill(7);

const vkey = (key: Ed25519Keypair, origin = ORIGIN) => formatVerifierKey(origin, key.publicKey);
const keyId = (key: Ed25519Keypair, origin = ORIGIN) =>
  parseVerifierKey(vkey(key, origin))!.keyId.toString(16).padStart(8, "0");
const keysOf = (previous: Ed25519Keypair | null): LogKeys => ({
  origin: ORIGIN,
  verifierKey: vkey(CURRENT),
  previous: previous ? { verifierKey: vkey(previous) } : null,
});
const WITH_PREVIOUS = keysOf(PREVIOUS);
const ALONE = keysOf(null);

/** A checkpoint note of `size` under `origin`, with one log signature line per key (as the publisher writes them). */
function note(signers: Ed25519Keypair[], size = 12, origin = ORIGIN): { size: number; note: string } {
  const text = formatCheckpointText({ origin, size, root: size === 0 ? EMPTY_ROOT : ROOT });
  const lines = signers.map((key) =>
    formatSignatureLine(
      origin,
      parseVerifierKey(vkey(key, origin))!.keyId,
      signEd25519(new TextEncoder().encode(text), key.seed),
    ),
  );
  return { size, note: `${text}\n${lines.join("")}` };
}

describe("checkLogKeyContinuity()", () => {
  it("lets the key sign the first checkpoint of a log that has none", () => {
    expect(checkLogKeyContinuity(null, ALONE)).toEqual({ ok: true, basis: "none" });
    expect(checkLogKeyContinuity(null, WITH_PREVIOUS)).toEqual({ ok: true, basis: "none" });
  });

  it("goes on from a checkpoint LOG_SECRET_KEY signed, alone or beside the previous key", () => {
    expect(checkLogKeyContinuity(note([CURRENT]), ALONE)).toEqual({ ok: true, basis: "signed" });
    expect(checkLogKeyContinuity(note([CURRENT]), WITH_PREVIOUS)).toEqual({ ok: true, basis: "signed" });
    expect(checkLogKeyContinuity(note([CURRENT, PREVIOUS]), WITH_PREVIOUS)).toEqual({ ok: true, basis: "signed" });
    expect(checkLogKeyContinuity(note([PREVIOUS, CURRENT]), ALONE)).toEqual({ ok: true, basis: "signed" });
  });

  it("goes on from a checkpoint the previous key signed alone: the start of a rotation", () => {
    expect(checkLogKeyContinuity(note([PREVIOUS]), WITH_PREVIOUS)).toEqual({ ok: true, basis: "signed" });
  });

  it("refuses a checkpoint signed only by a key that is not configured, naming the key IDs found and expected and how to rotate", () => {
    const refused = checkLogKeyContinuity(note([UNKNOWN]), ALONE);
    expect(refused).toMatchObject({
      ok: false,
      reason: "key_switch_without_transition",
      size: 12,
      found: [keyId(UNKNOWN)],
      expected: [keyId(CURRENT)],
    });
    if (refused.ok) throw new Error("unreachable");
    expect(refused.detail).toBe(
      `the receipt log's latest checkpoint (${ORIGIN}, size 12) is signed by key ${keyId(UNKNOWN)}, not by LOG_SECRET_KEY (key ${keyId(CURRENT)}), and LOG_PREVIOUS_SECRET_KEY is unset: ` +
        "signing on would switch the log's key without a transition, and whoever pinned the key that signed it could verify nothing signed from then on; " +
        `to rotate the log key, set LOG_PREVIOUS_SECRET_KEY to the key that signed the log (key ${keyId(UNKNOWN)}) beside the new LOG_SECRET_KEY; ` +
        "a restored backup or another deployment's database needs the log key that signed it",
    );
    expect(refused.detail).not.toContain("\n");
    const withPrevious = checkLogKeyContinuity(note([UNKNOWN]), WITH_PREVIOUS);
    expect(withPrevious).toMatchObject({
      ok: false,
      reason: "key_switch_without_transition",
      found: [keyId(UNKNOWN)],
      expected: [keyId(CURRENT), keyId(PREVIOUS)],
    });
    if (withPrevious.ok) throw new Error("unreachable");
    expect(withPrevious.detail).toContain(
      `not by LOG_SECRET_KEY (key ${keyId(CURRENT)}) nor LOG_PREVIOUS_SECRET_KEY (key ${keyId(PREVIOUS)})`,
    );
  });

  it("refuses the key that signed the log before a rotation ended, once it is LOG_PREVIOUS_SECRET_KEY no more", () => {
    // The previous key's checkpoint, and a configuration that names only another key: the old key was replaced outright.
    expect(checkLogKeyContinuity(note([PREVIOUS]), ALONE)).toMatchObject({
      ok: false,
      reason: "key_switch_without_transition",
      found: [keyId(PREVIOUS)],
    });
  });

  it("treats the empty tree's checkpoint like any other: the key that signed it was announced, and may be pinned", () => {
    expect(checkLogKeyContinuity(note([CURRENT], 0), ALONE)).toEqual({ ok: true, basis: "signed" });
    expect(checkLogKeyContinuity(note([PREVIOUS], 0), WITH_PREVIOUS)).toEqual({ ok: true, basis: "signed" });
    expect(checkLogKeyContinuity(note([UNKNOWN], 0), ALONE)).toMatchObject({
      ok: false,
      reason: "key_switch_without_transition",
      size: 0,
      found: [keyId(UNKNOWN)],
    });
  });

  it("does not count a line with the key's ID whose signature does not verify over the note", () => {
    // The current key's ID with another checkpoint's signature: what a forger without the key could write.
    const other = note([CURRENT], 13);
    const forgedLine = other.note.slice(other.note.indexOf("\n\n") + 2);
    const forged = {
      size: 12,
      note: `${formatCheckpointText({ origin: ORIGIN, size: 12, root: ROOT })}\n${forgedLine}`,
    };
    const refused = checkLogKeyContinuity(forged, ALONE);
    expect(refused).toMatchObject({
      ok: false,
      reason: "key_switch_without_transition",
      found: [keyId(CURRENT)],
      expected: [keyId(CURRENT)],
    });
    if (refused.ok) throw new Error("unreachable");
    expect(refused.detail).toContain(
      `is signed by key ${keyId(CURRENT)} (a line whose signature does not verify), not by LOG_SECRET_KEY`,
    );
    // Beside a verifying line by the previous key, the log goes on from that one.
    const withPrevious = {
      size: 12,
      note: `${forged.note}${note([PREVIOUS]).note.slice(note([PREVIOUS]).note.indexOf("\n\n") + 2)}`,
    };
    expect(checkLogKeyContinuity(withPrevious, WITH_PREVIOUS)).toEqual({ ok: true, basis: "signed" });
  });

  it("does not count the right key signing under another name, nor a witness's cosignature", () => {
    const text = formatCheckpointText({ origin: ORIGIN, size: 12, root: ROOT });
    const elsewhere = formatSignatureLine(
      "elsewhere.example/log",
      parseVerifierKey(vkey(CURRENT, "elsewhere.example/log"))!.keyId,
      signEd25519(new TextEncoder().encode(text), CURRENT.seed),
    );
    const witness = parseVerifierKey(formatVerifierKey("witness.example/w1", UNKNOWN.publicKey, SIG_COSIGNATURE_V1))!;
    const cosigned = formatSignatureLine(witness.name, witness.keyId, new Uint8Array(72).fill(1));
    const refused = checkLogKeyContinuity({ size: 12, note: `${text}\n${elsewhere}${cosigned}` }, ALONE);
    expect(refused).toMatchObject({ ok: false, reason: "key_switch_without_transition", found: [] });
    if (refused.ok) throw new Error("unreachable");
    expect(refused.detail).toContain("size 12) carries no signature under its origin, not by LOG_SECRET_KEY");
    expect(refused.detail).toContain(
      "set LOG_PREVIOUS_SECRET_KEY to the key that signed the log beside the new LOG_SECRET_KEY",
    );
  });

  it("lets a renamed log go on: a checkpoint of another origin is another log's, which these keys neither sign nor switch", () => {
    expect(checkLogKeyContinuity(note([UNKNOWN], 12, "old.example/log"), ALONE)).toEqual({
      ok: true,
      basis: "other_origin",
    });
    expect(checkLogKeyContinuity(note([CURRENT], 12, "old.example/log"), WITH_PREVIOUS)).toEqual({
      ok: true,
      basis: "other_origin",
    });
  });

  it("refuses a stored note it cannot read: no key can be seen to have signed it", () => {
    const unsigned = formatCheckpointText({ origin: ORIGIN, size: 12, root: ROOT });
    for (const text of [
      "",
      unsigned,
      `${unsigned}\n`,
      `not a checkpoint\n\n${note([CURRENT]).note.split("\n\n")[1]}`,
    ]) {
      expect(checkLogKeyContinuity({ size: 12, note: text }, ALONE)).toMatchObject({
        ok: false,
        reason: "unreadable_checkpoint",
        size: 12,
        found: [],
        expected: [keyId(CURRENT)],
      });
    }
  });

  it("decides every combination of signers and configured keys by one rule: a verifying line by the log key or the previous key", () => {
    const subsets = [
      [],
      [CURRENT],
      [PREVIOUS],
      [UNKNOWN],
      [CURRENT, PREVIOUS],
      [CURRENT, UNKNOWN],
      [PREVIOUS, UNKNOWN],
      [CURRENT, PREVIOUS, UNKNOWN],
    ];
    for (const configured of [ALONE, WITH_PREVIOUS]) {
      for (const signers of subsets) {
        const continues = signers.includes(CURRENT) || (configured.previous !== null && signers.includes(PREVIOUS));
        const latest =
          signers.length === 0
            ? { size: 12, note: formatCheckpointText({ origin: ORIGIN, size: 12, root: ROOT }) }
            : note(signers);
        const decided = checkLogKeyContinuity(latest, configured, verifyEd25519Node);
        expect(decided.ok, `${signers.length} signers, previous ${configured.previous ? "set" : "unset"}`).toBe(
          continues,
        );
        // The server's node:crypto backend and the default (noble) decide alike.
        expect(checkLogKeyContinuity(latest, configured)).toEqual(decided);
      }
    }
  });

  it("rejects malformed input", () => {
    expect(() => checkLogKeyContinuity(null, null as never)).toThrow(TypeError);
    expect(() => checkLogKeyContinuity(null, { ...ALONE, verifierKey: "junk" })).toThrow(
      /the log key is not an Ed25519 verifier key/,
    );
    expect(() =>
      checkLogKeyContinuity(null, {
        ...ALONE,
        previous: { verifierKey: formatVerifierKey(ORIGIN, PREVIOUS.publicKey, SIG_COSIGNATURE_V1) },
      }),
    ).toThrow(/previous log key/);
    expect(() => checkLogKeyContinuity(null, { ...ALONE, origin: "other.example/log" })).toThrow(
      /named by the log's origin/,
    );
    expect(() => checkLogKeyContinuity({ size: -1, note: note([CURRENT]).note }, ALONE)).toThrow(TypeError);
    expect(() => checkLogKeyContinuity({ size: 12, note: 12 } as never, ALONE)).toThrow(TypeError);
  });
});
