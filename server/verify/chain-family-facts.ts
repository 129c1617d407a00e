// What a chain family (svm, evm) is, as data and pure decisions: how its payers are named and compared, whether a
// payer's key can spend prepaid credit, who pays its gas, where its payments go. Browser-safe, so pages, the CLI and
// the settings read the same facts the payment path does; the family's behaviour on a chain (settlement lookups,
// rebroadcasts, inflows) is server/chain's adapter, which carries these facts too. Adding a family is a row here and
// an adapter there; nothing else compares a row's family (eslint.config.mjs forbids it).
import type { EvmNetworkRow, NetworkFamily, NetworkRow, SvmNetworkRow } from "./network-registry";

/** What decides where a network's payments go: the deposit settings and the facilitator's keys. */
export interface DepositFacts {
  /** The deposit settings (DEPOSIT_ADDRESS, MAINNET_DEPOSIT_ADDRESS), or null when they could not be read. */
  settings: { depositAddress: string | null; mainnetDepositAddress: string | null } | null;
  /** The facilitator's Solana key: the fee payer, and the only deposit address a Solana testnet accepts. */
  facilitatorAddress: string;
  /** The facilitator's EVM key (relayer and payee on every EVM network), null when no EVM network is served. */
  evmAddress: string | null;
}

/**
 * Why a network's payments have nowhere to go: `not_offered`, a network a deployment may leave out (without its RPC
 * it is not offered: network_not_supported); the rest are a deployment's mistake (server_misconfigured).
 */
export type DepositProblem = "not_offered" | "no_rpc" | "no_deposit_address" | "deposit_address_not_facilitator";

export interface ChainFamilyFacts {
  readonly family: NetworkFamily;
  /** What a page calls the account that paid: a Solana "key" (an Ed25519 public key) or an EVM "address". */
  readonly payerNoun: "key" | "address";
  /**
   * The paying account is an Ed25519 key, the kind that signs prepaid calls (prepaid/signed-request.ts): credit it
   * buys or keeps is spendable by it, and a wallet can buy credit for itself. Else a top-up names the agent key that
   * will spend the credit, and a paid call's remainder cannot be spent by its payer.
   */
  readonly payerSignsPrepaid: boolean;
  /**
   * USDC arrives in a token account the deposit's owner must hold (Solana's associated token account): it is made
   * ready before a requirement names the deposit. An EVM address receives ERC-20 as it is.
   */
  readonly depositNeedsTokenAccount: boolean;
  /**
   * The account that pays a settlement's gas is the payee itself (one EVM key relays the authorization and receives);
   * else the requirement's `extra.feePayer` names the co-signing fee payer (Solana).
   */
  readonly payeePaysGas: boolean;
  /** An address in the one form receipts, the ledger and the allowlist use: EVM hex is case-insensitive, so lower case. */
  normalizeAddress(address: string): string;
  /** Where the deposit facts send a network's payments: null when nowhere, undefined when that depends on settings not read. */
  configuredDeposit(row: NetworkRow, deposit: DepositFacts): string | null | undefined;
  /** Why a network's payments have nowhere to go, or null when they do; `offered`: an RPC is configured for it. */
  depositProblem(row: NetworkRow, deposit: DepositFacts, offered: boolean): DepositProblem | null;
}

const SVM_FACTS: ChainFamilyFacts & { readonly family: "svm" } = {
  family: "svm",
  payerNoun: "key",
  payerSignsPrepaid: true,
  depositNeedsTokenAccount: true,
  payeePaysGas: false,
  normalizeAddress: (address) => address,
  configuredDeposit(row, { settings, facilitatorAddress }) {
    if (settings === null) return undefined;
    return row.isMainnet ? settings.mainnetDepositAddress : (settings.depositAddress ?? facilitatorAddress);
  },
  depositProblem(row, deposit, offered) {
    if (!offered) return "no_rpc";
    const payTo = SVM_FACTS.configuredDeposit(row, deposit);
    if (!payTo) return "no_deposit_address";
    // SECURITY: a testnet's deposit is the facilitator's own key, so a devnet setting cannot send payments elsewhere.
    if (!row.isMainnet && payTo !== deposit.facilitatorAddress) return "deposit_address_not_facilitator";
    return null;
  },
};

const EVM_FACTS: ChainFamilyFacts & { readonly family: "evm" } = {
  family: "evm",
  payerNoun: "address",
  payerSignsPrepaid: false,
  depositNeedsTokenAccount: false,
  payeePaysGas: true,
  normalizeAddress: (address) => address.toLowerCase(),
  // One EVM key pays the gas and receives, on every EVM network; no setting names it.
  configuredDeposit: (_row, { evmAddress }) => evmAddress,
  // An EVM network is optional for a deployment: without its RPC it is simply not offered.
  depositProblem: (_row, _deposit, offered) => (offered ? null : "not_offered"),
};

/** Every family's facts, by family: a family without its entry does not compile. */
export const CHAIN_FAMILY_FACTS: { readonly [F in NetworkFamily]: ChainFamilyFacts & { readonly family: F } } = {
  svm: SVM_FACTS,
  evm: EVM_FACTS,
};

/** The facts of a row's family; throws a RangeError for a family there are none of (a row the registry never held). */
export function familyFacts(row: { family: NetworkFamily }): ChainFamilyFacts {
  const facts = Object.hasOwn(CHAIN_FAMILY_FACTS, row.family) ? CHAIN_FAMILY_FACTS[row.family] : undefined;
  if (!facts)
    throw new RangeError(
      `no chain family ${JSON.stringify(row.family)} (${Object.keys(CHAIN_FAMILY_FACTS).join(", ")})`,
    );
  return facts;
}

/** Narrows a row to an EVM one, for code that serves that family alone (the EVM facilitator, the local EVM chains). */
export function isEvmRow(row: NetworkRow): row is EvmNetworkRow {
  return row.family === "evm";
}

/** Narrows a row to a Solana one, for code that serves that family alone. */
export function isSvmRow(row: NetworkRow): row is SvmNetworkRow {
  return row.family === "svm";
}
