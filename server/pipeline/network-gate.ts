// Which network a call runs on, and the mainnet kill switch, for every route that moves money: mainnet serves only
// while the operator's switch is on, and a request never learns more than that it is off.
import "server-only";
import { AppError } from "../errors";
import { logEvent, type Logger } from "../log";
import type { Settings } from "../settings/setting-definitions";
import type { NetworkId, NetworkRegistry } from "../verify";

export type MoneyRoute = "chat" | "inference" | "credits" | "grants";

/**
 * The network of `networks` a request names (or the default), refused when unknown or when it is mainnet and the
 * switch is off (logged to `log`).
 */
export function admitNetwork(
  log: Logger,
  networks: NetworkRegistry,
  settings: Settings,
  name: string | undefined,
  route: MoneyRoute,
): NetworkId {
  const network = name === undefined ? settings.defaultNetwork : networks.resolve(name, settings.defaultNetwork);
  if (network === null)
    throw new AppError(
      "invalid_network",
      `network must be one of ${networks.requestNames.join(", ")} (or a CAIP-2 id)`,
      { detail: "network" },
    );
  requireNetworkEnabled(log, networks, settings, network, route);
  return network;
}

/** Refuses a mainnet network while the kill switch is off (logged to `log`). Takes a network id or its CAIP-2 id. */
export function requireNetworkEnabled(
  log: Logger,
  networks: NetworkRegistry,
  settings: Settings,
  network: NetworkId | string,
  route: MoneyRoute,
): void {
  const info = networks.byId(network) ?? networks.byCaip2(network);
  // SECURITY: an unknown stored network is treated as mainnet: the switch fails closed.
  if ((info?.isMainnet ?? true) && !settings.mainnetEnabled) {
    logEvent(log, "mainnet.disabled", { network: info?.caip2 ?? network, route });
    throw new AppError("mainnet_disabled", "mainnet is disabled by the operator");
  }
}
