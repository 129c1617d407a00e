// The service advertises EIP-3009 only on Base, and crash recovery can find only EIP-3009 settlements on chain: a
// Permit2 payload is refused at verify with a stable reason, before anything is claimed, settled or sent.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encodePaymentSignatureHeader } from "@x402/core/http";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { createPublicClient, http } from "viem";
import { challengeOf, startPaidStack, type PaidStack } from "../support/paid-stack";

let stack: PaidStack;
beforeAll(async () => {
  // Automine: no block without a transaction, so an unchanged block number shows nothing was sent.
  stack = await startPaidStack({ evm: true, timing: "instant", env: { X402_FLAT_PRICE_USDC: "0.001" } });
});
afterAll(async () => stack?.close());

const body = {
  model: "local/echo-1",
  network: "base-sepolia",
  messages: [{ role: "user", content: "pay with permit2" }],
};

describe("a Permit2 payment on Base Sepolia", () => {
  it("is refused with 402 unsupported_payload, and nothing is claimed, settled or sent", async () => {
    const chain = stack.baseSepolia!;
    const agent = await stack.newEvmAgent();
    const challenge = await challengeOf(await stack.chat({ body }));
    const accepted = challenge.accepts[0]!;
    // The stock client signs a real Permit2 authorization when asked for one; the header claims our requirement.
    const permit2 = await new ExactEvmScheme(agent).createPaymentPayload(2, {
      ...accepted,
      extra: { ...accepted.extra, assetTransferMethod: "permit2" },
    });
    expect(permit2.payload).toHaveProperty("permit2Authorization");
    const header = encodePaymentSignatureHeader({
      x402Version: 2,
      resource: challenge.resource,
      accepted,
      payload: permit2.payload,
    });

    const client = createPublicClient({ transport: http(chain.url) });
    const blockBefore = await client.getBlockNumber({ cacheTime: 0 });
    const nonceBefore = await client.getTransactionCount({ address: stack.evmDeposit! });
    const usdcBefore = await chain.usdcBalance(agent.address);

    const res = await stack.chat({ body, headers: { "PAYMENT-SIGNATURE": header } });
    expect(res.status).toBe(402);
    expect(await res.json()).toMatchObject({ code: "payment_required", detail: "unsupported_payload", param: null });

    // This agent's rows only, so the check holds whatever else the database holds.
    const mine = { equals: agent.address, mode: "insensitive" } as const;
    expect(await stack.tdb.prisma.payment.count({ where: { payer: mine } })).toBe(0);
    expect(await stack.tdb.prisma.ledgerEntry.count({ where: { agentPubkey: mine } })).toBe(0);
    expect(await client.getBlockNumber({ cacheTime: 0 })).toBe(blockBefore);
    expect(await client.getTransactionCount({ address: stack.evmDeposit! })).toBe(nonceBefore);
    expect(await chain.usdcBalance(agent.address)).toBe(usdcBefore);
  });
});
