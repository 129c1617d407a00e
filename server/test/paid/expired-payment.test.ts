// A payment that outlived its blockhash (an agent that paid, then waited past the ~150 slots a cluster keeps a
// blockhash) is refused as `payment_expired` with a message that says what to do: nothing was charged, pay the new
// challenge. The 402 carries that new challenge, and paying it is served.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildPaymentHeader, challengeOf, startPaidStack, type PaidStack } from "../support/paid-stack";

/** 2 ms slots: a blockhash is forgotten 150 slots (0.3 s) after it was made. */
const SLOT_MS = 2;
let stack: PaidStack;
beforeAll(async () => {
  stack = await startPaidStack({ devnet: { timing: "real", slotMs: SLOT_MS }, env: { X402_FLAT_PRICE_USDC: "0.001" } });
});
afterAll(async () => stack?.close());

const body = { model: "local/echo-1", messages: [{ role: "user", content: "a payment that waited too long" }] };

describe("a payment whose blockhash expired before it was sent", () => {
  it("is 402 payment_expired, says nothing was charged and to pay the new challenge, and the new challenge is served", async () => {
    const agent = await stack.newAgent();
    const header = await buildPaymentHeader(agent, await challengeOf(await stack.chat({ body })), stack.devnet.faultFreeUrl);
    await new Promise((r) => setTimeout(r, 400 * SLOT_MS));
    const res = await stack.chat({ body, headers: { "PAYMENT-SIGNATURE": header } });
    expect(res.status).toBe(402);
    const refused = (await res.json()) as { error: { code: string; reason: string; message: string; detail?: unknown } };
    expect(refused.error).toMatchObject({ code: "payment_required", reason: "payment_expired" });
    expect(refused.error.message).toMatch(/expired.*nothing was charged.*pay the new challenge/);
    expect(refused.error.detail).toBeUndefined();
    expect(await stack.devnet.usdcBalance(agent.address)).toBe(1_000_000n);

    const again = await buildPaymentHeader(agent, await challengeOf(res), stack.devnet.faultFreeUrl);
    const served = await stack.chat({ body, headers: { "PAYMENT-SIGNATURE": again } });
    expect(served.status).toBe(200);
    expect(await stack.devnet.usdcBalance(agent.address)).toBe(1_000_000n - 1_000n);
  });
});
