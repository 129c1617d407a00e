// x402 signed offers and receipts (the `offer-receipt` extension's JWS, EdDSA) checked against the service's did:web
// document: the JWS `kid` names one of the document's verification methods, and a retired operator key (a method
// marked `revoked`) vouches only for a JWS its own payload places before that key's retirement. Also what names a key
// in that document, so the service that publishes it and the verifiers that read it agree. Pure and browser-safe: the
// caller fetches the document and passes the Ed25519 check.
import { decodeBase64 } from "./signed-note";
import type { Ed25519Backend } from "./ed25519";
import { formatUnixMs } from "./operator-keys";

/**
 * The fragment of the current operator key's verification method, `did:web:<host>#operator-key`: the `kid` of every JWS
 * signed before per-key ids, and what stock clients resolve (it follows the current key through a rotation).
 */
export const OPERATOR_KEY_FRAGMENT = "operator-key";

/**
 * Base58 characters of a key in its per-key fragment, `operator-key-<first 8>`: about 46 bits, so two keys of one
 * operator share a fragment with odds of about 1 in 10^13 per pair (the document refuses it if they ever do). Eight,
 * not all 44: each character of the `kid` costs 16/9 bytes of the 402's PAYMENT-REQUIRED header (base64url in the JWS,
 * then base64 in the header), which must stay within a default reverse proxy's 4 KB head.
 */
export const OPERATOR_KEY_ID_CHARS = 8;

/** The per-key fragment of an operator key (base58): `operator-key-<its first 8 characters>`. It names that key for good. */
export function operatorKeyFragment(publicKeyBase58: string): string {
  return `${OPERATOR_KEY_FRAGMENT}-${publicKeyBase58.slice(0, OPERATOR_KEY_ID_CHARS)}`;
}

/**
 * Where a did:web DID's document is (did:web 1.0 §3.2.1): `https://<host>/.well-known/did.json`, or
 * `https://<host>/<path>/did.json` for a DID with a path; HTTP for `localhost` and `127.0.0.1`, as @x402/extensions'
 * own resolver reads it. Null for anything that is not a did:web DID.
 */
