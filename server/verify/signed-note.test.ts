// Signed notes against the reference vector of golang.org/x/mod/sumdb/note (the PeterNeumann key and note), checkpoints
// in the tlog-checkpoint format, cosignatures (cosignature/v1), and receipt entries.
import { ed25519 } from "@noble/curves/ed25519.js";
import { utf8ToBytes } from "@noble/hashes/utils.js";
import { describe, expect, it } from "vitest";
import {
  decodeReceiptEntry,
  encodeReceiptEntry,
  formatCheckpointText,
  openCheckpoint,
  parseCheckpointText,
  verifyReceiptInclusion,
} from "./log-checkpoint";
import { EMPTY_ROOT, leafHash } from "./merkle-tree";
import {
  cosignatureMessage,
  cosignaturePayload,
  decodeBase64,
  findKeySignature,
  formatSignatureLine,
  formatVerifierKey,
  noteKeyId,
  parseSignedNote,
  parseVerifierKey,
  SIG_COSIGNATURE_V1,
  SIG_ED25519,
} from "./signed-note";

const VKEY = "PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW";
const SKEY_SEED = decodeBase64("AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz")!.slice(1);
const TEXT = "If you think cryptography is the answer to your problem,\nthen you don't know what your problem is.\n";
const NOTE = `${TEXT}\n— PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n`;

const sign = (text: string, seed: Uint8Array) => ed25519.sign(utf8ToBytes(text), seed);

describe("signed notes", () => {
  it("reproduce the Go reference note byte for byte, key ID and verifier key included", () => {
    const publicKey = ed25519.getPublicKey(SKEY_SEED);
    expect(noteKeyId("PeterNeumann", SIG_ED25519, publicKey).toString(16)).toBe("c74f20a3");
    expect(formatVerifierKey("PeterNeumann", publicKey)).toBe(VKEY);
    expect(`${TEXT}\n${formatSignatureLine("PeterNeumann", 0xc74f20a3, sign(TEXT, SKEY_SEED))}`).toBe(NOTE);
  });

  it("verify the reference note and refuse it once a byte changed", () => {
    const key = parseVerifierKey(VKEY)!;
    const note = parseSignedNote(NOTE)!;
    expect(note.text).toBe(TEXT);
    expect(findKeySignature(note, key)).toEqual({ ok: true });
    expect(findKeySignature(parseSignedNote(NOTE.replace("cryptography", "cryptographY"))!, key)).toBe("invalid");
    const other = parseVerifierKey(formatVerifierKey("Someone", ed25519.getPublicKey(new Uint8Array(32).fill(1))))!;
    expect(findKeySignature(note, other)).toBe("absent");
  });

  it("rejects malformed verifier keys and notes", () => {
    for (const bad of [
      "PeterNeumann+c74f20a4+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW",
      "PeterNeumann+c74f20a3+ZRpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW",
      "PeterNeumann+c74f20a3",
      "+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW",
      VKEY.slice(0, -2),
    ]) {
      expect(parseVerifierKey(bad), bad).toBeNull();
    }
    for (const bad of [
      TEXT,
      `${TEXT}\n`,
      `${TEXT}\n— PeterNeumann\n`,
      `${TEXT}\n— PeterNeumann !!!!\n`,
      NOTE.slice(0, -1),
      NOTE.replace("If", "If\u0007"),
      `${TEXT}\n— Peter+Neumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n`,
    ]) {
      expect(parseSignedNote(bad), JSON.stringify(bad)).toBeNull();
    }
  });
});

describe("openCheckpoint()", () => {
  const seed = new Uint8Array(32).fill(7);
  const name = "signet.example/receipts";
  const vkey = formatVerifierKey(name, ed25519.getPublicKey(seed));
  const keyId = parseVerifierKey(vkey)!.keyId;
  const text = formatCheckpointText({ origin: name, size: 3, root: EMPTY_ROOT });
  const signed = `${text}\n${formatSignatureLine(name, keyId, sign(text, seed))}`;
  const witnessSeed = new Uint8Array(32).fill(9);
  const witnessKey = formatVerifierKey("witness.example/w1", ed25519.getPublicKey(witnessSeed), SIG_COSIGNATURE_V1);
  const cosign = (t: string, ts: bigint) =>
    formatSignatureLine(
      "witness.example/w1",
      parseVerifierKey(witnessKey)!.keyId,
      cosignaturePayload(ts, ed25519.sign(cosignatureMessage(t, ts), witnessSeed)),
    );

  it("formats and parses the tlog-checkpoint body", () => {
    expect(text).toBe(`${name}\n3\n47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=\n`);
    expect(parseCheckpointText(text)).toEqual({ origin: name, size: 3, root: EMPTY_ROOT });
    for (const bad of [
      `${name}\n03\n47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=\n`,
      `${name}\n3\nAAAA\n`,
      `${name}\n3\n`,
      `${name}\n-1\n47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=\n`,
    ])
      expect(parseCheckpointText(bad)).toBeNull();
  });

  it("accepts the log's signature and counts witness cosignatures towards a quorum", () => {
    expect(openCheckpoint(signed, { logKey: vkey })).toMatchObject({
      ok: true,
      checkpoint: { size: 3 },
      cosignedBy: [],
    });
    expect(openCheckpoint(signed, { logKey: vkey, witnesses: [witnessKey], quorum: 1 })).toEqual({
      ok: false,
      reason: "witness_quorum_not_met",
    });
    const cosigned = signed + cosign(text, 1_700_000_000n);
    expect(openCheckpoint(cosigned, { logKey: vkey, witnesses: [witnessKey], quorum: 1 })).toMatchObject({
      ok: true,
      cosignedBy: [{ name: "witness.example/w1", timestamp: 1_700_000_000 }],
    });
    const forged = signed + cosign(text.replace("\n3\n", "\n4\n"), 1_700_000_000n);
    expect(openCheckpoint(forged, { logKey: vkey, witnesses: [witnessKey], quorum: 1 })).toEqual({
      ok: false,
      reason: "witness_signature_invalid",
    });
  });

  it("rejects another key's checkpoint, a changed size, and another origin", () => {
    const otherKey = formatVerifierKey(name, ed25519.getPublicKey(new Uint8Array(32).fill(8)));
    expect(openCheckpoint(signed, { logKey: otherKey })).toEqual({ ok: false, reason: "log_signature_missing" });
    expect(openCheckpoint(signed.replace("\n3\n", "\n4\n"), { logKey: vkey })).toEqual({
      ok: false,
      reason: "log_signature_invalid",
    });
    expect(openCheckpoint(signed, { logKey: vkey, origin: "elsewhere" })).toEqual({
      ok: false,
      reason: "origin_mismatch",
    });
    expect(openCheckpoint("nonsense", { logKey: vkey })).toEqual({ ok: false, reason: "malformed_checkpoint" });
    expect(openCheckpoint(signed, { logKey: "junk" })).toEqual({ ok: false, reason: "bad_log_key" });
  });
});

