// The embeddings route paid beyond Solana and x402 v2: the stock v2 client (@x402/fetch + @x402/evm) on Base Sepolia,
// and the stock v1 client (x402-fetch 1.2.0) on Solana devnet and on Base Sepolia, each unchanged. Each call is
// answered 200 with OpenAI's embeddings body and a receipt that the verifier library checks against the request's
// model and input, the vectors and the chain it names; the payer's USDC moves by the price once; the same payment header
// sent again with the same request gets the stored answer and moves nothing more. One stack: devnet and one anvil.
import { x402Client } from "@x402/core/client";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { wrapFetchWithPayment as wrapFetchV2 } from "@x402/fetch";
import bs58 from "bs58";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSigner, decodeXPaymentResponse, wrapFetchWithPayment as wrapFetchV1 } from "x402-fetch";
import { generateKeypair } from "../../keys/parse-secret-key";
import { CHECK_NAMES, parseReceiptText, verifyReceipt } from "../../verify";
import { operatorKeypair } from "../support/env";
import { buildPaymentHeader, challengeOf, startPaidStack, type PaidStack } from "../support/paid-stack";

const EMBEDDINGS_URL = "http://signet.test/api/v1/embeddings";
const MODEL = "local/hash-embed-1";
const PRICE = 1_000n;
const FUNDS = 1_000_000n;
const allChecks = Object.fromEntries(CHECK_NAMES.map((c) => [c, true]));

let stack: PaidStack;
beforeAll(async () => {
  stack = await startPaidStack({ evm: true, timing: "instant", env: { X402_FLAT_PRICE_USDC: "0.001" } });
});
afterAll(async () => stack?.close());

/** The embeddings route as a fetch, in process. */
const routeFetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
  const { POST } = await import("@/app/api/v1/embeddings/route");
  return POST(new Request(input, init), {});
}) as typeof fetch;

/** The route as a fetch that keeps the last payment header a client sent (v2's PAYMENT-SIGNATURE or v1's X-PAYMENT). */
function recordingFetch() {
  const sent: { header: string; value: string }[] = [];
  const fetcher = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    for (const header of ["PAYMENT-SIGNATURE", "X-PAYMENT"]) {
      const value = request.headers.get(header);
      if (value) sent.push({ header, value });
    }
    return routeFetch(request);
  }) as typeof fetch;
  return { fetcher, sent };
}

/** Any client's fetch (x402-fetch's takes no URL object) posting `body` to the route. */
const post = (
  fetcher: (url: string, init: RequestInit) => Promise<Response>,
  body: unknown,
  headers: Record<string, string> = {},
) =>
  fetcher(EMBEDDINGS_URL, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });

interface EmbeddingsAnswer {
  object: string;
  model: string;
  data: { object: string; index: number; embedding: number[] }[];
}

/** What a payment may move for `payer` (as the service records it): its ledger entries, payments and logged calls. */
async function recordedFor(payer: string) {
  return {
    credits: await stack.tdb.prisma.ledgerEntry.count({ where: { agentPubkey: payer, kind: "payment_credit" } }),
    payments: await stack.tdb.prisma.payment.count({ where: { payer } }),
    calls: await stack.tdb.prisma.inferenceLog.count({ where: { agentPubkey: payer } }),
  };
}

/**
 * Checks one paid embeddings answer and its replay: 200 with a vector per input, a receipt that verifies on `rpc` and
 * names `caip2` and `payer`, the price moved once; then the recorded payment header sent again with the same request is
 * the stored answer and receipt, and nothing moves.
 */
