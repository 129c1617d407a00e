// The official `openai` SDK, unchanged: baseURL set to Signet's /api/v1 over real HTTP, and fetch set to
// the stock x402 client's wrapFetchWithPayment. A completion, a streamed completion (with the receipt event) and
// models.list() and models.retrieve() all succeed on localnet, and every receipt verifies; an unknown model is the
// SDK's NotFoundError.
import OpenAI, { NotFoundError } from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { x402Client } from "@x402/core/client";
import { wrapFetchWithPayment } from "@x402/fetch";
import { ExactSvmScheme } from "@x402/svm/exact/client";
import { operatorKeypair } from "../../keys/service-keys";
import { parseReceiptText, verifyReceipt } from "../../verify";
import { startHttpService, type HttpService } from "../support/http-service";
import { startPaidStack, type PaidStack } from "../support/paid-stack";

let stack: PaidStack;
let service: HttpService;
let openai: OpenAI;
let agentAddress: string;

beforeAll(async () => {
  stack = await startPaidStack({ env: { X402_FLAT_PRICE_USDC: "0.001", LOCAL_MODEL_STREAM_DELAY_MS: "0" } });
  service = await startHttpService();
  const agent = await stack.newAgent();
  agentAddress = agent.address;
  // Exactly the README's example.
  const client = new x402Client();
  client.register("solana:*", new ExactSvmScheme(agent, { rpcUrl: stack.devnet.url }));
  openai = new OpenAI({ baseURL: `${service.url}/api/v1`, apiKey: "unused: x402 pays per call", fetch: wrapFetchWithPayment(fetch, client) });
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

  it("chat.completions.create({ stream: true }): chunks, then the receipt event, which verifies over the chunks", async () => {
    const stream = await openai.chat.completions.create({ model: "local/echo-1", messages, stream: true });
    const chunks: unknown[] = [];
    let receipt: Record<string, unknown> | null = null;
    for await (const event of stream) {
      const e = event as unknown as { object: string; receipt?: Record<string, unknown> };
      if (e.object === "service.receipt") receipt = e.receipt!;
      else chunks.push(event);
    }
    expect(chunks.length).toBeGreaterThan(3);
    expect(receipt).not.toBeNull();
    const verdict = await verifyReceipt({ receipt: receipt!, prompt: messages, response: chunks, operatorKey: operatorKey(), rpc: stack.devnet.url });
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
    expect((err as NotFoundError).error).toBe("model_not_found");
  });
});
