// The network a paying command (`signet chat`, `signet topup`) pays on, from its --network. The CLI builds and signs
// the payment for one chain before the service answers, so the name must say which chain: the service's own names
// and CAIP-2 ids do, except `solana`, which the service reads as whichever Solana network is its default.
import { resolveNetwork, type NetworkId } from "../../server/chain/networks";
import { UsageError } from "../cli-support";

/** The names --network is documented with (every other accepted name is an exact synonym of one of them). */
const NAMES = "devnet, mainnet, base-sepolia or base";

/** The network `name` means to this CLI; a usage error for `solana` (ambiguous) and for a name the service does not know. */
export function payingNetwork(name: string): NetworkId {
  if (name.trim() === "solana") {
    throw new UsageError(`--network solana is ambiguous (the service reads it as its default Solana network, which the payment must name before it is signed): name devnet or mainnet`);
  }
  const id = resolveNetwork(name);
  if (!id) throw new UsageError(`unknown network ${name}: name ${NAMES}`);
  return id;
}
