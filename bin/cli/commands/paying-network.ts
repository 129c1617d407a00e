// The network a paying command (`signet chat`, `signet topup`) pays on, from its --network. The CLI builds and signs
// the payment for one chain before the service answers, so the name must say which chain: the service's own names
// and CAIP-2 ids do, except `solana`, which the service reads as whichever Solana network is its default.
import type { NetworkId, NetworkRegistry } from "../../../server/verify";
import { UsageError } from "../cli-support";

/**
 * The network `name` means among `networks` (the configured registry); a usage error for `solana` (ambiguous) and for
 * a name it does not hold, listing the names it takes (every other accepted name is an exact synonym of one of them).
 */
export function payingNetwork(name: string, networks: NetworkRegistry): NetworkId {
  if (name.trim() === "solana") {
    throw new UsageError(
      `--network solana is ambiguous (the service reads it as its default Solana network, which the payment must name before it is signed): name devnet or mainnet`,
    );
  }
  const id = networks.resolve(name);
  if (!id)
    throw new UsageError(
      `unknown network ${name}: name ${networks.requestNames.slice(0, -1).join(", ")} or ${networks.requestNames.at(-1)!}`,
    );
  return id;
}
