// The official `openai` SDK, unchanged: baseURL set to Signet's /api/v1 over real HTTP, and fetch set to
// the stock x402 client's wrapFetchWithPayment. A completion, a streamed completion (whose last chunk carries the
// receipt), the `chat.completions.stream()` helper to its final completion, and models.list() and models.retrieve()
// all succeed on localnet, and every receipt verifies; an unknown model is the SDK's NotFoundError.
import OpenAI, { NotFoundError } from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { x402Client } from "@x402/core/client";
import { wrapFetchWithPayment } from "@x402/fetch";
import { ExactSvmScheme } from "@x402/svm/exact/client";
import { operatorKeypair } from "../../keys/service-keys";
import { parseReceiptText, verifyReceipt } from "../../verify";
import { readStreamedAnswer } from "../../streaming/read-sse";
import { startHttpService, type HttpService } from "../support/http-service";
import { startPaidStack, type PaidStack } from "../support/paid-stack";
import { teeingFetch } from "../support/tee-fetch";

let stack: PaidStack;
let service: HttpService;
let openai: OpenAI;
let agentAddress: string;
let payingFetch: typeof fetch;

beforeAll(async () => {
  stack = await startPaidStack({ env: { X402_FLAT_PRICE_USDC: "0.001", LOCAL_MODEL_STREAM_DELAY_MS: "0" } });
  service = await startHttpService();
  const agent = await stack.newAgent();
  agentAddress = agent.address;
  // Exactly the README's example.
  const client = new x402Client();
  client.register("solana:*", new ExactSvmScheme(agent, { rpcUrl: stack.devnet.url }));
  payingFetch = wrapFetchWithPayment(fetch, client);
  openai = new OpenAI({ baseURL: `${service.url}/api/v1`, apiKey: "unused: x402 pays per call", fetch: payingFetch });
});
afterAll(async () => {
  await service?.close();
  await stack?.close();
});

const messages = [{ role: "user" as const, content: "hello from the openai SDK" }];
const operatorKey = () => operatorKeypair().publicKeyBase58;
const allChecks = { prompt_hash_ok: true, response_hash_ok: true, service_signature_ok: true, payment_on_chain_ok: true, payer_matches: true };

describe("the openai SDK against Signet", () => {
  it("chat.completions.create(): pays, answers, and the X-Service-Receipt verifies", async () => {
    const { data, response } = await openai.chat.completions.create({ model: "local/echo-1", messages }).withResponse();
    expect(data.choices[0]!.message.content).toContain("hello from the openai SDK");
    const parsed = parseReceiptText(response.headers.get("x-service-receipt") ?? "");
    if (!parsed.ok) throw new Error("no receipt header");
    expect(data.id).toBe(`chatcmpl-${parsed.receipt.inference_id}`);
    const verdict = await verifyReceipt({ receipt: parsed.receipt, prompt: messages, response: data, operatorKey: operatorKey(), rpc: stack.devnet.url });
    expect(verdict.checks).toEqual(allChecks);
    expect(parsed.receipt.agent_pubkey).toBe(agentAddress);
  });

  it("chat.completions.create({ stream: true }): chunks, the last one carrying the receipt, which verifies over the chunks", async () => {
    const stream = await openai.chat.completions.create({ model: "local/echo-1", messages, stream: true });
    const chunks: unknown[] = [];
    let receipt: Record<string, unknown> | null = null;
    for await (const chunk of stream) {
      expect(chunk.object).toBe("chat.completion.chunk");
      const carried = (chunk as unknown as { service_receipt?: { object: string; receipt: Record<string, unknown> } }).service_receipt;
      if (carried) {
        expect(carried.object).toBe("service.receipt");
        expect(chunk.choices).toEqual([]);
        receipt = carried.receipt;
      } else chunks.push(chunk);
    }
    expect(chunks.length).toBeGreaterThan(3);
    expect(receipt).not.toBeNull();
    const verdict = await verifyReceipt({ receipt: receipt!, prompt: messages, response: chunks, operatorKey: operatorKey(), rpc: stack.devnet.url });
    expect(verdict.checks).toEqual(allChecks);
  });

  it("chat.completions.stream(): the helper finishes with its final completion (text, stop, usage), and the receipt read from the raw SSE verifies", async () => {
    const tee = teeingFetch(payingFetch);
    const client = new OpenAI({ baseURL: `${service.url}/api/v1`, apiKey: "unused: x402 pays per call", fetch: tee.fetch });
    const runner = client.chat.completions.stream({ model: "local/echo-1", messages, stream_options: { include_usage: true } });
    const final = await runner.finalChatCompletion();
    expect(final.choices[0]!.message.content).toContain("hello from the openai SDK");
    expect(final.choices[0]!.finish_reason).toBe("stop");
    // The receipt chunk has no usage key, so the helper keeps the usage chunk's usage.
    expect(final.usage).toMatchObject({ total_tokens: expect.any(Number) });

    const answer = await readStreamedAnswer(new Response(await tee.exchanges.at(-1)!.responseText).body!);
    expect(answer.text).toBe(final.choices[0]!.message.content);
    // The helper merges the receipt chunk's extra field into its final completion.
    expect((final as unknown as { service_receipt?: unknown }).service_receipt).toMatchObject({ object: "service.receipt", receipt: { inference_id: answer.receipt!.inference_id } });
    const verdict = await verifyReceipt({ receipt: answer.receipt!, prompt: messages, response: final, operatorKey: operatorKey(), rpc: stack.devnet.url });
    expect(verdict.checks).toEqual(allChecks);
  });

  it("models.list(): the offered models, free", async () => {
    const ids: string[] = [];
    for await (const model of openai.models.list()) ids.push(model.id);
    expect(ids).toContain("local/echo-1");
  });

  it("models.retrieve(): one model by its id, slash included, in OpenAI's shape", async () => {
    const model = await openai.models.retrieve("local/echo-1");
    expect(model).toMatchObject({ id: "local/echo-1", object: "model", created: expect.any(Number), owned_by: "signet" });
  });

  it("models.retrieve() of a model not offered: the SDK's NotFoundError, code model_not_found", async () => {
    const err = await openai.models.retrieve("acme/no-such-model").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NotFoundError);
    expect((err as NotFoundError).status).toBe(404);
    expect(err).toMatchObject({ code: "model_not_found", type: "invalid_request_error" });
  });
});
