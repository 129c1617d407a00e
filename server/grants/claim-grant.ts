// Claiming a grant: the wallet's signature over the challenge proves key ownership; then, atomically in
// SQL, at most once per agent, at most N per hashed IP, and never past the UTC day's budget. The credit lands on the
// default network's ledger in the same transaction as the grant record.
import "server-only";
import { utf8ToBytes } from "@noble/hashes/utils.js";
import { z } from "zod";
import type { DbClient } from "../db";
import { AppError } from "../errors";
import { logEvent, type Logger } from "../log";
import type { Clock } from "../clock";
import { creditAgent } from "../ledger/credit-agent";
import { requireNetworkEnabled } from "../pipeline/network-gate";
import type { Settings } from "../settings/setting-definitions";
import { serverVerifier } from "../keys/server-verifier";
import { formatUnitsAsUsdc, isBase58PublicKey, type NetworkRegistry } from "../verify";
import { challengeNonce } from "./grant-challenge";

export const claimGrantSchema = z
  .object({
    agent_pubkey: z.string().refine(isBase58PublicKey, { message: "must be a base58 public key" }),
    challenge: z.string().min(1).max(1_000),
    signature: z.string().min(1).max(128),
  })
  .strict();

export type ClaimGrantRequest = z.infer<typeof claimGrantSchema>;

/** Serialises grant claims: the per-IP count and the daily budget are read and written under this lock. */
const GRANT_LOCK_KEY = 72_910_404;

/**
 * Claims queue on the grant lock, each holding a pooled connection while it waits: a burst of claims (a hundred at once
 * from a faucet page) waits its turn for longer than Prisma's defaults (2 s to start, 5 s in all), which would answer
 * the tail of the queue with a 500. Every claim is a few statements, so these bounds still end a stuck one.
 */
const GRANT_TRANSACTION_BOUNDS = { maxWait: 30_000, timeout: 30_000 };

/** Claims a grant (its day is the clock's, UTC); returns the credited amount and balance. Throws 401/409/429/503 AppErrors. */
export async function claimGrant(
  db: DbClient,
  networks: NetworkRegistry,
  req: ClaimGrantRequest,
  ipHash: string,
  settings: Settings,
  deps: { clock: Clock; log: Logger },
): Promise<{ granted_usdc: string; balance_usdc: string; network: string }> {
  if (!serverVerifier.verifyEd25519(utf8ToBytes(req.challenge), req.signature, req.agent_pubkey)) {
    throw new AppError("invalid_signature", "the signature is not the wallet's signature of this challenge");
  }
  const nonce = challengeNonce(req.challenge);
  if (!nonce)
    throw new AppError("challenge_expired", "this is not a challenge issued by this service; fetch a new one");
  // SECURITY: a grant never credits a network whose kill switch is off.
  requireNetworkEnabled(deps.log, networks, settings, settings.defaultNetwork, "grants");
  const network = networks.get(settings.defaultNetwork).caip2;
  const amount = settings.grantAmountUnits;
  const day = new Date(deps.clock.now()).toISOString().slice(0, 10);

  const balance = await db.$transaction(async (tx) => {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(${GRANT_LOCK_KEY})`;
    const used = await tx.$queryRaw<{ nonce: string }[]>`
      UPDATE grant_challenges SET used_at = now()
      WHERE nonce = ${nonce} AND agent_pubkey = ${req.agent_pubkey} AND message = ${req.challenge} AND used_at IS NULL AND expires_at > now()
      RETURNING nonce`;
    if (used.length === 0)
      throw new AppError(
        "challenge_expired",
        "this challenge expired, was already used, or was not issued for this key",
      );
    if (await tx.grant.findUnique({ where: { agentPubkey: req.agent_pubkey } })) {
      throw new AppError("grant_already_claimed", "this key already claimed its grant");
    }
    if ((await tx.grant.count({ where: { ipHash } })) >= settings.grantMaxPerIp) {
      throw new AppError("grant_ip_limit", "this network address has claimed its share of grants");
    }
    const today = await tx.grant.aggregate({ where: { day }, _sum: { units: true } });
    if ((today._sum.units ?? 0n) + amount > settings.grantBudgetDailyUnits) {
      throw new AppError("grant_budget_exhausted", "today's grant budget is spent; try again tomorrow (UTC)");
    }
    await tx.grant.create({ data: { agentPubkey: req.agent_pubkey, ipHash, network, units: amount, day } });
    const credited = await creditAgent(tx, {
      kind: "grant_credit",
      agentPubkey: req.agent_pubkey,
      network,
      units: amount,
    });
    if (!credited.ok) throw new Error(`grant credit refused: ${credited.reason}`);
    return credited.balanceUnits;
  }, GRANT_TRANSACTION_BOUNDS);
  logEvent(deps.log, "grant.claimed", { agent: req.agent_pubkey, network, amount: amount.toString() });
  return { granted_usdc: formatUnitsAsUsdc(amount), balance_usdc: formatUnitsAsUsdc(balance), network };
}
