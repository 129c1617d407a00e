// GET /.well-known/x402: what an x402 client or crawler needs to find and pay this service: the paid
// resources with their requirements per network (asset, price, payTo, fee payer), the prepaid routes, the keys and
// the verifier, and the RPC endpoint the service uses per network (when the operator publishes them).
import "server-only";
import type { AppContext } from "../app-context";
import { NETWORKS, type NetworkId } from "../chain/networks";
import { logEvent } from "../log";
import type { Settings } from "../settings/setting-definitions";
import { depositAddressFor } from "../x402/deposit-address";
import { advertisedRpcUrls } from "./advertised-rpc-urls";
import { logIdentity } from "../transparency/log-key";

/** The discovery document for a service at `baseUrl` (see `discoverySchema`). */
export async function buildX402Discovery(ctx: AppContext, settings: Settings, baseUrl: string) {
  const rpcs = advertisedRpcUrls();
  const networks = [];
  const accepts = [];
  for (const id of Object.keys(NETWORKS) as NetworkId[]) {
    const info = NETWORKS[id];
    const enabled = ctx.gateway.supports(id) && (!info.isMainnet || settings.mainnetEnabled);
    networks.push({ network: info.caip2, name: info.label, asset: info.usdcAsset, rpc: rpcs[info.caip2] ?? null, enabled });
    if (!enabled) continue;
    try {
      const payTo = depositAddressFor(ctx, settings, id);
      const requirements = await ctx.gateway.requirements(id, settings.flatPriceUnits, payTo);
      const extra = (requirements.extra ?? {}) as Record<string, unknown>;
      // A blockhash in a cached requirement is stale by the time anyone reads this; the 402 carries a fresh one.
      const { recentBlockhash: _b, lastValidBlockHeight: _h, ...stable } = extra;
      // Solana: the facilitator co-signs as fee payer; Base: the facilitator's key relays the authorization and pays
      // the gas, and is the payee.
      const feePayer = typeof extra.feePayer === "string" ? extra.feePayer : info.family === "evm" ? payTo : undefined;
      accepts.push({ ...requirements, extra: stable, ...(feePayer ? { feePayer } : {}) });
    } catch (err) {
      // A misconfigured or unreachable network is left out rather than failing the whole document.
      logEvent("discovery.network_skipped", { network: info.caip2, reason: err instanceof Error ? err.message.slice(0, 100) : "unknown" }, "warn");
    }
  }
  return {
    x402Version: 2 as const,
    service: { name: "Signet", url: baseUrl, openapi: `${baseUrl}/api/v1/openapi.json`, docs: `${baseUrl}/docs` },
    operator_key_url: `${baseUrl}/api/v1/operator-key`,
    verifier: { url: `${baseUrl}/api/verify`, key_url: `${baseUrl}/api/verify/operator-key` },
    receipt_log: { origin: logIdentity().origin, verifier_key: logIdentity().verifierKey, prefix: `${baseUrl}/log`, checkpoint: `${baseUrl}/log/checkpoint`, key_url: `${baseUrl}/log/key` },
    resources: [
      {
        resource: `${baseUrl}/api/v1/chat/completions`,
        method: "POST",
        description: "Signet chat completion (one call), OpenAI-shaped, with a signed receipt; stream: true for SSE",
        mimeType: "application/json",
        accepts,
      },
    ],
    prepaid: {
      topup: `${baseUrl}/api/v1/credits`,
      inference: `${baseUrl}/api/v1/inference`,
      grant_challenge: `${baseUrl}/api/v1/grants/challenge`,
      grants: `${baseUrl}/api/v1/grants`,
    },
    networks,
  };
}
