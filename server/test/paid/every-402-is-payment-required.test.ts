// Every 402 on the paid route answers the same way: `error: "payment_required"`, the detail in `reason`, and the
// challenge to pay again in the body and in both challenge headers (PAYMENT-REQUIRED whole; X-Payment-Required, the
// seed's header, without the x402 extensions).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodePaymentRequiredHeader } from "@x402/core/http";
import { appContext } from "../../app-context";
import { generateKeypair } from "../../keys/parse-secret-key";
import { buildPaymentHeader, challengeOf, startPaidStack, type PaidStack } from "../support/paid-stack";

let stack: PaidStack;
beforeAll(async () => {
  stack = await startPaidStack({ env: { X402_FLAT_PRICE_USDC: "0.001" } });
});
afterAll(async () => stack?.close());

const body = { model: "local/echo-1", messages: [{ role: "user", content: "402s" }] };

/** Asserts the uniform 402: payment_required, `reason`, and the same challenge in the body and both headers. */
async function expectPaymentRequired(res: Response, reason: string | undefined): Promise<void> {
  expect(res.status).toBe(402);
  const out = (await res.json()) as { error: string; reason?: string; challenge: { accepts: unknown[]; extensions?: Record<string, unknown> } };
  expect(out.error).toBe("payment_required");
  expect(out.reason).toBe(reason);
  expect(out.challenge.accepts).toHaveLength(1);
  expect(Object.keys(out.challenge.extensions ?? {}).sort()).toEqual(["bazaar", "offer-receipt", "payment-identifier"]);
  expect(decodePaymentRequiredHeader(res.headers.get("PAYMENT-REQUIRED")!)).toEqual(out.challenge);
  const { extensions: _extensions, ...seed } = out.challenge;
  expect(decodePaymentRequiredHeader(res.headers.get("X-Payment-Required")!)).toEqual(seed);
}

describe("402 answers on the paid route", () => {
  it("answers a request without payment with payment_required and the challenge (no reason: nothing was refused)", async () => {
    await expectPaymentRequired(await stack.chat({ body }), undefined);
  });

  it("answers an undecodable payment header with payment_required, its reason and the challenge", async () => {
    await expectPaymentRequired(await stack.chat({ body, headers: { "X-Payment": "not-a-payment" } }), "malformed");
  });

  it("answers a payment that does not match the challenge with payment_required, reason requirements_mismatch", async () => {
    const agent = await stack.newAgent();
    const challenge = await challengeOf(await stack.chat({ body }));
    const header = await buildPaymentHeader(agent, challenge, stack.devnet.url, (r) => ({ ...r, payTo: generateKeypair().publicKeyBase58 }));
    // The stock header names the original requirement, so tamper with what it claims to accept as well.
    const decoded = JSON.parse(Buffer.from(header, "base64").toString()) as { accepted: { amount: string } };
    decoded.accepted.amount = "999";
    const res = await stack.chat({ body, headers: { "X-Payment": Buffer.from(JSON.stringify(decoded)).toString("base64") } });
    await expectPaymentRequired(res, "requirements_mismatch");
  });

  it("answers a payment the facilitator does not verify with payment_required, reason insufficient_balance", async () => {
    const agent = await stack.newAgent(500n);
    const challenge = await challengeOf(await stack.chat({ body }));
    const header = await buildPaymentHeader(agent, challenge, stack.devnet.url);
    await expectPaymentRequired(await stack.chat({ body, headers: { "X-Payment": header } }), "insufficient_balance");
  });

  it("answers a failed settlement with payment_required, the settlement's reason and the challenge (nothing charged)", async () => {
    const agent = await stack.newAgent();
    const challenge = await challengeOf(await stack.chat({ body }));
    const header = await buildPaymentHeader(agent, challenge, stack.devnet.url);
    const { gateway } = await appContext();
    const settle = gateway.settle;
    gateway.settle = async (_payload, requirements) => ({ success: false, errorReason: "transaction_failed", transaction: "", network: requirements.network });
    try {
      await expectPaymentRequired(await stack.chat({ body, headers: { "X-Payment": header } }), "transaction_failed");
    } finally {
      gateway.settle = settle;
    }
    expect(await stack.devnet.usdcBalance(agent.address)).toBe(1_000_000n);
  });
});
