// The network a paying command (`signet chat`, `signet topup`) pays on, from its --network. The CLI builds and signs
// the payment for one chain before the service answers, so the name must say which chain: the service's own names
// and CAIP-2 ids do, except `solana`, which the service reads as whichever Solana network is its default.
import { SHIPPED_NETWORKS, type NetworkId } from "../../server/verify";
import { UsageError } from "../cli-support";

/** The names --network is documented with (every other accepted name is an exact synonym of one of them). */
const NAMES = `${SHIPPED_NETWORKS.requestNames.slice(0, -1).join(", ")} or ${SHIPPED_NETWORKS.requestNames.at(-1)!}`;

/** The network `name` means to this CLI; a usage error for `solana` (ambiguous) and for a name the service does not know. */
export function payingNetwork(name: string): NetworkId {
  if (name.trim() === "solana") {
    throw new UsageError(`--network solana is ambiguous (the service reads it as its default Solana network, which the payment must name before it is signed): name devnet or mainnet`);
  }
  const id = SHIPPED_NETWORKS.resolve(name);
  if (!id) throw new UsageError(`unknown network ${name}: name ${NAMES}`);
  return id;
}