export function didWebDocumentUrl(did: string): string | null {
  const match = /^did:web:([^:#?/]+)((?::[^:#?/]+)*)$/.exec(did);
  if (!match) return null;
  const domain = safeDecode(match[1]!);
  const path = match[2] ? match[2].slice(1).split(":").map(safeDecode) : [];
  if (domain === null || path.includes(null) || /[/?#@\s]/.test(domain)) return null;
  const host = domain.split(":")[0];
  const scheme = host === "localhost" || host === "127.0.0.1" ? "http" : "https";
  return path.length > 0
    ? `${scheme}://${domain}/${path.join("/")}/did.json`
    : `${scheme}://${domain}/.well-known/did.json`;
}

/** What a JWS is: a signed offer (its payload carries `validUntil`) or a signed receipt (`issuedAt`). */
export type X402JwsKind = "offer" | "receipt";

/** Why a JWS does not stand for the service whose DID document was given. */
export type OperatorJwsFailure =
  /** Not a JWS compact serialization whose header and payload are base64url JSON objects. */
  | "unreadable"
  /** The `kid` names a key of another DID (or there is none): any key verifies its own signature. */
  | "foreign_key"
  /** The document lists no assertion key, current or retired, under the `kid`. */
  | "unknown_key"
  /** Not an EdDSA signature by the key the `kid` names, over this header and payload. */
  | "signature_invalid"
  /** Made by a retired key, for a JWS its payload places at or after that key's retirement. */
  | "signed_after_retirement"
  /** Made by a retired key, for a JWS whose payload has no time (whole Unix seconds) to place it. */
  | "timestamp_missing";

export type OperatorJwsCheck =
  /** `retiredAt`: the retirement (Unix ms) of the retired key that signed, null for a current key. */
  | { ok: true; kid: string; retiredAt: number | null; payload: Record<string, unknown> }
  | { ok: false; reason: OperatorJwsFailure; detail: string };

/** One key of the document: its DID URL, its Ed25519 public key, its retirement and whether it makes assertions. */
interface DidKey {
  id: string;
  publicKey: Uint8Array;
  /** Unix ms of `revoked`; null when the method is not revoked. */
  revokedAt: number | null;
  assertion: boolean;
}

/**
 * Checks a JWS offer or receipt (compact serialization) against the DID document of `did`, the service's own. The key
 * is the verification method the `kid` names, listed under `assertionMethod` or marked `revoked`; a revoked one only
 * for a JWS whose own time is before its `revoked` instant (a receipt's `issuedAt`; an offer's `validUntil`, the only
 * time an offer carries: it was issued before it expired, so an offer whose validity ends before the retirement was
 * signed before it). A JWS naming the current key's `#operator-key` (every JWS signed before per-key ids) is checked
 * against the current key, then against each retired key within the same bound. Never throws.
 * SECURITY: the time is the signer's own claim: whoever still holds a retired key can backdate. The bound stops what
 * the key vouches for from its retirement on; a key that leaked is dropped from the document, not retired.
 */
export function checkOperatorJws(
  backend: Ed25519Backend,
  jws: unknown,
  kind: X402JwsKind,
  document: unknown,
  did: string,
): OperatorJwsCheck {
  const parts = typeof jws === "string" ? jws.split(".") : [];
  const header = parts.length === 3 ? decodeJsonObject(parts[0]!) : null;
  const payload = parts.length === 3 ? decodeJsonObject(parts[1]!) : null;
  const signature = parts.length === 3 ? decodeBase64Url(parts[2]!) : null;
  if (!header || !payload || !signature)
    return { ok: false, reason: "unreadable", detail: "not a JWS whose header and payload are base64url JSON objects" };
  const kid = typeof header.kid === "string" ? header.kid : "";
  // SECURITY: any key verifies its own signature; only the service's own DID may speak for the service.
  if (!kid.startsWith(`${did}#`))
    return { ok: false, reason: "foreign_key", detail: `signed by ${kid || "no key id"}, not a key of ${did}` };
  const keys = readDidKeys(document, did);
  if (keys === null)
    return { ok: false, reason: "unknown_key", detail: `the document given is not ${did}'s DID document` };
  const named = keys.filter((k) => k.id === kid && (k.assertion || k.revokedAt !== null));
  // A JWS from before per-key ids names the current key's `#operator-key`, whichever key that was when it signed.
  const legacy =
    kid === `${did}#${OPERATOR_KEY_FRAGMENT}`
      ? keys.filter((k) => k.revokedAt !== null && k.id.startsWith(`${did}#${OPERATOR_KEY_FRAGMENT}-`))
      : [];
  if (named.length === 0)
    return { ok: false, reason: "unknown_key", detail: `${did}'s DID document lists no assertion key ${kid}` };
  if (header.alg !== "EdDSA")
    return { ok: false, reason: "signature_invalid", detail: `the JWS algorithm is ${String(header.alg)}, not EdDSA` };
  const message = new TextEncoder().encode(`${parts[0]}.${parts[1]}`);
  const signer = [...named, ...legacy].find((k) => signature.length === 64 && backend(signature, message, k.publicKey));
  if (!signer) return { ok: false, reason: "signature_invalid", detail: `the signature is not ${kid}'s over this JWS` };
  if (signer.revokedAt === null) return { ok: true, kid, retiredAt: null, payload };
  const by = `made by ${signer.id}, retired at ${formatUnixMs(signer.revokedAt)}`;
  const field = kind === "receipt" ? "issuedAt" : "validUntil";
  const seconds = payload[field];
  if (
    typeof seconds !== "number" ||
    !Number.isSafeInteger(seconds) ||
    !Number.isSafeInteger(seconds * 1000) ||
    seconds < 0
  ) {
    return {
      ok: false,
      reason: "timestamp_missing",
      detail: `${by}: the ${kind} has no ${field} to show it was signed before then`,
    };
  }
  if (seconds * 1000 >= signer.revokedAt) {
    return {
      ok: false,
      reason: "signed_after_retirement",
      detail: `${by}: the ${kind}'s ${field} ${formatUnixMs(seconds * 1000)} is not before its retirement`,
    };
  }
  return { ok: true, kid, retiredAt: signer.revokedAt, payload };
}

/** ISO 8601 with seconds and a zone, as xsd:dateTime writes `revoked` (`2026-05-01T00:00:00.000Z`). */
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:\d{2})$/;

/**
 * The Ed25519 JsonWebKey2020 methods of `document` that `did` controls, with the ids `assertionMethod` references;
 * null when `document` is not `did`'s DID document. Methods of another kind are left out.
 * SECURITY: a method whose `revoked` cannot be read is left out, never read as not revoked.
 */
function readDidKeys(document: unknown, did: string): DidKey[] | null {
  if (typeof document !== "object" || document === null || (document as { id?: unknown }).id !== did) return null;
  const { verificationMethod, assertionMethod } = document as {
    verificationMethod?: unknown;
    assertionMethod?: unknown;
  };
  if (!Array.isArray(verificationMethod)) return null;
  const absolute = (id: string) => (id.startsWith("#") ? `${did}${id}` : id);
  const asserting = new Set(
    (Array.isArray(assertionMethod) ? assertionMethod : [])
      .filter((r): r is string => typeof r === "string")
      .map(absolute),
  );
  const keys: DidKey[] = [];
  for (const entry of verificationMethod as unknown[]) {
    if (typeof entry !== "object" || entry === null) continue;
    const {
      id,
      controller,
      publicKeyJwk: jwk,
      revoked,
    } = entry as {
      id?: unknown;
      controller?: unknown;
      publicKeyJwk?: { kty?: unknown; crv?: unknown; x?: unknown };
      revoked?: unknown;
    };
    if (
      typeof id !== "string" ||
      controller !== did ||
      typeof jwk !== "object" ||
      jwk === null ||
      jwk.kty !== "OKP" ||
      jwk.crv !== "Ed25519" ||
      typeof jwk.x !== "string"
    )
      continue;
    const publicKey = decodeBase64Url(jwk.x);
    if (!publicKey || publicKey.length !== 32) continue;
    let revokedAt: number | null = null;
    if (revoked !== undefined) {
      revokedAt = typeof revoked === "string" && ISO_INSTANT.test(revoked) ? Date.parse(revoked) : Number.NaN;
      if (!Number.isFinite(revokedAt)) continue;
    }
    keys.push({ id: absolute(id), publicKey, revokedAt, assertion: asserting.has(absolute(id)) });
  }
  return keys;
}

/** Strict base64url without padding (RFC 7515 §2): null unless `text` is the canonical encoding of some bytes. */
function decodeBase64Url(text: string): Uint8Array | null {
  if (!/^[A-Za-z0-9_-]*$/.test(text) || text.length % 4 === 1) return null;
  const standard = text.replace(/-/g, "+").replace(/_/g, "/");
  return decodeBase64(standard.padEnd(standard.length + ((4 - (standard.length % 4)) % 4), "="));
}

/** The JSON object a base64url segment encodes, or null. */
function decodeJsonObject(segment: string): Record<string, unknown> | null {
  const bytes = decodeBase64Url(segment);
  if (!bytes) return null;
  try {
    const value = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes)) as unknown;
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

/** decodeURIComponent, or null for a malformed escape. */
function safeDecode(text: string): string | null {
  try {
    return decodeURIComponent(text);
  } catch {
    return null;
  }
}
