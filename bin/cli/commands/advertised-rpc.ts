// The chain RPC a running service names for a network in its x402 discovery document (GET /.well-known/x402,
// `networks[].rpc`; outside production, the local chains it pays and settles on). The CLI takes it when no --rpc is
// given, so it meets the service on the same chain; `signet verify` takes it only as trustAdvertisedRpc() allows.
import { isKnownEvmNetwork, solanaClusterOf } from "../../../server/verify/networks";

// Generous: `next dev` compiles the route on its first call.
const DISCOVERY_TIMEOUT_MS = 15_000;

/** The RPC the document names, or why there is none to take: it names none, or the service answered with a redirect. */
export type AdvertisedRpc =
  | { ok: true; rpc: string; source: string }
  | { ok: false; reason: "none_named"; source: string }
  | { ok: false; reason: "redirected"; source: string; status: number; location: string | null };

/**
 * The RPC `${endpoint}/.well-known/x402` names for `network` (a CAIP-2 id, or a Solana cluster in any spelling a
 * receipt carries). A redirect is not followed: it is an answer of its own (`redirected`). A service that does not
 * answer throws, through `fetchImpl`.
 */
export async function advertisedRpc(
  endpoint: string,
  network: string,
  fetchImpl: (input: string, init?: RequestInit) => Promise<Response>,
): Promise<AdvertisedRpc> {
  const source = `${endpoint}/.well-known/x402`;
  // SECURITY: the document must be the service's own answer. Followed, a redirect would let another origin (or another
  // port on this machine) name the RPC that decides whether a payment landed.
  const res = await fetchImpl(source, {
    headers: { accept: "application/json" },
    redirect: "manual",
    signal: AbortSignal.timeout(DISCOVERY_TIMEOUT_MS),
  });
  if (res.type === "opaqueredirect" || (res.status >= 300 && res.status < 400)) {
    await res.body?.cancel();
    return { ok: false, reason: "redirected", source, status: res.status, location: res.headers.get("location") };
  }
  const body = (await res.json().catch(() => null)) as { networks?: unknown } | null;
  const listed =
    res.ok && Array.isArray(body?.networks) ? (body.networks as { network?: unknown; rpc?: unknown }[]) : [];
  const match = listed.find(
    (n) =>
      typeof n.network === "string" &&
      typeof n.rpc === "string" &&
      URL.canParse(n.rpc) &&
      sameNetwork(n.network, network),
  );
  return match ? { ok: true, rpc: match.rpc as string, source } : { ok: false, reason: "none_named", source };
}

/** Two network ids name the same chain: the same CAIP-2 id, or the same Solana cluster in any of its spellings. */
function sameNetwork(a: string, b: string): boolean {
  if (a === b) return true;
  if (isKnownEvmNetwork(a) || isKnownEvmNetwork(b)) return false;
  const cluster = solanaClusterOf(a);
  return cluster !== null && cluster === solanaClusterOf(b);
}

/**
 * An IPv4 address in 127.0.0.0/8 as the URL parser writes a host: it turns every IPv4 spelling (127.1, 0x7f.0.0.1,
 * 2130706433) into dotted decimal, so a name that only looks like one (127.0.0.1.nip.io) never matches.
 */
const LOOPBACK_IPV4 = /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/;
/** ::1 as the URL parser writes it: it compresses every spelling ([0:0:0:0:0:0:0:1]) to this one. */
const LOOPBACK_IPV6 = "[::1]";

/** The host of an http(s) URL as the URL parser normalises it, or null for anything else. */
function httpHostOf(url: string): string | null {
  if (!URL.canParse(url)) return null;
  const { protocol, hostname } = new URL(url);
  return protocol === "http:" || protocol === "https:" ? hostname : null;
}

/** True when `url` is http(s) to a loopback address written as one: 127.0.0.0/8 or [::1]; never a name. */
export function isLoopbackAddressUrl(url: string): boolean {
  const host = httpHostOf(url);
  return host !== null && (LOOPBACK_IPV4.test(host) || host === LOOPBACK_IPV6);
}

/**
 * True when the service at `endpoint` is on this machine: a loopback address (isLoopbackAddressUrl), or the name
 * `localhost` exactly. `localhost` counts: it is reserved for this machine (RFC 6761 §6.3), the systems the CLI runs on
 * answer it from the machine's own hosts file (only someone who already controls the machine can change that), and it
 * is the CLI's own default endpoint. What such a service names must still be a loopback address, so even a `localhost`
 * that resolved elsewhere could only point the check at a chain on this machine. Its subdomains (`app.localhost`) do
 * not count: many resolvers pass them on to DNS.
 */
export function isLoopbackService(endpoint: string): boolean {
  return isLoopbackAddressUrl(endpoint) || httpHostOf(endpoint) === "localhost";
}

type AdvertisedRpcTrust =
  | { ok: true; rpc: string; source: string }
  | { ok: false; reason: "service_not_loopback" | "none_named" | "redirected" | "rpc_not_loopback" };

/**
 * Whether `signet verify` may check a payment through the RPC the service at `endpoint` advertised: only when the
 * service is on this machine (isLoopbackService) and the RPC it names is a loopback address (isLoopbackAddressUrl),
 * answered without a redirect. Anything else is refused with its reason, and the payment goes through the network's
 * public RPC or --rpc.
 */
export function trustAdvertisedRpc(endpoint: string, advertised: AdvertisedRpc): AdvertisedRpcTrust {
  // SECURITY: the chain is the one check that does not take the service's word; an RPC the service picks could vouch
  // for a payment that never landed. Only this machine's own service pointing at this machine's own chain is taken,
  // both by address: a name (other than `localhost` for the service) resolves wherever DNS says.
  if (!isLoopbackService(endpoint)) return { ok: false, reason: "service_not_loopback" };
  if (!advertised.ok) return { ok: false, reason: advertised.reason };
  if (!isLoopbackAddressUrl(advertised.rpc)) return { ok: false, reason: "rpc_not_loopback" };
  return { ok: true, rpc: advertised.rpc, source: advertised.source };
}
