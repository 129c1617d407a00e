// The mainnet rules, with real payments on a second local chain playing mainnet: mainnet is served only while the
// operator's kill switch is on and a separate mainnet deposit address is set, and an allowlist, when set, is checked
// against the verified payer. Every test starts from the env defaults (switch off, no mainnet deposit, no allowlist)
// and sets what it needs, so each passes alone.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { decodePaymentResponseHeader } from "@x402/core/http";
import { generateKeypair } from "../../keys/parse-secret-key";
import { writeSetting } from "../../settings/write-setting";
import { operatorKeypair } from "../support/env";
import { parseReceiptText, verifyReceipt } from "../../verify";
import { buildPaymentHeader, challengeOf, CHAT_URL, startPaidStack, type PaidStack } from "../support/paid-stack";
import type { Localnet } from "../../../devtools/localnet";

let stack: PaidStack;
let mainnet: Localnet;
const mainnetDeposit = generateKeypair().publicKeyBase58;
beforeAll(async () => {
  stack = await startPaidStack({
    mainnet: true,
    env: { X402_FLAT_PRICE_USDC: "0.001", SERVICE_MAINNET_ENABLED: "false" },
  });
  mainnet = stack.mainnet!;
});
afterAll(async () => stack?.close());

const body = { model: "local/echo-1", messages: [{ role: "user", content: "mainnet please" }], network: "mainnet" };
const set = (key: Parameters<typeof writeSetting>[2], value: string) =>
  writeSetting(stack.tdb.prisma, stack.config, key, value, "test");

const usdc = (chain: Localnet, owner: string) => chain.usdcBalance(owner);
const RULE_SETTINGS = ["SERVICE_MAINNET_ENABLED", "SERVICE_MAINNET_DEPOSIT_ADDRESS", "SERVICE_ALLOWED_AGENTS"];
const enableMainnet = async () => {
  await set("SERVICE_MAINNET_ENABLED", "true");
  await set("SERVICE_MAINNET_DEPOSIT_ADDRESS", mainnetDeposit);
};

beforeEach(async () => {
  await stack.tdb.prisma.setting.deleteMany({ where: { key: { in: RULE_SETTINGS } } });
});

describe("mainnet on the paid route", () => {
  it("answers 503 mainnet_disabled while the kill switch is off, and devnet is unaffected", async () => {
    const res = await stack.chat({ body });
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({ error: { code: "mainnet_disabled" } });
    expect((await stack.chat({ body: { ...body, network: "devnet" } })).status).toBe(402);
  });

  it("answers 500 server_misconfigured when enabled without a mainnet deposit address", async () => {
    await set("SERVICE_MAINNET_ENABLED", "true");
    const res = await stack.chat({ body });
    expect(res.status).toBe(500);
    expect(await res.json()).toMatchObject({ error: { code: "server_misconfigured" } });
  });

  it("serves a real mainnet payment to the separate mainnet deposit address, and the receipt says so", async () => {
    await enableMainnet();
    const depositBefore = await usdc(mainnet, mainnetDeposit);
    const challenge = await challengeOf(await stack.chat({ body }));
    expect(challenge.accepts[0]).toMatchObject({
      network: mainnet.caip2,
      payTo: mainnetDeposit,
      asset: mainnet.usdcMint,
    });
    const agent = await stack.newAgent(1_000_000n, mainnet);
    const res = await stack.payingFetch(agent)(CHAT_URL, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(200);
    expect(await usdc(mainnet, mainnetDeposit)).toBe(depositBefore + 1000n);
    const parsed = parseReceiptText(res.headers.get("x-service-receipt")!);
    if (!parsed.ok) throw new Error("no receipt");
    expect(parsed.receipt.payment).toMatchObject({ pay_to: mainnetDeposit, network: mainnet.caip2 });
    const verdict = await verifyReceipt({
      receipt: parsed.receipt,
      prompt: body.messages,
      response: await res.json(),
      operatorKey: operatorKeypair().publicKeyBase58,
      rpc: mainnet.url,
    });
    expect(verdict.ok).toBe(true);
    // Devnet credit never buys mainnet service: the balance is per network.
    const balances = await stack.tdb.prisma.balance.findMany({ where: { agentPubkey: agent.address } });
    expect(balances.map((b) => b.network)).toEqual([mainnet.caip2]);
  });

  it("refuses a payer missing from the allowlist with 403 agent_not_allowed, settling nothing; devnet ignores the list", async () => {
    await enableMainnet();
    await set("SERVICE_ALLOWED_AGENTS", generateKeypair().publicKeyBase58);
    const agent = await stack.newAgent(1_000_000n, mainnet);
    const header = await buildPaymentHeader(agent, await challengeOf(await stack.chat({ body })), mainnet.url);
    const res = await stack.chat({ body, headers: { "X-Payment": header } });
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ error: { code: "agent_not_allowed" } });
    expect(await usdc(mainnet, agent.address)).toBe(1_000_000n);
    expect(await stack.tdb.prisma.payment.count({ where: { payer: agent.address } })).toBe(0);

    const devAgent = await stack.newAgent();
    const devRes = await stack.payingFetch(devAgent)(CHAT_URL, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ ...body, network: "devnet" }),
    });
    expect(devRes.status).toBe(200);
  });

  it("admits the same payer once it is on the allowlist (checked against the verified payer)", async () => {
    await enableMainnet();
    const agent = await stack.newAgent(1_000_000n, mainnet);
    await set("SERVICE_ALLOWED_AGENTS", `${generateKeypair().publicKeyBase58},${agent.address}`);
    const res = await stack.payingFetch(agent)(CHAT_URL, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(200);
    expect(decodePaymentResponseHeader(res.headers.get("payment-response")!).payer).toBe(agent.address);
  });

  it("flipping the switch off takes effect on the next request", async () => {
    await enableMainnet();
    expect((await stack.chat({ body })).status).toBe(402);
    await set("SERVICE_MAINNET_ENABLED", "false");
    expect((await stack.chat({ body })).status).toBe(503);
  });
});
