// C2SP signed notes and the two signature types a transparency log needs: Ed25519 note signatures (type 0x01, the
// log's own) and timestamped Ed25519 cosignatures (type 0x04, c2sp.org/tlog-cosignature, a witness's). Key IDs are
// SHA-256(name ‖ 0x0A ‖ type ‖ public key)[:4]; verifier keys are `<name>+<hex key ID>+<base64(type ‖ key)>`.
// Pure and browser-safe: the Ed25519 check is injected (noble by default).
import { sha256 } from "@noble/hashes/sha2.js";
import { utf8ToBytes } from "@noble/hashes/utils.js";
import { verifyEd25519Noble, type Ed25519Backend } from "./ed25519";

export const SIG_ED25519 = 0x01;
export const SIG_COSIGNATURE_V1 = 0x04;
export type NoteSignatureType = typeof SIG_ED25519 | typeof SIG_COSIGNATURE_V1;

/** Verifiers must accept at least 16 signatures; past this many a note is refused outright. */
const MAX_NOTE_SIGNATURES = 100;

/** A parsed verifier key. */
export interface NoteVerifierKey {
  name: string;
  keyId: number;
  type: NoteSignatureType;
  publicKey: Uint8Array;
}

/** One signature line: the key name, the key ID and what follows it (signature, or timestamp ‖ signature). */
export interface NoteSignature {
  name: string;
  keyId: number;
  payload: Uint8Array;
}

export interface ParsedNote {
  /** The signed text, final newline included. */
  text: string;
  signatures: NoteSignature[];
}

/** Standard base64 with padding (RFC 4648 §4). */
export function encodeBase64(bytes: Uint8Array): string {
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary);
}

/** Strict standard base64: null unless `text` is the canonical encoding of some bytes. */
export function decodeBase64(text: string): Uint8Array | null {
  if (text.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(text)) return null;
  try {
    const bytes = Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
    return encodeBase64(bytes) === text ? bytes : null;
  } catch {
    return null;
  }
}

/** True if `text` holds an ASCII control character (below U+0020), other than a newline when `newlineAllowed`. */
function hasControlCharacter(text: string, newlineAllowed: boolean): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x20 && !(newlineAllowed && c === 0x0a)) return true;
  }
  return false;
}

/** A key name: non-empty, no Unicode spaces, no `+`. */
export function isValidKeyName(name: string): boolean {
  return name.length > 0 && !/[\s+]/u.test(name) && !hasControlCharacter(name, false);
}

/** The key ID: the first four bytes of SHA-256(name ‖ 0x0A ‖ type ‖ publicKey), big-endian. */
export function noteKeyId(name: string, type: NoteSignatureType, publicKey: Uint8Array): number {
  const nameBytes = utf8ToBytes(name);
  const data = new Uint8Array(nameBytes.length + 2 + publicKey.length);
  data.set(nameBytes, 0);
  data[nameBytes.length] = 0x0a;
  data[nameBytes.length + 1] = type;
  data.set(publicKey, nameBytes.length + 2);
  const hash = sha256(data);
  return ((hash[0]! << 24) | (hash[1]! << 16) | (hash[2]! << 8) | hash[3]!) >>> 0;
}

const hex8 = (n: number) => n.toString(16).padStart(8, "0");

/** The verifier key string `<name>+<hex key ID>+<base64(type ‖ publicKey)>`. */
export function formatVerifierKey(name: string, publicKey: Uint8Array, type: NoteSignatureType = SIG_ED25519): string {
  if (!isValidKeyName(name)) throw new RangeError("a key name is non-empty, without spaces or '+'");
  const material = new Uint8Array(1 + publicKey.length);
  material[0] = type;
  material.set(publicKey, 1);
  return `${name}+${hex8(noteKeyId(name, type, publicKey))}+${encodeBase64(material)}`;
}

/** Parses a verifier key; null when malformed, of another algorithm, or when its key ID does not match its key. */
export function parseVerifierKey(vkey: string): NoteVerifierKey | null {
  const first = vkey.indexOf("+");
  const second = vkey.indexOf("+", first + 1);
  if (first <= 0 || second < 0) return null;
  const name = vkey.slice(0, first);
  const idText = vkey.slice(first + 1, second);
  const material = decodeBase64(vkey.slice(second + 1));
  if (!isValidKeyName(name) || !/^[0-9a-f]{8}$/.test(idText) || !material || material.length !== 33) return null;
  const type = material[0]!;
  if (type !== SIG_ED25519 && type !== SIG_COSIGNATURE_V1) return null;
  const publicKey = material.slice(1);
  const keyId = noteKeyId(name, type, publicKey);
  if (hex8(keyId) !== idText) return null;
  return { name, keyId, type, publicKey };
}

