import { ed25519 } from "@noble/curves/ed25519.js";
import { describe, expect, it } from "vitest";
import { generateKeypair, type Ed25519Keypair } from "../keys/parse-secret-key";
import { formatCheckpointText, openCheckpoint } from "./log-checkpoint";
import { formatSignatureLine, formatVerifierKey, parseVerifierKey } from "./signed-note";

const ORIGIN = "signet.example/log";
const oldKey = generateKeypair();
const newKey = generateKeypair();
const vkey = (key: Ed25519Keypair, name = ORIGIN) => formatVerifierKey(name, key.publicKey);
const text = formatCheckpointText({ origin: ORIGIN, size: 7, root: new Uint8Array(32).fill(3) });
const line = (key: Ed25519Keypair, over = text) =>
  formatSignatureLine(
    ORIGIN,
    parseVerifierKey(vkey(key))!.keyId,
    ed25519.sign(new TextEncoder().encode(over), key.seed),
  );
const note = (...lines: string[]) => `${text}\n${lines.join("")}`;

describe("openCheckpoint() across a log key rotation", () => {
  it("opens a checkpoint both keys signed under either key pinned, or both", () => {
    const cosigned = note(line(newKey), line(oldKey));
    for (const logKey of [vkey(oldKey), vkey(newKey), [vkey(oldKey), vkey(newKey)]])
      expect(openCheckpoint(cosigned, { logKey })).toMatchObject({ ok: true, checkpoint: { size: 7 } });
  });

  it("opens a checkpoint one key signed alone when both are pinned, and refuses it under the other alone", () => {
    expect(openCheckpoint(note(line(oldKey)), { logKey: [vkey(oldKey), vkey(newKey)] }).ok).toBe(true);
    expect(openCheckpoint(note(line(newKey)), { logKey: [vkey(oldKey), vkey(newKey)] }).ok).toBe(true);
    expect(openCheckpoint(note(line(newKey)), { logKey: vkey(oldKey) })).toEqual({
      ok: false,
      reason: "log_signature_missing",
    });
  });

  it("refuses a checkpoint where any pinned key's signature fails, even beside a good one", () => {
    const forged = note(
      line(newKey),
      line(oldKey, formatCheckpointText({ origin: ORIGIN, size: 8, root: new Uint8Array(32) })),
    );
    expect(openCheckpoint(forged, { logKey: [vkey(oldKey), vkey(newKey)] })).toEqual({
      ok: false,
      reason: "log_signature_invalid",
    });
    expect(openCheckpoint(forged, { logKey: vkey(newKey) }).ok).toBe(true);
  });

  it("rejects malformed input: no key, keys of two names, a witness key", () => {
    expect(openCheckpoint(note(line(newKey)), { logKey: [] })).toEqual({ ok: false, reason: "bad_log_key" });
    expect(openCheckpoint(note(line(newKey)), { logKey: [vkey(newKey), vkey(oldKey, "other.example/log")] })).toEqual({
      ok: false,
      reason: "bad_log_key",
    });
    expect(
      openCheckpoint(note(line(newKey)), { logKey: [vkey(newKey), formatVerifierKey(ORIGIN, oldKey.publicKey, 0x04)] }),
    ).toEqual({ ok: false, reason: "bad_log_key" });
  });
});
