// The stock x402 v2 clients, unchanged, over HTTP: @x402/fetch 2.27.0 and @x402/axios 2.11.0 (with its own
// @x402/core 2.11.0), each with the stock exact schemes (@x402/svm for Solana, @x402/evm's EIP-3009 for Base), read the
// v2 challenge from PAYMENT-REQUIRED, pay in PAYMENT-SIGNATURE, and get PAYMENT-RESPONSE. They pay the chat route on
// Solana devnet and Base Sepolia: exactly the price moves once, PAYMENT-RESPONSE names the payer and the transaction,
// and the receipt (X-Service-Receipt, or a stream's receipt chunk) names the same transaction and verifies on chain.
import axios from "axios";
import {
  x402Client as axiosX402Client,
  wrapAxiosWithPayment,
  decodePaymentResponseHeader as decodeAxiosPaymentResponse,
} from "@x402/axios";
import { x402Client } from "@x402/core/client";
import { decodePaymentRequiredHeader, decodePaymentResponseHeader } from "@x402/core/http";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { wrapFetchWithPayment } from "@x402/fetch";
import { ExactSvmScheme } from "@x402/svm/exact/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { operatorKeypair } from "../support/env";
import { readStreamedAnswer } from "../../upstream/read-sse";
import { parseReceiptText, verifyReceipt } from "../../verify";
import { startServedStack, type ServedStack } from "../support/http-service";

const PRICE = 1_000n;
const allChecks = {
  prompt_hash_ok: true,
  response_hash_ok: true,
  service_signature_ok: true,
  payment_on_chain_ok: true,
  payer_matches: true,
};
let served: ServedStack;

beforeAll(async () => {
  served = await startServedStack({
    evm: true,
    timing: "instant",
    env: { X402_FLAT_PRICE_USDC: "0.001", LOCAL_MODEL_STREAM_DELAY_MS: "0" },
  });
}, 120_000);
afterAll(async () => served?.close());

const chatUrl = () => `${served.service.url}/api/v1/chat/completions`;
const chatBody = (network: string, content: string) => ({
  model: "local/echo-1",
  network,
  messages: [{ role: "user", content }],
});
const post = (body: unknown): RequestInit => ({
  method: "POST",
  headers: { "content-type": "application/json" },
  body: JSON.stringify(body),
});

/** A funded Solana agent (USDC, no SOL) and a funded Base Sepolia agent (USDC, no ETH). */
const solanaAgent = () => served.stack.newAgent();
const evmAgent = () => served.stack.newEvmAgent();

/** Checks a plain answer's receipt: it names the settled transaction and verifies with all five checks on `rpc`. */
async function expectReceipt(
  receiptHeader: string | null | undefined,
  settledTx: string,
  prompt: unknown,
  response: unknown,
  rpc: string,
) {
  const parsed = parseReceiptText(receiptHeader ?? "");
  if (!parsed.ok) throw new Error("no X-Service-Receipt");
  expect((parsed.receipt as { payment: { tx_signature: string } }).payment.tx_signature).toBe(settledTx);
  const verdict = await verifyReceipt({
    receipt: parsed.receipt,
    prompt,
    response,
    operatorKey: operatorKeypair().publicKeyBase58,
    rpc,
  });
  expect(verdict.checks).toEqual(allChecks);
}

