import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodePaymentRequiredHeader, decodePaymentResponseHeader } from "@x402/core/http";
import { parseReceiptText, usdcNumberToUnits, verifyReceipt } from "../../verify";
import { operatorKeypair } from "../support/env";
import { challengeOf, startPaidStack, CHAT_URL, type PaidStack } from "../support/paid-stack";

let stack: PaidStack;
beforeAll(async () => {
  stack = await startPaidStack({ env: { X402_FLAT_PRICE_USDC: "0.001" } });
});
afterAll(async () => stack?.close());

const usdcBalance = (owner: string) => stack.devnet.usdcBalance(owner);

const messages = [{ role: "user", content: "hello from a stock client" }];

describe("POST /api/v1/chat/completions (paid, devnet on localnet)", () => {
  it("answers 402 with the v2 challenge in both headers and the v1 one in the body when unpaid", async () => {
    const res = await stack.chat({ body: { model: "local/echo-1", messages } });
    expect(res.status).toBe(402);
    const body = (await res.json()) as {
      code: string;
      x402Version: number;
      accepts: { maxAmountRequired: string; network: string; payTo: string }[];
    };
    expect(body.code).toBe("payment_required");
    expect(res.headers.get("payment-required")).toBeTruthy();
    const { extensions, ...seed } = decodePaymentRequiredHeader(res.headers.get("payment-required")!);
    expect(Object.keys(extensions ?? {}).sort()).toEqual(["bazaar", "offer-receipt", "payment-identifier"]);
    const { recentBlockhash: _hash, lastValidBlockHeight: _height, ...stable } = seed.accepts[0]!.extra ?? {};
    expect(decodePaymentRequiredHeader(res.headers.get("x-payment-required")!)).toEqual({
      x402Version: 2,
      resource: { url: seed.resource.url },
      accepts: [{ ...seed.accepts[0], extra: stable }],
    });
    const req = seed.accepts[0]!;
    expect(req).toMatchObject({ amount: "1000", network: stack.devnet.caip2 });
    expect(req.extra?.feePayer).toBe(req.payTo);
    expect(body.x402Version).toBe(1);
    expect(body.accepts).toEqual([
      expect.objectContaining({ maxAmountRequired: "1000", network: "solana-devnet", payTo: req.payTo }),
    ]);
  });

  it("serves a stock @x402/fetch client: chain balances move by the price and the receipt passes all five checks", async () => {
    const agent = await stack.newAgent();
    const payTo = await challengeOf(await stack.chat({ body: { model: "local/echo-1", messages } }));
    const depositBefore = await usdcBalance(payTo.accepts[0]!.payTo);
    const agentBefore = await usdcBalance(agent.address);

    const res = await stack.payingFetch(agent)(CHAT_URL, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "local/echo-1", messages }),
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { choices: { message: { content: string } }[] };
    expect(body.choices[0]!.message.content).toContain("hello from a stock client");

    expect(await usdcBalance(agent.address)).toBe(agentBefore - 1000n);
    expect(await usdcBalance(payTo.accepts[0]!.payTo)).toBe(depositBefore + 1000n);

    const settlement = decodePaymentResponseHeader(res.headers.get("payment-response")!);
    // The seed's X-Payment-Response: the same settlement, without the signed receipt PAYMENT-RESPONSE carries.
    const { extensions, ...plain } = settlement;
    expect(Object.keys(extensions ?? {})).toEqual(["offer-receipt"]);
    expect(decodePaymentResponseHeader(res.headers.get("x-payment-response")!)).toEqual(plain);
    expect(settlement).toMatchObject({ success: true, network: stack.devnet.caip2, payer: agent.address });
    // The chain keeps real time: the service answered once its settlement was confirmed, never on a processed one.
    expect(stack.devnet.chain.commitmentOf(stack.devnet.chain.getTransaction(settlement.transaction)!)).not.toBe(
      "processed",
    );

    const parsed = parseReceiptText(res.headers.get("x-service-receipt")!);
    if (!parsed.ok) throw new Error("no receipt");
    const verdict = await verifyReceipt({
      receipt: parsed.receipt,
      prompt: messages,
      response: body,
      operatorKey: operatorKeypair().publicKeyBase58,
      rpc: stack.devnet.url,
    });
    expect(verdict.checks).toEqual({
      prompt_hash_ok: true,
      response_hash_ok: true,
      service_signature_ok: true,
      payment_on_chain_ok: true,
      payer_matches: true,
    });
    expect(parsed.receipt).toMatchObject({
      v: 2,
      agent_pubkey: agent.address,
      payment: {
        scheme: "x402",
        amount_usdc: 0.001,
        tx_signature: settlement.transaction,
        network: stack.devnet.caip2,
      },
    });

    const ledger = await stack.tdb.prisma.ledgerEntry.findMany({ where: { agentPubkey: agent.address } });
    const balance = await stack.tdb.prisma.balance.findUnique({
      where: { agentPubkey_network: { agentPubkey: agent.address, network: stack.devnet.caip2 } },
    });
    // The settlement credits the price and holds it for this call in one statement; capture returns the change.
    expect(ledger.map((e) => e.kind).sort()).toEqual(["hold", "hold_release", "payment_credit"]);
    expect(ledger.reduce((s, e) => s + e.units, 0n)).toBe(balance!.units);
    const costUnits = usdcNumberToUnits(parsed.receipt.cost_usdc)!;
    expect(balance!.units).toBe(1000n - costUnits);
    const log = await stack.tdb.prisma.inferenceLog.findUnique({ where: { id: String(parsed.receipt.inference_id) } });
    expect(log).toMatchObject({ txSignature: settlement.transaction, status: "served", route: "chat" });
    expect(log!.receipt).toEqual(parsed.receipt);
  });
});