async function expectPaidOnceAndReplayed(opts: {
  res: Response;
  request: { model: string; input: string[]; network: string };
  sent: { header: string; value: string }[];
  caip2: string;
  rpc: string;
  payer: string;
  balance: () => Promise<bigint>;
}) {
  const { res, request, sent, caip2, rpc, payer, balance } = opts;
  const text = await res.text();
  expect(res.status, text).toBe(200);
  const answer = JSON.parse(text) as EmbeddingsAnswer;
  expect(answer).toMatchObject({ object: "list", model: MODEL });
  expect(answer.data.map((d) => [d.object, d.index])).toEqual(request.input.map((_, i) => ["embedding", i]));
  for (const d of answer.data) expect(d.embedding.length).toBeGreaterThan(0);

  const parsed = parseReceiptText(res.headers.get("x-service-receipt") ?? "");
  if (!parsed.ok) throw new Error("the paid answer carries no receipt");
  const receipt = parsed.receipt as { agent_pubkey: string; payment: { network: string; tx_signature: string } };
  expect(receipt.payment.network).toBe(caip2);
  expect(receipt.agent_pubkey).toBe(payer);
  const verdict = await verifyReceipt({
    receipt: parsed.receipt,
    prompt: { model: request.model, input: request.input },
    response: answer,
    operatorKey: operatorKeypair().publicKeyBase58,
    rpc,
  });
  expect(verdict.checks, JSON.stringify(verdict.reasons)).toEqual(allChecks);
  expect(verdict.reasons.prompt_hash_ok).toBe("prompt hash matches (embeddings form)");

  expect(await balance()).toBe(FUNDS - PRICE);
  const recorded = await recordedFor(payer);
  expect(recorded).toEqual({ credits: 1, payments: 1, calls: 1 });

  // The client sent one payment; the same header with the same request is the stored answer, charged nothing.
  expect(sent).toHaveLength(1);
  const again = await post(routeFetch, request, { [sent[0]!.header]: sent[0]!.value });
  const againText = await again.text();
  expect(again.status, againText).toBe(200);
  expect(again.headers.get("x-answer-replayed")).toBe("true");
  expect(JSON.parse(againText)).toEqual(answer);
  // The same receipt (its fields, signature and all), whatever order the stored JSON gives its keys.
  expect(parseReceiptText(again.headers.get("x-service-receipt") ?? "")).toEqual(parsed);
  expect(await balance()).toBe(FUNDS - PRICE);
  expect(await recordedFor(payer)).toEqual(recorded);
  return receipt;
}

describe("embeddings on Base Sepolia", () => {
  it("challenge with Base Sepolia's USDC in x402 v2's header and v1's body, naming the embeddings resource", async () => {
    const res = await post(routeFetch, { model: MODEL, input: "what does this cost", network: "base-sepolia" });
    const v1 = (await res.clone().json()) as { x402Version: number; accepts: Record<string, unknown>[] };
    const challenge = await challengeOf(res);
    expect(challenge.resource.url).toBe(EMBEDDINGS_URL);
    expect(challenge.accepts[0]).toMatchObject({
      scheme: "exact",
      network: "eip155:84532",
      asset: "0x036CbD53842c5426634e7929541eC2318f3dCF7e",
      amount: "1000",
      payTo: stack.evmDeposit,
    });
    expect(v1.x402Version).toBe(1);
    expect(v1.accepts).toHaveLength(1);
    expect(v1.accepts[0]).toMatchObject({
      scheme: "exact",
      network: "base-sepolia",
      maxAmountRequired: "1000",
      resource: EMBEDDINGS_URL,
      payTo: stack.evmDeposit,
    });
  });

  it("are paid by the stock x402 v2 client (@x402/fetch + @x402/evm) once, with a receipt that verifies on the chain, and replayed free", async () => {
    const account = await stack.newEvmAgent(FUNDS);
    const { fetcher, sent } = recordingFetch();
    const pay = wrapFetchV2(fetcher, new x402Client().register("eip155:84532", new ExactEvmScheme(account)));
    const request = { model: MODEL, input: ["paid on Base", "with x402 v2"], network: "base-sepolia" };
    const depositBefore = await stack.baseSepolia!.usdcBalance(stack.evmDeposit!);
    await expectPaidOnceAndReplayed({
      res: await post(pay, request),
      request,
      sent,
      caip2: "eip155:84532",
      rpc: stack.baseSepolia!.url,
      payer: account.address.toLowerCase(),
      balance: () => stack.baseSepolia!.usdcBalance(account.address),
    });
    expect(sent[0]!.header).toBe("PAYMENT-SIGNATURE");
    expect(await stack.baseSepolia!.usdcBalance(stack.evmDeposit!)).toBe(depositBefore + PRICE);
  });

  it("are paid by the stock x402 v1 client (x402-fetch) with an EIP-3009 authorization once, and replayed free", async () => {
    const key = generatePrivateKey();
    const account = privateKeyToAccount(key);
    await stack.baseSepolia!.fund(account.address, { usdcUnits: FUNDS });
    const { fetcher, sent } = recordingFetch();
    const pay = wrapFetchV1(fetcher, await createSigner("base-sepolia", key), PRICE);
    const request = { model: MODEL, input: ["paid on Base", "with x402 v1"], network: "base-sepolia" };
    const res = await post(pay, request);
    const settlement = res.headers.get("x-payment-response");
    const receipt = await expectPaidOnceAndReplayed({
      res,
      request,
      sent,
      caip2: "eip155:84532",
      rpc: stack.baseSepolia!.url,
      payer: account.address.toLowerCase(),
      balance: () => stack.baseSepolia!.usdcBalance(account.address),
    });
    expect(sent[0]!.header).toBe("X-PAYMENT");
    expect(decodeXPaymentResponse(settlement!)).toMatchObject({
      success: true,
      transaction: receipt.payment.tx_signature,
    });
  });
});

