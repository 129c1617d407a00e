// The payment-id claim on the embedded database (PGlite, PostgreSQL 18), which `npm run dev` uses: the same statement
// binds an id, gives a served payment sent again its stored answer, answers a conflict, and claims payments without an
// id, as on PostgreSQL 15.
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
  it("serves a payment with an id, gives its repeat the stored answer, refuses another payment under the id, and serves one without an id", async () => {
    const agent = await stack.newAgent();
    const id = generatePaymentId();
    const header = async (paymentId?: string) => {
      const client = new x402Client().register(
        stack.devnet.caip2 as never,
        new ExactSvmScheme(agent, { rpcUrl: stack.devnet.faultFreeUrl }),
      );
      const payload = await withPaymentId(client, paymentId === undefined ? {} : { paymentId }).createPaymentPayload(
        await challengeOf(await stack.chat({ body })),
      );
      return encodePaymentSignatureHeader(payload);
    };
    const send = async (h: string) => {
      const res = await stack.chat({ body, headers: { "PAYMENT-SIGNATURE": h } });
      const json = (await res.json()) as { error?: { code?: string }; id?: string };
      return {
        status: res.status,
        code: json.error?.code,
        id: json.id,
        replayed: res.headers.get("x-answer-replayed"),
      };
    };
    // The service's own database (PGlite), not the stack's PostgreSQL one.
    const moved = async () => {
      const prisma = (await stack.runtime()).db;
      return {
        calls: await prisma.inferenceLog.count({ where: { agentPubkey: agent.address } }),
        ledger: await prisma.ledgerEntry.count({ where: { agentPubkey: agent.address } }),
      };
    };
    const first = await header(id);
    const served = await send(first);
    expect(served).toMatchObject({ status: 200, code: undefined, replayed: null });
    const afterFirst = await moved();
    expect(afterFirst.calls).toBe(1);
    // The same header and body again: the stored answer of the same call, and nothing moves.
    expect(await send(first)).toEqual({ status: 200, code: undefined, id: served.id, replayed: "true" });
    expect(await moved()).toEqual(afterFirst);
    expect(await send(await header(id))).toMatchObject({ status: 409, code: "payment_id_conflict" });
    expect(await moved()).toEqual(afterFirst);
    expect(await send(await header())).toMatchObject({ status: 200, code: undefined, replayed: null });
    expect((await moved()).calls).toBe(2);
    expect(await stack.devnet.usdcBalance(agent.address)).toBe(1_000_000n - 2_000n);
  });
});
