// Every 402 on the paid route answers the same way: the error `code` payment_required, the detail in the error's
// `reason`, and the challenge to pay again: x402 v2's in both challenge headers (PAYMENT-REQUIRED whole;
// X-Payment-Required, the seed's header, without the x402 extensions), the same requirement in x402 v1's form in the
// body (`x402Version: 1`, `accepts`).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POST as chatRoute } from "@/app/api/v1/chat/completions/route";
import { POST as topUpRoute } from "@/app/api/v1/credits/route";
import { POST as embeddingsRoute } from "@/app/api/v1/embeddings/route";
import { POST as responsesRoute } from "@/app/api/v1/responses/route";
import { decodePaymentRequiredHeader } from "@x402/core/http";
import type { PaymentRequirementsV1 } from "@x402/core/types/v1";
import { extractDiscoveryInfoV1, isDiscoverableV1 } from "@x402/extensions/bazaar";
import { routeRuntime } from "../../runtime/route-edge";
import { generateKeypair } from "../../keys/parse-secret-key";
import { buildPaymentHeader, challengeOf, startPaidStack, type PaidStack } from "../support/paid-stack";

let stack: PaidStack;
beforeAll(async () => {
  stack = await startPaidStack({ env: { X402_FLAT_PRICE_USDC: "0.001" } });
});
afterAll(async () => stack?.close());

const body = { model: "local/echo-1", messages: [{ role: "user", content: "402s" }] };

/**
 * Asserts the uniform 402: payment_required with its `reason`, the v2 challenge in both headers, and the same
 * requirement in x402 v1's form as the body, the error's fields beside it (no `error` key, no v2 challenge).
 */
async function expectPaymentRequired(res: Response, reason: string | undefined): Promise<void> {
  expect(res.status).toBe(402);
  const out = (await res.json()) as Record<string, unknown> & { x402Version: number; accepts: unknown[] };
  expect(out).toMatchObject({ code: "payment_required", type: "payment_required_error", message: expect.any(String) });
  expect(out).not.toHaveProperty("error");
  expect(out.reason).toBe(reason);
  // `param` names a request field; a 402 names none (a refusal's facilitator detail is `detail`, never `param`).
  expect(out.param).toBeNull();
  expect(out.request_id).toBe(res.headers.get("x-request-id"));
  expect(out).not.toHaveProperty("challenge");
  const challenge = decodePaymentRequiredHeader(res.headers.get("PAYMENT-REQUIRED")!);
  expect(challenge.accepts).toHaveLength(1);
  expect(Object.keys(challenge.extensions ?? {}).sort()).toEqual(["bazaar", "offer-receipt", "payment-identifier"]);
  // The seed's header: what paying needs (the version, the resource's URL, the requirements without the blockhash).
  const { recentBlockhash: _hash, lastValidBlockHeight: _height, ...extra } = challenge.accepts[0]!.extra ?? {};
  expect(decodePaymentRequiredHeader(res.headers.get("X-Payment-Required")!)).toEqual({
    x402Version: 2,
    resource: { url: challenge.resource.url },
    accepts: [{ ...challenge.accepts[0], extra }],
  });
  const offered = challenge.accepts[0]!;
  expect(out.x402Version).toBe(1);
  expect(out.accepts).toEqual([
    {
      scheme: offered.scheme,
      network: "solana-devnet",
      maxAmountRequired: offered.amount,
      resource: challenge.resource.url,
      description: expect.any(String),
      mimeType: expect.any(String),
      payTo: offered.payTo,
      maxTimeoutSeconds: offered.maxTimeoutSeconds,
      asset: offered.asset,
      extra: offered.extra ?? {},
      // v1 bazaar discovery: the route's HTTP input and an example answer.
      outputSchema: {
        input: expect.objectContaining({ type: "http", method: "POST", bodyType: "json", discoverable: true }),
        output: expect.objectContaining({ object: "chat.completion" }),
      },
    },
  ]);
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
    const header = await buildPaymentHeader(agent, challenge, stack.devnet.url, (r) => ({
      ...r,
      payTo: generateKeypair().publicKeyBase58,
    }));
    // The stock header names the original requirement, so tamper with what it claims to accept as well.
    const decoded = JSON.parse(Buffer.from(header, "base64").toString()) as { accepted: { amount: string } };
    decoded.accepted.amount = "999";
    const res = await stack.chat({
      body,
      headers: { "X-Payment": Buffer.from(JSON.stringify(decoded)).toString("base64") },
    });
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
    const { gateway } = await routeRuntime();
    const settle = gateway.settle;
    gateway.settle = async (_payload, requirements) => ({
      success: false,
      errorReason: "transaction_failed",
      transaction: "",
      network: requirements.network,
    });
    try {
      await expectPaymentRequired(await stack.chat({ body, headers: { "X-Payment": header } }), "transaction_failed");
    } finally {
      gateway.settle = settle;
    }
    expect(await stack.devnet.usdcBalance(agent.address)).toBe(1_000_000n);
  });
});

describe("a POST without a body (a crawler's probe)", () => {
  const ROUTES = [
    ["/api/v1/chat/completions", chatRoute],
    ["/api/v1/responses", responsesRoute],
    ["/api/v1/embeddings", embeddingsRoute],
    ["/api/v1/credits", topUpRoute],
  ] as const;
  const post = (route: (typeof ROUTES)[number], init: { body?: string; headers?: Record<string, string> } = {}) =>
    route[1](new Request(`http://signet.test${route[0]}`, { method: "POST", ...init }), {});

  it.each(ROUTES)(
    "gets the challenge at %s: the route's price on the default network, as any unpaid call",
    async (...route) => {
      const res = await post(route);
      expect(res.status).toBe(402);
      const challenge = decodePaymentRequiredHeader(res.headers.get("PAYMENT-REQUIRED")!);
      expect(challenge.resource.url).toBe(`http://signet.test${route[0]}`);
      expect(challenge.accepts[0]).toMatchObject({ network: stack.devnet.caip2 });
      if (route[0] !== "/api/v1/credits") expect(challenge.accepts[0]!.amount).toBe("1000");
    },
  );

  it.each(ROUTES)(
    "gets v1 accepts at %s that x402's v1 bazaar discovery reads: a POST, its body's fields",
    async (...route) => {
      const body = (await (await post(route)).json()) as { accepts: PaymentRequirementsV1[] };
      const accept = body.accepts[0]!;
      expect(isDiscoverableV1(accept)).toBe(true);
      const info = extractDiscoveryInfoV1(accept) as { input: { method: string; body: Record<string, unknown> } };
      expect(info.input.method).toBe("POST");
      const field = route[0] === "/api/v1/credits" ? "amount_usdc" : "model";
      expect(Object.keys(info.input.body)).toContain(field);
    },
  );

  it.each(ROUTES)("stays a 400 at %s with a payment header, or with a malformed body", async (...route) => {
    const agent = await stack.newAgent();
    const header = await buildPaymentHeader(agent, await challengeOf(await post(route)), stack.devnet.url);
    const paid = await post(route, { headers: { "payment-signature": header } });
    expect(paid.status).toBe(400);
    expect(await paid.json()).toMatchObject({ error: { code: "invalid_request" } });
    for (const body of ["{nope", " ", "[]"]) expect((await post(route, { body })).status).toBe(400);
    // Nothing was settled for the probe's payment.
    expect(await stack.devnet.usdcBalance(agent.address)).toBe(1_000_000n);
  });
});
