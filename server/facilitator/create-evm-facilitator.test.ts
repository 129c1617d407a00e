import bs58 from "bs58";
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../env";
import { generateKeypair } from "../keys/parse-secret-key";
import { createFacilitator } from "./create-facilitator";
import { loadRelayerKey } from "./create-evm-facilitator";

// anvil's well-known first dev account: a public test vector, never a secret.
const EVM_KEY = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";
const EVM_ADDRESS = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266";

const production = (env: Record<string, string>) =>
  loadConfig({
    NODE_ENV: "production",
    SERVICE_BASE_URL: "https://signet.example",
    SIGNET_DATA_DIR: "/nonexistent-signet-data",
    FACILITATOR_SECRET_KEY: bs58.encode(generateKeypair().seed),
    RPC_URL_SOLANA_DEVNET: "http://127.0.0.1:1",
    ...env,
  });

describe("the EVM facilitator at start-up", () => {
  it("is absent, and needs no EVM key, when no Base RPC is configured", async () => {
    expect((await createFacilitator(production({}))).evm).toBeNull();
  });

  it("refuses to start in production with a Base RPC but no FACILITATOR_EVM_SECRET_KEY", async () => {
    await expect(createFacilitator(production({ RPC_URL_BASE_SEPOLIA: "http://127.0.0.1:1" }))).rejects.toThrow(
      new ConfigError("FACILITATOR_EVM_SECRET_KEY is required in production"),
    );
  });

  it("refuses a malformed key, naming the variable", async () => {
    await expect(
      createFacilitator(production({ RPC_URL_BASE: "http://127.0.0.1:1", FACILITATOR_EVM_SECRET_KEY: "0x1234" })),
    ).rejects.toThrow(/FACILITATOR_EVM_SECRET_KEY is not a valid EVM private key/);
  });

  it("refuses a SERVICE_EVM_DEPOSIT_ADDRESS that is not the key's address", async () => {
    const cfg = production({
      RPC_URL_BASE: "http://127.0.0.1:1",
      FACILITATOR_EVM_SECRET_KEY: EVM_KEY,
      SERVICE_EVM_DEPOSIT_ADDRESS: "0x000000000000000000000000000000000000dEaD",
    });
    await expect(createFacilitator(cfg)).rejects.toThrow(
      /SERVICE_EVM_DEPOSIT_ADDRESS .* must equal the EVM facilitator key's address/,
    );
  });

  it("accepts the key's own address in any case, and serves both Base networks with it, lower-cased", async () => {
    const cfg = production({
      RPC_URL_BASE: "http://127.0.0.1:1",
      RPC_URL_BASE_SEPOLIA: "http://127.0.0.1:2",
      FACILITATOR_EVM_SECRET_KEY: EVM_KEY,
      SERVICE_EVM_DEPOSIT_ADDRESS: EVM_ADDRESS.toUpperCase().replace("0X", "0x"),
    });
    const facilitator = await createFacilitator(cfg);
    expect(facilitator.evm).toMatchObject({
      address: EVM_ADDRESS.toLowerCase(),
      rpcUrls: { base: "http://127.0.0.1:1", "base-sepolia": "http://127.0.0.1:2" },
    });
    const kinds = facilitator.x402.getSupported().kinds.map((k) => k.network);
    expect(kinds).toEqual(expect.arrayContaining(["eip155:8453", "eip155:84532"]));
  });
});

describe("loadRelayerKey()", () => {
  it("is null when no Base network has an RPC, leaving even a malformed key unread", () => {
    expect(loadRelayerKey(production({ FACILITATOR_EVM_SECRET_KEY: "0x1234" }))).toBeNull();
  });

  it("is the configured key, in lower-case 0x hex, when a Base network has an RPC", () => {
    expect(
      loadRelayerKey(
        production({
          RPC_URL_BASE_SEPOLIA: "http://127.0.0.1:1",
          FACILITATOR_EVM_SECRET_KEY: EVM_KEY.toUpperCase().replace("0X", "0x"),
        }),
      ),
    ).toBe(EVM_KEY);
  });

  it("rejects malformed input: a key that is not 32 bytes of hex is named", () => {
    expect(() =>
      loadRelayerKey(production({ RPC_URL_BASE: "http://127.0.0.1:1", FACILITATOR_EVM_SECRET_KEY: "0x1234" })),
    ).toThrow(new ConfigError("FACILITATOR_EVM_SECRET_KEY is not a valid EVM private key (32 bytes of hex)"));
  });
});
