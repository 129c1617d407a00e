// The payment-id claim on the embedded database (PGlite, PostgreSQL 18), which `npm run dev` uses: the same statement
// binds an id, answers a replay and a conflict, and claims payments without an id, as on PostgreSQL 15.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { x402Client } from "@x402/core/client";
import { encodePaymentSignatureHeader } from "@x402/core/http";
import { ExactSvmScheme } from "@x402/svm/exact/client";
import { generatePaymentId } from "@x402/extensions/payment-identifier";
import { withPaymentId } from "../../agent/paying-fetch";
import { challengeOf, startPaidStack, type PaidStack } from "../support/paid-stack";

let stack: PaidStack;
// No DATABASE_URL: the service opens PGlite in the stack's own data folder.
beforeAll(async () => {
  stack = await startPaidStack({ timing: "instant", env: { DATABASE_URL: undefined, X402_FLAT_PRICE_USDC: "0.001" } });
});
afterAll(async () => stack?.close());

const body = { model: "local/echo-1", messages: [{ role: "user", content: "embedded" }] };

describe("payment ids on PGlite", () => {
  it("serves a payment with an id, answers its replay and another payment under the id, and one without an id", async () => {
    const agent = await stack.newAgent();
    const id = generatePaymentId();
    const header = async (paymentId?: string) => {
      const client = new x402Client().register(stack.devnet.caip2 as never, new ExactSvmScheme(agent, { rpcUrl: stack.devnet.faultFreeUrl }));
      const payload = await withPaymentId(client, paymentId === undefined ? {} : { paymentId }).createPaymentPayload(await challengeOf(await stack.chat({ body })));
      return encodePaymentSignatureHeader(payload);
    };
    const send = async (h: string) => {
      const res = await stack.chat({ body, headers: { "PAYMENT-SIGNATURE": h } });
      return [res.status, ((await res.json()) as { error?: string }).error];
    };
    const first = await header(id);
    expect(await send(first)).toEqual([200, undefined]);
    expect(await send(first)).toEqual([409, "payment_replay"]);
    expect(await send(await header(id))).toEqual([409, "payment_id_conflict"]);
    expect(await send(await header())).toEqual([200, undefined]);
    expect(await stack.devnet.usdcBalance(agent.address)).toBe(1_000_000n - 2_000n);
  });
});