describe("embeddings on Solana devnet", () => {
  it("are paid by the stock x402 v1 client (x402-fetch) once, with a receipt that verifies on the chain, and replayed free", async () => {
    const kp = generateKeypair();
    await stack.devnet.fundAccount(kp.publicKeyBase58, { usdcUnits: FUNDS });
    const signer = await createSigner("solana-devnet", bs58.encode(new Uint8Array([...kp.seed, ...kp.publicKey])));
    const { fetcher, sent } = recordingFetch();
    const pay = wrapFetchV1(fetcher, signer, PRICE, undefined, { svmConfig: { rpcUrl: stack.devnet.faultFreeUrl } });
    const request = { model: MODEL, input: ["paid on Solana", "with x402 v1"], network: "devnet" };
    const res = await post(pay, request);
    const settlement = res.headers.get("x-payment-response");
    const receipt = await expectPaidOnceAndReplayed({
      res,
      request,
      sent,
      caip2: stack.devnet.caip2,
      rpc: stack.devnet.url,
      payer: kp.publicKeyBase58,
      balance: () => stack.devnet.usdcBalance(kp.publicKeyBase58),
    });
    expect(sent[0]!.header).toBe("X-PAYMENT");
    expect(decodeXPaymentResponse(settlement!)).toMatchObject({
      success: true,
      payer: kp.publicKeyBase58,
      transaction: receipt.payment.tx_signature,
    });
  });
});

describe("a payment made for another route", () => {
  it("is refused on each (409 payment_request_mismatch): a chat payment buys no embeddings, an embeddings payment no chat, and nothing moves", async () => {
    const agent = await stack.newAgent(FUNDS);
    const rpc = stack.devnet.faultFreeUrl;
    const chatBody = { model: "local/echo-1", messages: [{ role: "user", content: "hello" }] };
    const embeddingsBody = { model: MODEL, input: "hello" };
    const chatHeader = await buildPaymentHeader(agent, await challengeOf(await stack.chat({ body: chatBody })), rpc);
    expect((await stack.chat({ body: chatBody, headers: { "PAYMENT-SIGNATURE": chatHeader } })).status).toBe(200);
    const embeddingsHeader = await buildPaymentHeader(
      agent,
      await challengeOf(await post(routeFetch, embeddingsBody)),
      rpc,
    );
    expect((await post(routeFetch, embeddingsBody, { "PAYMENT-SIGNATURE": embeddingsHeader })).status).toBe(200);
    const before = await recordedFor(agent.address);
    const balance = await stack.devnet.usdcBalance(agent.address);

    const chatOnEmbeddings = await post(routeFetch, embeddingsBody, { "PAYMENT-SIGNATURE": chatHeader });
    expect(chatOnEmbeddings.status).toBe(409);
    expect(await chatOnEmbeddings.json()).toMatchObject({ error: { code: "payment_request_mismatch" } });
    const embeddingsOnChat = await stack.chat({ body: chatBody, headers: { "PAYMENT-SIGNATURE": embeddingsHeader } });
    expect(embeddingsOnChat.status).toBe(409);
    expect(await embeddingsOnChat.json()).toMatchObject({ error: { code: "payment_request_mismatch" } });

    expect(await recordedFor(agent.address)).toEqual(before);
    expect(await stack.devnet.usdcBalance(agent.address)).toBe(balance);
  });
});
