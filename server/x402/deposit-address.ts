// Where each network's payments go: the facilitator's own address on devnet (it is the fee payer),
// the configured mainnet deposit address, and the facilitator's EVM key on the EVM networks. Used to build requirements, for
// x402 discovery, and by reconcile to know which addresses to read.
import "server-only";
import type { AppContext } from "../app-context";
import type { NetworkId } from "../verify";
import { AppError } from "../errors";
import type { Facilitator } from "../facilitator/create-facilitator";
import type { Settings } from "../settings/setting-definitions";

/** The deposit address the settings name for a network (EVM: the facilitator's key), or null when none is set. */
export function configuredDepositAddress(facilitator: Facilitator, settings: Settings, network: NetworkId): string | null {
  const info = facilitator.networks.get(network);
  if (info.family === "evm") return facilitator.evm?.address ?? null;
  return info.isMainnet ? settings.mainnetDepositAddress : (settings.depositAddress ?? facilitator.address);
}

/** Where a network's payments go; throws when the network is not offered or its deposit address is misconfigured. */
export function depositAddressFor(ctx: AppContext, settings: Settings, network: NetworkId): string {
  const facilitator = ctx.gateway.facilitator;
  const info = facilitator.networks.get(network);
  if (info.family === "evm") {
    // Base is optional for a deployment: without its RPC the network is simply not offered.
    if (!ctx.gateway.supports(network)) throw new AppError("network_not_supported", `${info.label} payments are not offered by this service`);
    // One EVM key pays the gas and receives, on every Base network (checked against SERVICE_EVM_DEPOSIT_ADDRESS).
    return configuredDepositAddress(facilitator, settings, network)!;
  }
  if (!ctx.gateway.supports(network)) throw new AppError("server_misconfigured", `no RPC is configured for ${info.label}`);
  const payTo = configuredDepositAddress(facilitator, settings, network);
  if (!payTo) throw new AppError("server_misconfigured", "no deposit address is configured for this network");
  if (!info.isMainnet && payTo !== facilitator.address) {
    throw new AppError("server_misconfigured", "the deposit address does not match the facilitator key");
  }
  return payTo;
}
