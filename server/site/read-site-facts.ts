// What the web pages show about this deployment: the two public keys (every page's footer), and the live facts the
// home and credits pages are built from (price, networks and their state, the mainnet switch, top-up bounds, the RPC
// a browser may use per network). Public facts only: nothing here is a secret or another agent's data.
import "server-only";
import type { ServiceKeys } from "../keys/service-keys";
import type { Runtime } from "../context/runtime";
import { verifierKeyResource } from "../hosted-verify/issue-verdict";
import { operatorKeyResource } from "../keys/operator-key-resource";
import { logEvent, type Logger } from "../log";
import { readSettings } from "../settings/read-settings";
import { formatUnitsAsUsdc, parseUsdcToUnits, type NetworkRegistry } from "../verify";
import { familyFacts } from "../verify/chain-family-facts";
import { advertisedRpcUrls } from "../discovery/advertised-rpc-urls";
import { takesPaymentOn } from "../x402/payable-networks";

export interface PublicKeys {
  /** Signs receipts; null when this deployment has no usable key (the page says so rather than failing). */
  operatorKey: string | null;
  /** Signs the hosted verifier's verdicts. */
  verifierKey: string | null;
}

interface NetworkFact {
  caip2: string;
  name: string;
  label: string;
  family: "svm" | "evm";
  /** A wallet paying here buys credit for its own key (the key that pays signs prepaid calls): the credits page offers it. */
  walletBuysCredit: boolean;
  isMainnet: boolean;
  /** Served by this deployment right now: an RPC is configured and, for a mainnet, the switch is on. */
  enabled: boolean;
  usdcAsset: string;
  /** The RPC a browser uses for this network: the service's own when it publishes it, else the public one. */
  browserRpc: string;
  /** Whether `browserRpc` is the service's own (published) RPC. */
  rpcIsService: boolean;
}

export interface SiteFacts extends PublicKeys {
  baseUrl: string;
  priceUsdc: string;
  maxTopUpUsdc: string;
  mainnetEnabled: boolean;
  defaultNetwork: string;
  networks: NetworkFact[];
  /** A grant: this much USDC, once per key, credited on the default network (server/grants/claim-grant.ts). */
  grant: { amountUsdc: string; network: string; networkLabel: string };
}

/** Both public keys; a key that cannot be loaded reads as null (and is logged to `rt.log` by its loader). */
export function readPublicKeys(rt: { keys: ServiceKeys; log: Logger }): PublicKeys {
  return {
    operatorKey: keyOrNull(rt.log, () => operatorKeyResource(rt).pubkey),
    verifierKey: keyOrNull(rt.log, () => verifierKeyResource(rt).pubkey),
  };
}

/** What the pages show when no runtime could be built: no key (the page says so rather than failing). */
export const NO_PUBLIC_KEYS: PublicKeys = { operatorKey: null, verifierKey: null };

/** Every network of `networks`, by CAIP-2 id and name: what the explorer names a pasted receipt's network by. */
export function readNetworkNames(networks: NetworkRegistry): { caip2: string; label: string }[] {
  return networks.rows.map((n) => ({ caip2: n.caip2, label: n.label }));
}

/** The live facts: read per request, since operators change the price and the switch at run time. */
export async function readSiteFacts(ctx: Runtime): Promise<SiteFacts> {
  const settings = await readSettings(ctx.db, ctx.config, ctx.log);
  const advertised = advertisedRpcUrls(ctx.config);
  const max = parseUsdcToUnits(ctx.config.PREPAID_TOPUP_MAX_USDC);
  const defaultNetwork = ctx.config.networks.get(settings.defaultNetwork);
  const networks = ctx.config.networks.rows.map((info): NetworkFact => {
    const own = advertised[info.caip2];
    return {
      caip2: info.caip2,
      name: info.aliases[0],
      label: info.label,
      family: info.family,
      walletBuysCredit: familyFacts(info).payerSignsPrepaid,
      isMainnet: info.isMainnet,
      enabled: takesPaymentOn(info, ctx.gateway, settings),
      usdcAsset: info.usdcAsset,
      browserRpc: own ?? info.publicRpcUrl,
      rpcIsService: own !== undefined,
    };
  });
  return {
    ...readPublicKeys(ctx),
    baseUrl: ctx.config.baseUrl,
    priceUsdc: formatUnitsAsUsdc(settings.flatPriceUnits),
    maxTopUpUsdc: max === null ? "0" : formatUnitsAsUsdc(max),
    mainnetEnabled: settings.mainnetEnabled,
    defaultNetwork: defaultNetwork.caip2,
    networks,
    grant: {
      amountUsdc: formatUnitsAsUsdc(settings.grantAmountUnits),
      network: defaultNetwork.caip2,
      networkLabel: defaultNetwork.label,
    },
  };
}

function keyOrNull(log: Logger, read: () => string): string | null {
  try {
    return read();
  } catch (err) {
    logEvent(log, "site.key_unavailable", { reason: err instanceof Error ? err.name : "unknown" }, "warn");
    return null;
  }
}
