// Which networks the service takes payment on right now: what the models list, x402 discovery and the site pages
// offer. A network is payable when the gateway has an RPC for it and, for a mainnet, while the operator's switch is on.
import "server-only";
import type { Settings } from "../settings/setting-definitions";
import type { NetworkRegistry, NetworkRow } from "../verify";
import type { PaymentGateway } from "./payment-gateway";

/** Whether the service takes payment on `network` now: an RPC is configured, and a mainnet needs the switch on. */
export function takesPaymentOn(
  network: NetworkRow,
  gateway: Pick<PaymentGateway, "supports">,
  settings: Pick<Settings, "mainnetEnabled">,
): boolean {
  return gateway.supports(network.id) && (!network.isMainnet || settings.mainnetEnabled);
}

/** The rows of `networks` the service takes payment on now, in registry order. */
export function payableNetworks(
  networks: NetworkRegistry,
  gateway: Pick<PaymentGateway, "supports">,
  settings: Pick<Settings, "mainnetEnabled">,
): NetworkRow[] {
  return networks.rows.filter((row) => takesPaymentOn(row, gateway, settings));
}
