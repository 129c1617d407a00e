// The local chain in its own process, as the bench runs it: funded and read over RPC only, and gone when closed.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateKeyPairSigner } from "@solana/kit";
import { spawnLocalnet, type RemoteLocalnet } from "../../../devtools/localnet/spawn-localnet";

describe("spawnLocalnet()", () => {
  let net: RemoteLocalnet;
  beforeAll(async () => {
    net = await spawnLocalnet({ profile: "devnet", port: 0, dataDir: null, timing: "real", slotMs: 100 });
  });
  afterAll(() => net?.close());

  it("serves the devnet profile over JSON-RPC from another process", async () => {
    expect(net.caip2).toBe("solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1");
    const res = await fetch(net.url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "getGenesisHash", params: [] }),
    });
    expect(((await res.json()) as { result: string }).result).toBe(net.genesisHash);
  });

  it("funds an account and reads its USDC balance back, 0 before any token account exists", async () => {
    const owner = (await generateKeyPairSigner()).address;
    expect(await net.usdcBalance(owner)).toBe(0n);
    const funded = await net.fundAccount(owner, { usdcUnits: 1_234n, lamports: 1_000_000_000n });
    expect(funded.usdcUnits).toBe("1234");
    expect(funded.lamports).toBe("1000000000");
    expect(await net.usdcBalance(owner)).toBe(1_234n);
  });

  it("stops serving once closed", async () => {
    const other = await spawnLocalnet({ profile: "devnet", port: 0, dataDir: null, timing: "instant" });
    await other.close();
    await expect(fetch(other.url, { method: "POST", body: "{}" })).rejects.toThrow();
  });
});