describe("encodeReceiptEntry() and decodeReceiptEntry()", () => {
  it("write the tag, the signed canonical bytes and the signature, and read them back", () => {
    const receipt = { v: 2, model: "local/echo-1", cost_usdc: 0.000123, inference_id: "x", service_signature: "5sig" };
    const entry = encodeReceiptEntry(receipt);
    expect(new TextDecoder().decode(entry)).toBe(
      'signet-receipt/v1\n{"cost_usdc":0.000123,"inference_id":"x","model":"local/echo-1","v":2}\n5sig',
    );
    expect(decodeReceiptEntry(entry)?.receipt).toEqual(receipt);
    expect(decodeReceiptEntry(utf8ToBytes('signet-receipt/v1\n{"v":2, "model":"m"}\n5sig'))).toBeNull();
    expect(decodeReceiptEntry(utf8ToBytes("other/v1\n{}\nsig"))).toBeNull();
    expect(() => encodeReceiptEntry({ v: 2 })).toThrow(/service_signature/);
  });
});

describe("verifyReceiptInclusion()", () => {
  const seed = new Uint8Array(32).fill(3);
  const name = "signet.example/log";
  const vkey = formatVerifierKey(name, ed25519.getPublicKey(seed));
  const receipt = { v: 2, inference_id: "a", service_signature: "5sig" };
  const entry = encodeReceiptEntry(receipt);
  const root = leafHash(entry);
  const text = formatCheckpointText({ origin: name, size: 1, root });
  const checkpoint = `${text}\n${formatSignatureLine(name, parseVerifierKey(vkey)!.keyId, sign(text, seed))}`;

  it("accepts the one-entry tree's proof and names where the receipt is", () => {
    expect(
      verifyReceiptInclusion(
        receipt,
        { log_index: 0, tree_size: 1, inclusion_proof: [], checkpoint },
        { logKey: vkey },
      ),
    ).toEqual({ ok: true, index: 0, treeSize: 1, logKeyName: name, cosignedBy: [] });
  });

  it("rejects malformed input: proofs, sizes, hashes and receipts that are not what the checkpoint commits to", () => {
    const base = { log_index: 0, tree_size: 1, inclusion_proof: [] as string[], checkpoint };
    expect(verifyReceiptInclusion(receipt, { ...base, tree_size: 2 }, { logKey: vkey })).toEqual({
      ok: false,
      reason: "size_mismatch",
    });
    expect(verifyReceiptInclusion(receipt, { ...base, inclusion_proof: ["not base64!"] }, { logKey: vkey })).toEqual({
      ok: false,
      reason: "malformed_proof",
    });
    expect(verifyReceiptInclusion(receipt, { ...base, inclusion_proof: null as never }, { logKey: vkey })).toEqual({
      ok: false,
      reason: "malformed_proof",
    });
    expect(verifyReceiptInclusion(receipt, { ...base, log_index: "0" as never }, { logKey: vkey })).toEqual({
      ok: false,
      reason: "not_included",
    });
    expect(verifyReceiptInclusion({ v: 2 }, base, { logKey: vkey })).toEqual({ ok: false, reason: "not_included" });
    expect(verifyReceiptInclusion(receipt, null as never, { logKey: vkey })).toEqual({
      ok: false,
      reason: "malformed_checkpoint",
    });
    expect(
      verifyReceiptInclusion(receipt, { ...base, checkpoint: checkpoint.replace("\n1\n", "\n2\n") }, { logKey: vkey }),
    ).toEqual({ ok: false, reason: "log_signature_invalid" });
  });
});
