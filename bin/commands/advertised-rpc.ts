// The chain RPC a running service names for a network in its x402 discovery document (GET /.well-known/x402,
// `networks[].rpc`; outside production, the local chains it pays and settles on). The CLI takes it when no --rpc is
// given, so it meets the service on the same chain.
import { isKnownEvmNetwork, solanaClusterOf } from "../../server/verify/networks";

// Generous: `next dev` compiles the route on its first call.
const DISCOVERY_TIMEOUT_MS = 15_000;

export type AdvertisedRpc = { rpc: string; source: string } | null;

/**
 * The RPC `${endpoint}/.well-known/x402` names for `network` (a CAIP-2 id, or a Solana cluster in any spelling a
 * receipt carries), or null when the document names none. A service that does not answer throws, through `fetchImpl`.
 */
export async function advertisedRpc(endpoint: string, network: string, fetchImpl: (input: string, init?: RequestInit) => Promise<Response>): Promise<AdvertisedRpc> {
  const source = `${endpoint}/.well-known/x402`;
  const res = await fetchImpl(source, { headers: { accept: "application/json" }, signal: AbortSignal.timeout(DISCOVERY_TIMEOUT_MS) });
  const body = (await res.json().catch(() => null)) as { networks?: unknown } | null;
  const listed = res.ok && Array.isArray(body?.networks) ? (body.networks as { network?: unknown; rpc?: unknown }[]) : [];
  const match = listed.find((n) => typeof n.network === "string" && typeof n.rpc === "string" && URL.canParse(n.rpc) && sameNetwork(n.network, network));
  return match ? { rpc: match.rpc as string, source } : null;
}

/** Two network ids name the same chain: the same CAIP-2 id, or the same Solana cluster in any of its spellings. */
function sameNetwork(a: string, b: string): boolean {
  if (a === b) return true;
  if (isKnownEvmNetwork(a) || isKnownEvmNetwork(b)) return false;
  const cluster = solanaClusterOf(a);
  return cluster !== null && cluster === solanaClusterOf(b);
}
