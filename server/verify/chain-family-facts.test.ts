import { describe, expect, it } from "vitest";
import {
  CHAIN_FAMILY_FACTS,
  familyFacts,
  isEvmRow,
  isSvmRow,
  type DepositFacts,
  type DepositProblem,
} from "./chain-family-facts";
import { SHIPPED_NETWORKS, type NetworkFamily, type NetworkRow } from "./network-registry";

const FACILITATOR = "FaciLitator1111111111111111111111111111111";
const OTHER = "0ther1111111111111111111111111111111111111";
const MAINNET_DEPOSIT = "MainnetDeposit11111111111111111111111111111";
const EVM_KEY = "0x00000000000000000000000000000000000000aa";
const ROW = (id: string): NetworkRow => SHIPPED_NETWORKS.get(id);
const FAMILIES: NetworkFamily[] = ["svm", "evm"];

const deposit = (settings: DepositFacts["settings"], evmAddress: string | null = EVM_KEY): DepositFacts => ({
  settings,
  facilitatorAddress: FACILITATOR,
  evmAddress,
});

describe("CHAIN_FAMILY_FACTS", () => {
  it("holds one entry per family, each naming its own family", () => {
    expect(Object.keys(CHAIN_FAMILY_FACTS).sort()).toEqual([...FAMILIES].sort());
    for (const family of FAMILIES) expect(CHAIN_FAMILY_FACTS[family].family).toBe(family);
  });

  it("states each family's facts", () => {
    const facts = (f: NetworkFamily) => {
      const { payerNoun, payerSignsPrepaid, depositNeedsTokenAccount, payeePaysGas } = CHAIN_FAMILY_FACTS[f];
      return { payerNoun, payerSignsPrepaid, depositNeedsTokenAccount, payeePaysGas };
    };
    expect(facts("svm")).toEqual({
      payerNoun: "key",
      payerSignsPrepaid: true,
      depositNeedsTokenAccount: true,
      payeePaysGas: false,
    });
    expect(facts("evm")).toEqual({
      payerNoun: "address",
      payerSignsPrepaid: false,
      depositNeedsTokenAccount: false,
      payeePaysGas: true,
    });
  });

  it("gives every shipped row its family's facts", () => {
    for (const row of SHIPPED_NETWORKS.rows) expect(familyFacts(row)).toBe(CHAIN_FAMILY_FACTS[row.family]);
  });
});

describe("normalizeAddress()", () => {
  it("lower-cases an EVM address (case-insensitive hex) and keeps a base58 key as it is (case is part of it)", () => {
    expect(CHAIN_FAMILY_FACTS.evm.normalizeAddress("0xAbCdEF0000000000000000000000000000000001")).toBe(
      "0xabcdef0000000000000000000000000000000001",
    );
    expect(CHAIN_FAMILY_FACTS.svm.normalizeAddress("AbCdEf1111111111111111111111111111111111")).toBe(
      "AbCdEf1111111111111111111111111111111111",
    );
  });
});

describe("configuredDeposit()", () => {
  const settings = (depositAddress: string | null, mainnetDepositAddress: string | null) => ({
    depositAddress,
    mainnetDepositAddress,
  });

  it("sends a Solana testnet's payments to the deposit setting, else the facilitator's key", () => {
    expect(
      CHAIN_FAMILY_FACTS.svm.configuredDeposit(ROW("solana-devnet"), deposit(settings(null, MAINNET_DEPOSIT))),
    ).toBe(FACILITATOR);
    expect(
      CHAIN_FAMILY_FACTS.svm.configuredDeposit(ROW("solana-devnet"), deposit(settings(OTHER, MAINNET_DEPOSIT))),
    ).toBe(OTHER);
  });

  it("sends a Solana mainnet's payments to the mainnet deposit setting alone (never the fee payer)", () => {
    expect(
      CHAIN_FAMILY_FACTS.svm.configuredDeposit(ROW("solana-mainnet"), deposit(settings(OTHER, MAINNET_DEPOSIT))),
    ).toBe(MAINNET_DEPOSIT);
    expect(CHAIN_FAMILY_FACTS.svm.configuredDeposit(ROW("solana-mainnet"), deposit(settings(OTHER, null)))).toBeNull();
  });

  it("does not know a Solana deposit without the settings", () => {
    expect(CHAIN_FAMILY_FACTS.svm.configuredDeposit(ROW("solana-devnet"), deposit(null))).toBeUndefined();
    expect(CHAIN_FAMILY_FACTS.svm.configuredDeposit(ROW("solana-mainnet"), deposit(null))).toBeUndefined();
  });

  it("sends every EVM network's payments to the facilitator's EVM key, whatever the settings say", () => {
    for (const row of SHIPPED_NETWORKS.ofFamily("evm")) {
      expect(CHAIN_FAMILY_FACTS.evm.configuredDeposit(row, deposit(settings(OTHER, MAINNET_DEPOSIT)))).toBe(EVM_KEY);
      expect(CHAIN_FAMILY_FACTS.evm.configuredDeposit(row, deposit(null))).toBe(EVM_KEY);
      expect(CHAIN_FAMILY_FACTS.evm.configuredDeposit(row, deposit(null, null))).toBeNull();
    }
  });
});

describe("depositProblem()", () => {
  // Every combination of: network, offered, deposit setting, mainnet deposit setting.
  const cases: [string, boolean, string | null, string | null, DepositProblem | null][] = [];
  for (const id of ["solana-devnet", "solana-mainnet", "base-sepolia", "base"]) {
    for (const offered of [true, false]) {
      for (const dep of [null, FACILITATOR, OTHER]) {
        for (const main of [null, MAINNET_DEPOSIT]) {
          const row = ROW(id);
          let want: DepositProblem | null;
          if (isEvmRow(row)) want = offered ? null : "not_offered";
          else if (!offered) want = "no_rpc";
          else if (row.isMainnet) want = main === null ? "no_deposit_address" : null;
          else want = dep === OTHER ? "deposit_address_not_facilitator" : null;
          cases.push([id, offered, dep, main, want]);
        }
      }
    }
  }

  it.each(cases)("%s offered=%s deposit=%s mainnet deposit=%s: %s", (id, offered, dep, main, want) => {
    const row = ROW(id);
    expect(
      familyFacts(row).depositProblem(row, deposit({ depositAddress: dep, mainnetDepositAddress: main }), offered),
    ).toBe(want);
  });

  it("refuses a Solana network whose settings could not be read as having no deposit", () => {
    expect(CHAIN_FAMILY_FACTS.svm.depositProblem(ROW("solana-devnet"), deposit(null), true)).toBe("no_deposit_address");
  });
});

describe("isEvmRow() / isSvmRow()", () => {
  it("tell every shipped row's family, exactly one each", () => {
    for (const row of SHIPPED_NETWORKS.rows) {
      expect(isEvmRow(row)).toBe(SHIPPED_NETWORKS.ofFamily("evm").includes(row));
      expect(isSvmRow(row)).toBe(SHIPPED_NETWORKS.ofFamily("svm").includes(row));
      expect(isEvmRow(row)).not.toBe(isSvmRow(row));
    }
  });
});

describe("familyFacts()", () => {
  it("rejects malformed input: a family there are no facts of", () => {
    expect(() => familyFacts({ family: "cosmos" as NetworkFamily })).toThrow(RangeError);
    expect(() => familyFacts({ family: "toString" as NetworkFamily })).toThrow(RangeError);
    expect(() => familyFacts({ family: undefined as unknown as NetworkFamily })).toThrow(RangeError);
  });
});
