// Picks a network's chain-family adapter: the one place a row's family selects behaviour.
import "server-only";
import type { NetworkFamily, NetworkRow } from "../verify";
import type { ChainFamilyAdapter } from "./chain-family";
import { EVM_FAMILY } from "./evm-family";
import { SVM_FAMILY } from "./svm-family";

/** Every family's adapter, by family: a family without one does not compile. */
export const CHAIN_FAMILY_ADAPTERS: { readonly [F in NetworkFamily]: ChainFamilyAdapter & { readonly family: F } } = {
  svm: SVM_FAMILY,
  evm: EVM_FAMILY,
};

/** The adapter of a row's family; throws a RangeError for a family without one (a row the registry never held). */
export function familyAdapter(row: Pick<NetworkRow, "family">): ChainFamilyAdapter {
  const adapter = Object.hasOwn(CHAIN_FAMILY_ADAPTERS, row.family) ? CHAIN_FAMILY_ADAPTERS[row.family] : undefined;
  if (!adapter)
    throw new RangeError(
      `no chain-family adapter for ${JSON.stringify(row.family)} (${Object.keys(CHAIN_FAMILY_ADAPTERS).join(", ")})`,
    );
  return adapter;
}
