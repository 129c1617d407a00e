// The operator's retired keys (SERVICE_OPERATOR_RETIRED_KEYS): the keys it signed receipts with before a rotation,
// each with the instant it stopped. Published with the current key (GET /api/v1/operator-key, the did:web document) so
// receipts signed before then keep verifying; a receipt a retired key signed at or after its retirement does not.
import "server-only";
import { decodeBase58, type RetiredOperatorKey } from "../verify";
import { ConfigError } from "../env";

export const RETIRED_KEYS_VARIABLE = "SERVICE_OPERATOR_RETIRED_KEYS";

/** ISO 8601 with a zone: `2026-05-01T00:00:00Z`, `…T02:00:00.5+02:00`, or minutes only (`…T00:00Z`). */
const ISO_INSTANT = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3}))?)?(Z|[+-]\d{2}:\d{2})$/;
/**
 * Unix ms take 13 digits from 2001-09-09 to 2286: a shorter number is seconds (or a typo), which read as ms would
 * retire the key in 1970 and refuse every receipt it ever signed.
 */
const UNIX_MS = /^[1-9]\d{12}$/;

/**
 * Parses SERVICE_OPERATOR_RETIRED_KEYS: comma-separated `<base58 public key>@<retired at>` entries, the time as ISO
 * 8601 with a zone (`2026-05-01T00:00:00Z`) or Unix milliseconds (`1777593600000`). Throws a ConfigError naming the
 * variable and the entry for a malformed entry or a key given twice; an empty text is no retired key.
 */
export function parseRetiredOperatorKeys(text: string): RetiredOperatorKey[] {
  const entries = text
    .split(",")
    .map((e) => e.trim())
    .filter((e) => e !== "");
  const seen = new Set<string>();
  return entries.map((entry, i) => {
    const where = `${RETIRED_KEYS_VARIABLE}: entry ${i + 1} ("${entry.slice(0, 80)}")`;
    const at = entry.lastIndexOf("@");
    if (at < 0)
      throw new ConfigError(`${where} is not <base58 public key>@<retired at: ISO 8601 with a zone, or Unix ms>`);
    const pubkey = entry.slice(0, at).trim();
    if (!decodeBase58(pubkey, 32))
      throw new ConfigError(`${where}: the key is not a base58 32-byte Ed25519 public key`);
    const retiredAt = parseInstant(entry.slice(at + 1).trim());
    if (retiredAt === null)
      throw new ConfigError(
        `${where}: the retirement time is neither ISO 8601 with a zone (2026-05-01T00:00:00Z) nor 13-digit Unix milliseconds`,
      );
    if (seen.has(pubkey)) throw new ConfigError(`${where}: the key ${pubkey} is listed twice; a key is retired once`);
    seen.add(pubkey);
    return { pubkey, retired_at: retiredAt };
  });
}

/** Unix ms of an ISO 8601 instant with a zone or of 13-digit Unix ms; null for anything else (a 30 February included). */
function parseInstant(text: string): number | null {
  if (UNIX_MS.test(text)) return Number(text);
  const m = ISO_INSTANT.exec(text);
  if (!m) return null;
  const [year, month, day, hour, minute, second = 0, ms = 0] = [
    m[1],
    m[2],
    m[3],
    m[4],
    m[5],
    m[6],
    m[7]?.padEnd(3, "0"),
  ].map((v) => (v === undefined ? undefined : Number(v)));
  const local = Date.UTC(year!, month! - 1, day!, hour!, minute!, second, ms);
  const date = new Date(local);
  // Date.UTC rolls an impossible date over (31 April is 1 May); the fields must come back as written.
  if (
    date.getUTCFullYear() !== year ||
    date.getUTCMonth() !== month! - 1 ||
    date.getUTCDate() !== day ||
    date.getUTCHours() !== hour ||
    date.getUTCMinutes() !== minute ||
    date.getUTCSeconds() !== second
  ) {
    return null;
  }
  const zone = m[8]!;
  const offsetMinutes =
    zone === "Z" ? 0 : (zone.startsWith("-") ? -1 : 1) * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(4, 6)));
  if (Math.abs(offsetMinutes) > 14 * 60 || Number(zone.slice(4, 6) || 0) > 59) return null;
  return local - offsetMinutes * 60_000;
}

/**
 * Throws a ConfigError when `publicKey` (the key of the role `variable` names) is one of the operator's retired keys:
 * a retired operator key signs nothing again, in this role or another.
 */
export function refuseRetiredOperatorKey(
  retired: readonly RetiredOperatorKey[],
  variable: string,
  publicKeyBase58: string,
): void {
  // SECURITY: a retired key still vouches for receipts timestamped before its retirement; in another role, whatever
  // that role signs (a verdict, a checkpoint) would be read as such a receipt.
  if (retired.some((r) => r.pubkey === publicKeyBase58)) {
    throw new ConfigError(
      `${variable} must differ from every key in ${RETIRED_KEYS_VARIABLE}: both hold the key ${publicKeyBase58}`,
    );
  }
}
