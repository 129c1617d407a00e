import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createNetworkRegistry, SHIPPED_NETWORK_ROWS, SHIPPED_NETWORKS, type NetworkRow } from "../verify";
import { describeNetwork, describeReceipt } from "./describe-receipt";

const vector = (name: string) =>
  JSON.parse(
    readFileSync(path.join(__dirname, "../verify/vectors/signet-generated", name, "receipt.json"), "utf8"),
  ) as Record<string, unknown>;

describe("describeReceipt", () => {
  it("a paid Solana call: paid − cost stays as the paying key's credit, spendable by prepaid calls on that network", () => {
    const receipt = vector("solana-paid-001");
    const d = describeReceipt(receipt, SHIPPED_NETWORKS);
    expect(d.money).toMatchObject({
      kind: "paid",
      paidUsdc: "0.01",
      costUsdc: "0.000045",
      keptUsdc: "0.009955",
      costExceededPayment: false,
      payer: receipt.agent_pubkey,
      spending: "prepaid",
    });
    expect(d.money?.kind === "paid" && d.money.network).toMatchObject({
      label: "Solana devnet",
      requestName: "devnet",
      family: "svm",
    });
    expect(d.issuedAtMs).toBe(1763000001000);
    expect(d.fields.find((f) => f.key === "timestamp")?.timeMs).toBe(1763000001000);
    expect(d.paymentFields.find((f) => f.key === "network")?.networkLabel).toBe("Solana devnet");
    expect(d.paymentFields.find((f) => f.key === "amount_usdc")?.usdc).toBe("0.01");
  });

  it("a cost past the payment keeps nothing", () => {
    const receipt = { ...vector("solana-paid-001"), cost_usdc: 0.02 };
    expect(describeReceipt(receipt, SHIPPED_NETWORKS).money).toMatchObject({
      kind: "paid",
      keptUsdc: "0",
      costExceededPayment: true,
    });
  });

  it("a Base payer is an address: its kept credit cannot be spent by the Ed25519-signed prepaid route", () => {
    const receipt = vector("base-payer-not-agent-001");
    const d = describeReceipt(receipt, SHIPPED_NETWORKS);
    expect(d.money).toMatchObject({ kind: "paid", spending: "not_spendable" });
    expect(d.money?.kind === "paid" && d.money.network.label).toBe("Base Sepolia");
  });

  it("a prepaid call has only its cost", () => {
    expect(describeReceipt(vector("prepaid-001"), SHIPPED_NETWORKS).money).toMatchObject({ kind: "prepaid" });
  });

  it("names networks by CAIP-2 id, the full Solana genesis hash and the aliases; an unknown one has no name", () => {
    expect(describeNetwork("solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1wCkoK8Yw2JbsXQH5S3xw", SHIPPED_NETWORKS).label).toBe(
      "Solana devnet",
    );
    expect(describeNetwork("eip155:8453", SHIPPED_NETWORKS).label).toBe("Base");
    expect(describeNetwork("eip155:84532", SHIPPED_NETWORKS).label).toBe("Base Sepolia");
    expect(describeNetwork("eip155:1", SHIPPED_NETWORKS)).toMatchObject({
      label: null,
      requestName: null,
      family: null,
    });
  });

  it("names a network by the registry it is given: a row added to it, and not one the registry lacks", () => {
    const row: NetworkRow = {
      ...SHIPPED_NETWORKS.get("base-sepolia"),
      id: "test-evm",
      caip2: "eip155:3133713",
      chainId: 3_133_713,
      x402V1Name: "test-evm",
      aliases: ["test-evm"],
      label: "Test EVM",
    } as NetworkRow;
    const networks = createNetworkRegistry([...SHIPPED_NETWORK_ROWS, row]);
    expect(describeNetwork("eip155:3133713", networks)).toMatchObject({
      label: "Test EVM",
      requestName: "test-evm",
      family: "evm",
      payerNoun: "address",
    });
    expect(describeNetwork("eip155:3133713", SHIPPED_NETWORKS)).toMatchObject({
      label: null,
      requestName: null,
      family: null,
    });
    const receipt = vector("base-payer-not-agent-001");
    const paid = describeReceipt(
      { ...receipt, payment: { ...(receipt.payment as object), network: "eip155:3133713" } },
      networks,
    );
    expect(paid.money?.kind === "paid" && paid.money.network.label).toBe("Test EVM");
    expect(paid.paymentFields.find((f) => f.key === "network")?.networkLabel).toBe("Test EVM");
  });
});