/** A signature line (with its newline): `— <name> <base64(keyId ‖ payload)>`. */
export function formatSignatureLine(name: string, keyId: number, payload: Uint8Array): string {
  const bytes = new Uint8Array(4 + payload.length);
  bytes[0] = keyId >>> 24;
  bytes[1] = (keyId >>> 16) & 0xff;
  bytes[2] = (keyId >>> 8) & 0xff;
  bytes[3] = keyId & 0xff;
  bytes.set(payload, 4);
  return `\u2014 ${name} ${encodeBase64(bytes)}\n`;
}

/** Parses a signed note; null for anything malformed (no signature, a control character, a bad signature line). */
export function parseSignedNote(note: string): ParsedNote | null {
  if (note.length > 1_000_000 || hasControlCharacter(note, true)) return null;
  const split = note.lastIndexOf("\n\n");
  if (split < 0 || !note.endsWith("\n")) return null;
  const text = note.slice(0, split + 1);
  const lines = note.slice(split + 2, -1).split("\n");
  if (lines.length === 0 || lines.length > MAX_NOTE_SIGNATURES) return null;
  const signatures: NoteSignature[] = [];
  for (const line of lines) {
    const match = /^\u2014 (\S+) (\S+)$/u.exec(line);
    if (!match || !isValidKeyName(match[1]!)) return null;
    const bytes = decodeBase64(match[2]!);
    if (!bytes || bytes.length < 5) return null;
    signatures.push({
      name: match[1]!,
      keyId: ((bytes[0]! << 24) | (bytes[1]! << 16) | (bytes[2]! << 8) | bytes[3]!) >>> 0,
      payload: bytes.slice(4),
    });
  }
  return { text, signatures };
}

/** The message a v1 cosignature signs: `cosignature/v1\ntime <t>\n` then the checkpoint's note text. */
export function cosignatureMessage(text: string, timestamp: bigint): Uint8Array {
  return utf8ToBytes(`cosignature/v1\ntime ${timestamp.toString()}\n${text}`);
}

/** The timestamp ‖ signature payload of a cosignature. */
export function cosignaturePayload(timestamp: bigint, signature: Uint8Array): Uint8Array {
  const out = new Uint8Array(8 + signature.length);
  new DataView(out.buffer).setBigUint64(0, timestamp);
  out.set(signature, 8);
  return out;
}

export type NoteSignatureCheck = { ok: true; timestamp?: bigint } | { ok: false };

/** Checks one signature of `text` made by `key` (its name and key ID already matched). */
export function checkNoteSignature(
  text: string,
  sig: NoteSignature,
  key: NoteVerifierKey,
  backend: Ed25519Backend = verifyEd25519Noble,
): NoteSignatureCheck {
  if (sig.name !== key.name || sig.keyId !== key.keyId) return { ok: false };
  if (key.type === SIG_ED25519) {
    return sig.payload.length === 64 && backend(sig.payload, utf8ToBytes(text), key.publicKey)
      ? { ok: true }
      : { ok: false };
  }
  if (sig.payload.length !== 72) return { ok: false };
  const timestamp = new DataView(sig.payload.buffer, sig.payload.byteOffset, 8).getBigUint64(0);
  if (timestamp > 2n ** 63n - 1n) return { ok: false };
  return backend(sig.payload.slice(8), cosignatureMessage(text, timestamp), key.publicKey)
    ? { ok: true, timestamp }
    : { ok: false };
}

/** The signature lines of `note` made by `key`: verified, failed, or absent. Unknown keys' lines are ignored. */
export function findKeySignature(
  note: ParsedNote,
  key: NoteVerifierKey,
  backend: Ed25519Backend = verifyEd25519Noble,
): "absent" | "invalid" | { ok: true; timestamp?: bigint } {
  let verified: { ok: true; timestamp?: bigint } | null = null;
  for (const sig of note.signatures) {
    if (sig.name !== key.name || sig.keyId !== key.keyId) continue;
    const check = checkNoteSignature(note.text, sig, key, backend);
    // SECURITY: a known key's failed signature rejects the note, even beside a good one.
    if (!check.ok) return "invalid";
    verified ??= check;
  }
  return verified ?? "absent";
}
