// Grant challenges: short-lived, single-use, human-readable messages a wallet displays and signs.
import "server-only";
import { randomBytes } from "node:crypto";
import type { DbClient } from "../db";
import { AppError } from "../errors";
import { formatUnitsAsUsdc, isBase58PublicKey } from "../verify";

/** How long a challenge may be signed and claimed. */
const GRANT_CHALLENGE_TTL_MS = 5 * 60_000;

/** Issues and stores a challenge naming the service, the key, the amount, a nonce and the expiry (from `now`, epoch ms). */
export async function issueGrantChallenge(
  db: DbClient,
  agentPubkey: string,
  amountUnits: bigint,
  serviceUrl: string,
  now: number,
): Promise<{ challenge: string; nonce: string; expires_at: string; amount_usdc: string }> {
  if (!isBase58PublicKey(agentPubkey))
    throw new AppError("invalid_request", "agent_pubkey must be a base58 public key", { detail: "agent_pubkey" });
  const nonce = randomBytes(16).toString("hex");
  const expiresAt = new Date(now + GRANT_CHALLENGE_TTL_MS);
  const amount = formatUnitsAsUsdc(amountUnits);
  const message = [
    "Signet wants you to claim a free credit grant.",
    "",
    `Service: ${serviceUrl}`,
    `Agent: ${agentPubkey}`,
    `Amount: ${amount} USDC of prepaid credit`,
    `Nonce: ${nonce}`,
    `Expires: ${expiresAt.toISOString()}`,
    "",
    "Signing proves you own this key. It sends no transaction and costs nothing.",
  ].join("\n");
  await db.grantChallenge.create({ data: { nonce, agentPubkey, message, expiresAt } });
  return { challenge: message, nonce, expires_at: expiresAt.toISOString(), amount_usdc: amount };
}

/** The nonce line of a challenge message, or null. */
export function challengeNonce(message: string): string | null {
  return /^Nonce: ([0-9a-f]{32})$/m.exec(message)?.[1] ?? null;
}
