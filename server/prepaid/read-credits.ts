// `GET /api/v1/credits/<pubkey>?network=`: an agent's balance and recent ledger entries, only for that agent. The
// request is signed like the prepaid route: `"signet-prepaid-v1\nGET <origin>/api/v1/credits/<pubkey>\n"` + the
// X-Agent-Timestamp value.
import "server-only";
import { utf8ToBytes } from "@noble/hashes/utils.js";
import type { DbClient } from "../db";
import { AppError } from "../errors";
import { readSettings } from "../settings/read-settings";
import { formatUnitsAsUsdc, isBase58PublicKey } from "../verify";
import { authenticateSignedRequest, checkRequestWindow } from "./signed-request";
import type { Config } from "../env";
import type { Logger } from "../log";
import type { Clock } from "../clock";

/** Most recent ledger entries returned. */
const RECENT_ENTRIES = 50;

/** The balance and history of `pubkey`; the caller must have signed as `pubkey`. */
export async function readCredits(
  db: DbClient,
  cfg: Config,
  pubkey: string,
  networkName: string | null,
  headers: Headers,
  rt: { clock: Clock; log: Logger },
): Promise<unknown> {
  if (!isBase58PublicKey(pubkey))
    throw new AppError("invalid_request", "the path must hold a base58 public key", { detail: "pubkey" });
  const timestamp = headers.get("x-agent-timestamp")?.trim() ?? "";
  if (!/^\d{1,16}$/.test(timestamp))
    throw new AppError("missing_auth_headers", "X-Agent-Pubkey, X-Agent-Signature and X-Agent-Timestamp are required");
  const signer = authenticateSignedRequest(
    cfg.baseUrl,
    headers,
    "GET",
    `/api/v1/credits/${pubkey}`,
    utf8ToBytes(timestamp),
  );
  // SECURITY: a valid signature by another key must not read this agent's history.
  if (signer !== pubkey)
    throw new AppError("invalid_signature", "requests for an agent's credits must be signed by that agent");
  checkRequestWindow(Number(timestamp), rt.clock.now());
  const settings = await readSettings(db, cfg, rt.log);
  const networkId =
    networkName === null ? settings.defaultNetwork : cfg.networks.resolve(networkName, settings.defaultNetwork);
  if (!networkId) throw new AppError("invalid_network", "unknown network", { detail: "network" });
  const network = cfg.networks.get(networkId).caip2;
  const [balance, entries] = await Promise.all([
    db.balance.findUnique({ where: { agentPubkey_network: { agentPubkey: pubkey, network } } }),
    db.ledgerEntry.findMany({ where: { agentPubkey: pubkey, network }, orderBy: { id: "desc" }, take: RECENT_ENTRIES }),
  ]);
  return {
    agent_pubkey: pubkey,
    network,
    balance_usdc: formatUnitsAsUsdc(balance?.units ?? 0n),
    entries: entries.map((e) => ({
      id: e.id.toString(),
      kind: e.kind,
      amount_usdc: formatUnitsAsUsdc(e.units),
      payment_id: e.paymentId,
      inference_id: e.inferenceId,
      created_at: e.createdAt.toISOString(),
    })),
  };
}
