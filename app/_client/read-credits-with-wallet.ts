// The browser side of reading one's own prepaid credit: the wallet signs the same signed read the CLI sends
// (`signet-prepaid-v1\nGET <origin>/api/v1/credits/<pubkey>\n` + a timestamp) with `signMessage`, so the page needs
// no private key and the service answers only the key that signed. Browser-safe (fetch + bs58 only).
import bs58 from "bs58";
import { serviceError } from "@/server/errors/error-body";

interface LedgerEntry {
  id: string;
  kind: string;
  amount_usdc: string;
  payment_id: string | null;
  inference_id: string | null;
  created_at: string;
}

export type CreditsOutcome =
  { ok: true; balanceUsdc: string; network: string; entries: LedgerEntry[] } | { ok: false; sentence: string };

/** A signed read's headers, kept while the service still accepts its timestamp. */
export interface SignedRead {
  headers: Record<string, string>;
  signedAt: number;
}

/** The service accepts a timestamp within 60 s; a held signature is reused for 45 s of that, then signed again. */
const REUSE_SIGNED_READ_MS = 45_000;

/** The exact bytes signed for a read of `pubkey`'s credits on the service at `origin` (its SERVICE_BASE_URL). */
export function creditsReadMessage(origin: string, pubkey: string, timestamp: string): Uint8Array {
  return new TextEncoder().encode(`signet-prepaid-v1\nGET ${origin}/api/v1/credits/${pubkey}\n${timestamp}`);
}

/** Has the wallet sign a read of its own credits at `now` (one `signMessage`: no transaction, no fee). */
export async function signCreditsRead(
  origin: string,
  pubkey: string,
  signMessage: (message: Uint8Array) => Promise<Uint8Array>,
  now: number,
): Promise<SignedRead> {
  const timestamp = String(now);
  const signature = await signMessage(creditsReadMessage(origin, pubkey, timestamp));
  return {
    headers: { "X-Agent-Pubkey": pubkey, "X-Agent-Timestamp": timestamp, "X-Agent-Signature": bs58.encode(signature) },
    signedAt: now,
  };
}

/** Whether a held signed read can still be sent at `now`. */
export function isFresh(read: SignedRead | null, now: number): read is SignedRead {
  return read !== null && now - read.signedAt < REUSE_SIGNED_READ_MS;
}

/** The balance and recent ledger entries of the signing key on `network` (`devnet`, `mainnet`). */
export async function readCredits(pubkey: string, network: string, read: SignedRead): Promise<CreditsOutcome> {
  const res = await fetch(`/api/v1/credits/${encodeURIComponent(pubkey)}?network=${encodeURIComponent(network)}`, {
    headers: read.headers,
    cache: "no-store",
  }).catch(() => null);
  if (!res)
    return {
      ok: false,
      sentence: "The service could not be reached to read your credit. Check your connection and try again.",
    };
  const body = (await res.json().catch(() => ({}))) as Record<string, unknown>;
  if (!res.ok) {
    const { code } = serviceError(body);
    const sentence =
      code === "request_expired"
        ? "Your signed read expired (or this computer's clock is off by more than a minute). Press Show my credit to sign a new one."
        : code === "invalid_signature"
          ? "The service did not accept the wallet's signature for this read. Reconnect the wallet and try again."
          : "Your credit could not be read right now. Try again in a minute.";
    return { ok: false, sentence };
  }
  return {
    ok: true,
    balanceUsdc: String(body.balance_usdc),
    network: String(body.network),
    entries: (body.entries as LedgerEntry[]) ?? [],
  };
}