describe("@x402/fetch 2.27.0", () => {
  it("the 402 it reads: the v2 challenge in PAYMENT-REQUIRED, for the request's network", async () => {
    const res = await fetch(chatUrl(), post(chatBody("base-sepolia", "what does it cost?")));
    expect(res.status).toBe(402);
    const challenge = decodePaymentRequiredHeader(res.headers.get("payment-required")!);
    expect(challenge.x402Version).toBe(2);
    expect(challenge.accepts[0]).toMatchObject({ scheme: "exact", network: "eip155:84532", amount: "1000" });
  });

  it("pays chat on Solana devnet: the price moves once, PAYMENT-RESPONSE names the payer, and the receipt names its transaction and verifies", async () => {
    const agent = await solanaAgent();
    const client = new x402Client().register(
      "solana:*",
      new ExactSvmScheme(agent, { rpcUrl: served.stack.devnet.url }),
    );
    const body = chatBody("devnet", "paid by @x402/fetch on Solana");
    const res = await wrapFetchWithPayment(fetch, client)(chatUrl(), post(body));
    expect(res.status).toBe(200);
    const settlement = decodePaymentResponseHeader(res.headers.get("payment-response")!);
    expect(settlement).toMatchObject({ success: true, payer: agent.address, network: served.stack.devnet.caip2 });
    await expectReceipt(
      res.headers.get("x-service-receipt"),
      settlement.transaction,
      body.messages,
      await res.json(),
      served.stack.devnet.url,
    );
    expect(await served.stack.devnet.usdcBalance(agent.address)).toBe(1_000_000n - PRICE);
  });

  it("pays a stream on Solana devnet: the receipt chunk carries the receipt and the x402 receipt, and verifies over the chunks", async () => {
    const agent = await solanaAgent();
    const client = new x402Client().register(
      "solana:*",
      new ExactSvmScheme(agent, { rpcUrl: served.stack.devnet.url }),
    );
    const body = { ...chatBody("devnet", "a stream paid by @x402/fetch"), stream: true };
    const res = await wrapFetchWithPayment(fetch, client)(chatUrl(), post(body));
    expect(res.status).toBe(200);
    const settlement = decodePaymentResponseHeader(res.headers.get("payment-response")!);
    const answer = await readStreamedAnswer(res.body!);
    expect(answer.done).toBe(true);
    expect(answer.x402Receipt).toMatchObject({ format: "jws" });
    expect((answer.receipt as unknown as { payment: { tx_signature: string } }).payment.tx_signature).toBe(
      settlement.transaction,
    );
    const verdict = await verifyReceipt({
      receipt: answer.receipt!,
      prompt: body.messages,
      response: answer.chunks,
      operatorKey: operatorKeypair().publicKeyBase58,
      rpc: served.stack.devnet.url,
    });
    expect(verdict.checks).toEqual(allChecks);
    expect(await served.stack.devnet.usdcBalance(agent.address)).toBe(1_000_000n - PRICE);
  });

  it("pays chat on Base Sepolia with an EIP-3009 authorization: the receipt verifies on the chain", async () => {
    const agent = await evmAgent();
    const client = new x402Client().register("eip155:*", new ExactEvmScheme(agent));
    const body = chatBody("base-sepolia", "paid by @x402/fetch on Base");
    const res = await wrapFetchWithPayment(fetch, client)(chatUrl(), post(body));
    expect(res.status).toBe(200);
    const settlement = decodePaymentResponseHeader(res.headers.get("payment-response")!);
    expect(settlement).toMatchObject({ success: true, network: "eip155:84532" });
    expect(settlement.payer?.toLowerCase()).toBe(agent.address.toLowerCase());
    await expectReceipt(
      res.headers.get("x-service-receipt"),
      settlement.transaction,
      body.messages,
      await res.json(),
      served.stack.baseSepolia!.url,
    );
    expect(await served.stack.baseSepolia!.usdcBalance(agent.address)).toBe(1_000_000n - PRICE);
  });
});

describe("@x402/axios 2.11.0", () => {
  it("pays chat on Solana devnet: the price moves once, and the receipt names the transaction and verifies", async () => {
    const agent = await solanaAgent();
    const client = new axiosX402Client().register(
      "solana:*",
      new ExactSvmScheme(agent, { rpcUrl: served.stack.devnet.url }),
    );
    const api = wrapAxiosWithPayment(axios.create(), client);
    const body = chatBody("devnet", "paid by @x402/axios on Solana");
    const res = await api.post(chatUrl(), body);
    expect(res.status).toBe(200);
    expect(res.data.object).toBe("chat.completion");
    const settlement = decodeAxiosPaymentResponse(res.headers["payment-response"] as string);
    expect(settlement).toMatchObject({ success: true, payer: agent.address });
    await expectReceipt(
      res.headers["x-service-receipt"] as string,
      settlement.transaction,
      body.messages,
      res.data,
      served.stack.devnet.url,
    );
    expect(await served.stack.devnet.usdcBalance(agent.address)).toBe(1_000_000n - PRICE);
  });

  it("pays chat on Base Sepolia with an EIP-3009 authorization: the receipt verifies on the chain", async () => {
    const agent = await evmAgent();
    const client = new axiosX402Client().register("eip155:*", new ExactEvmScheme(agent));
    const api = wrapAxiosWithPayment(axios.create(), client);
    const body = chatBody("base-sepolia", "paid by @x402/axios on Base");
    const res = await api.post(chatUrl(), body);
    expect(res.status).toBe(200);
    const settlement = decodeAxiosPaymentResponse(res.headers["payment-response"] as string);
    expect(settlement).toMatchObject({ success: true, network: "eip155:84532" });
    await expectReceipt(
      res.headers["x-service-receipt"] as string,
      settlement.transaction,
      body.messages,
      res.data,
      served.stack.baseSepolia!.url,
    );
    expect(await served.stack.baseSepolia!.usdcBalance(agent.address)).toBe(1_000_000n - PRICE);
  });

  it("a refusal before payment reaches axios as the error body in OpenAI's shape, and nothing is paid", async () => {
    const agent = await solanaAgent();
    const client = new axiosX402Client().register(
      "solana:*",
      new ExactSvmScheme(agent, { rpcUrl: served.stack.devnet.url }),
    );
    const api = wrapAxiosWithPayment(axios.create(), client);
    const err = (await api
      .post(chatUrl(), { ...chatBody("devnet", "two answers"), n: 2 })
      .catch((e: unknown) => e)) as { response?: { status: number; data: unknown } };
    expect(err.response?.status).toBe(400);
    expect(err.response?.data).toMatchObject({
      error: { code: "invalid_request", param: "n", type: "invalid_request_error" },
      request_id: expect.any(String),
    });
    expect(await served.stack.devnet.usdcBalance(agent.address)).toBe(1_000_000n);
  });
});
