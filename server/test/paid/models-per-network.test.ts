// Models per network: free faucet USDC on a testnet must not buy real provider inference, so testnets serve the
// built-in model only unless the operator enables provider models there; mainnets (switch on) serve the provider. The
// models list names only the networks the service takes payment on: an RPC configured, a mainnet only while switched on.
import { completionAnswer, startFakeProvider, type FakeProvider } from "../support/fake-provider";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { generateKeypair } from "../../keys/parse-secret-key";
import { writeSetting } from "../../settings/write-setting";
import { CHAT_URL, startPaidStack, type PaidStack } from "../support/paid-stack";

let provider: FakeProvider;
let providerCalls = 0;
let stack: PaidStack;

beforeAll(async () => {
  provider = await startFakeProvider(({ body }) => {
    providerCalls++;
    return completionAnswer(body.model, "provider answer", { prompt_tokens: 10, completion_tokens: 3 });
  });
  // Solana devnet and mainnet and Base Sepolia have chains; Base, Polygon and Avalanche (and their testnets) have no RPC.
  stack = await startPaidStack({
    mainnet: true,
    evm: true,
    env: {
      X402_FLAT_PRICE_USDC: "0.01",
      UPSTREAM_API_KEY: "test-key",
      UPSTREAM_BASE_URL: provider.url,
      SERVICE_MAINNET_ENABLED: "true",
      SERVICE_MAINNET_DEPOSIT_ADDRESS: generateKeypair().publicKeyBase58,
    },
  });
});
afterAll(async () => {
  await stack?.close();
  await provider?.close();
});
beforeEach(async () => {
  await stack.tdb.prisma.setting.deleteMany({
    where: { key: { in: ["SERVICE_TESTNET_PROVIDER_MODELS", "SERVICE_MAINNET_ENABLED"] } },
  });
});

const remote = (network: string) => ({
  model: "openai/gpt-4o-mini",
  messages: [{ role: "user", content: "real inference?" }],
  network,
});
const pay = async (body: unknown, chain = stack.devnet) => {
  const agent = await stack.newAgent(1_000_000n, chain);
  return stack.payingFetch(agent)(CHAT_URL, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
};

describe("provider models per network", () => {
  it("refuses a provider model on devnet with 400 model_not_allowed naming the reason, before any payment", async () => {
    const res = await stack.chat({ body: remote("devnet") });
    expect(res.status).toBe(400);
    const out = (await res.json()) as {
      error: { code: string; message: string; reason: string; detail: string; param: string | null };
    };
    expect(out).toMatchObject({
      error: { code: "model_not_allowed", reason: "testnet_provider_models_disabled", detail: "model", param: "model" },
    });
    expect(out.error.message).toMatch(/testnet/);
  });

  it("refuses it on devnet with a stock paying client too, calling no provider and moving no money", async () => {
    const before = providerCalls;
    const res = await pay(remote("devnet"));
    expect(res.status).toBe(400);
    expect(providerCalls).toBe(before);
  });

  it("still serves the built-in model on devnet", async () => {
    const res = await pay({ ...remote("devnet"), model: "local/echo-1" });
    expect(res.status).toBe(200);
  });

  it("serves the provider model on mainnet (switch on)", async () => {
    const before = providerCalls;
    const res = await pay(remote("mainnet"), stack.mainnet!);
    expect(res.status).toBe(200);
    expect(providerCalls).toBe(before + 1);
  });

  it("serves the provider model on devnet once the operator enables SERVICE_TESTNET_PROVIDER_MODELS", async () => {
    expect(
      await writeSetting(stack.tdb.prisma, stack.config, "SERVICE_TESTNET_PROVIDER_MODELS", "true", "test"),
    ).toMatchObject({ ok: true });
    const before = providerCalls;
    const res = await pay(remote("devnet"));
    expect(res.status).toBe(200);
    expect(providerCalls).toBe(before + 1);
  });

  it("lists the networks each model is offered on in GET /api/v1/models: only those with an RPC, mainnets while switched on", async () => {
    const { GET } = await import("@/app/api/v1/models/route");
    const list = async () =>
      (
        (await (await GET(new Request("http://signet.test/api/v1/models"), {})).json()) as {
          data: { id: string; networks: string[] }[];
        }
      ).data;
    const networksOf = (data: { id: string; networks: string[] }[], id: string) =>
      data.find((m) => m.id === id)?.networks;
    const off = await list();
    expect(networksOf(off, "local/echo-1")).toEqual(["devnet", "mainnet", "base-sepolia"]);
    expect(networksOf(off, "openai/gpt-4o-mini")).toEqual(["mainnet"]);
    await writeSetting(stack.tdb.prisma, stack.config, "SERVICE_TESTNET_PROVIDER_MODELS", "true", "test");
    expect(networksOf(await list(), "openai/gpt-4o-mini")).toEqual(["devnet", "mainnet", "base-sepolia"]);
    expect(
      await writeSetting(stack.tdb.prisma, stack.config, "SERVICE_MAINNET_ENABLED", "false", "test"),
    ).toMatchObject({ ok: true });
    expect(networksOf(await list(), "openai/gpt-4o-mini")).toEqual(["devnet", "base-sepolia"]);
    expect(networksOf(await list(), "local/echo-1")).toEqual(["devnet", "base-sepolia"]);
  });

  it("lists the same networks for one model in GET /api/v1/models/{id}", async () => {
    const { GET } = await import("@/app/api/v1/models/[...id]/route");
    const res = await GET(new Request("http://signet.test/api/v1/models/local/echo-1"), {
      params: Promise.resolve({ id: ["local", "echo-1"] }),
    });
    expect(((await res.json()) as { networks: string[] }).networks).toEqual(["devnet", "mainnet", "base-sepolia"]);
  });
});
