// Where each network's payments go: the facilitator's own address on devnet (it is the fee payer),
// the configured mainnet deposit address, and the facilitator's EVM key on the EVM networks (the family's facts
// decide: server/verify/chain-family-facts.ts). Used to build requirements, for x402 discovery, and by reconcile to
// know which addresses to read.
import "server-only";
import type { AppContext } from "../context/app-context";
import type { NetworkId } from "../verify";
import { familyFacts, type DepositFacts, type DepositProblem } from "../verify/chain-family-facts";
import { AppError } from "../errors";
import type { Facilitator } from "../facilitator/create-facilitator";
import type { Settings } from "../settings/setting-definitions";

/** What decides the deposit addresses: `settings` (null when they could not be read) and the facilitator's keys. */
export function depositFactsOf(facilitator: Facilitator, settings: Settings | null): DepositFacts {
  return {
    settings: settings && {
      depositAddress: settings.depositAddress,
      mainnetDepositAddress: settings.mainnetDepositAddress,
    },
    facilitatorAddress: facilitator.address,
    evmAddress: facilitator.evm?.address ?? null,
  };
}

/** The deposit address the settings name for a network (EVM: the facilitator's key), or null when none is set. */
export function configuredDepositAddress(
  facilitator: Facilitator,
  settings: Settings,
  network: NetworkId,
): string | null {
  const info = facilitator.networks.get(network);
  return familyFacts(info).configuredDeposit(info, depositFactsOf(facilitator, settings)) ?? null;
}

const PROBLEM_ERRORS: Record<DepositProblem, (label: string) => AppError> = {
  not_offered: (label) => new AppError("network_not_supported", `${label} payments are not offered by this service`),
  no_rpc: (label) => new AppError("server_misconfigured", `no RPC is configured for ${label}`),
  no_deposit_address: () => new AppError("server_misconfigured", "no deposit address is configured for this network"),
  deposit_address_not_facilitator: () =>
    new AppError("server_misconfigured", "the deposit address does not match the facilitator key"),
};

/** Where a network's payments go; throws when the network is not offered or its deposit address is misconfigured. */
export function depositAddressFor(ctx: AppContext, settings: Settings, network: NetworkId): string {
  const facilitator = ctx.gateway.facilitator;
  const info = facilitator.networks.get(network);
  const facts = familyFacts(info);
  const deposit = depositFactsOf(facilitator, settings);
  const problem = facts.depositProblem(info, deposit, ctx.gateway.supports(network));
  if (problem) throw PROBLEM_ERRORS[problem](info.label);
  const payTo = facts.configuredDeposit(info, deposit);
  if (!payTo) throw PROBLEM_ERRORS.no_deposit_address(info.label);
  return payTo;
}
