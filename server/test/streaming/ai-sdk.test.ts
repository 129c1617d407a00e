// The AI SDK (`ai`, with `@ai-sdk/openai-compatible`), unchanged, against Signet's prepaid route over real HTTP, through a
// fetch that signs each body. The provider validates every stream chunk, so the receipt chunk must pass its schema:
// `streamText` ends with finish reason "stop" and no error part, with the whole text; `generateText` answers from
// credit; and the receipt read from the raw stream (teed off the SDK's fetch) verifies over the chunks and over the
// SDK's own text. The paid route with both providers is server/test/compat/ai-sdk.test.ts.
import { generateText, streamText, type LanguageModel } from "ai";
import { OpenAICompatibleChatLanguageModel } from "@ai-sdk/openai-compatible";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newNonce, signRequestHeaders } from "../../agent/sign-request";
import { generateKeypair, type Ed25519Keypair } from "../../keys/parse-secret-key";
import { operatorKeypair } from "../support/env";
import { readStreamedAnswer } from "../../upstream/read-sse";
import { parseReceiptText, verifyReceipt } from "../../verify";
import { startServedStack, type ServedStack } from "../support/http-service";
import { teeingFetch, type TeeingFetch } from "../support/tee-fetch";

let served: ServedStack;

beforeAll(async () => {
  served = await startServedStack({ env: { X402_FLAT_PRICE_USDC: "0.001", LOCAL_MODEL_STREAM_DELAY_MS: "0" } });
});
afterAll(async () => served?.close());

const MODEL = "local/echo-1";
const operatorKey = () => operatorKeypair().publicKeyBase58;
const expectedText = (prompt: string) => expect.stringContaining(`You said: "${prompt}"`);

/** The prepaid route's fetch: signs each body as sent with a credited key, and tees what passes. */
async function signedFetch(): Promise<{ tee: TeeingFetch; kp: Ed25519Keypair }> {
  const kp = generateKeypair();
  await served.stack.credit(kp.publicKeyBase58, 1_000_000n);
  const sign = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const url = input instanceof Request ? input.url : String(input);
    const headers = new Headers(init?.headers);
    for (const [name, value] of Object.entries(signRequestHeaders(kp, "POST", url, String(init?.body))))
      headers.set(name, value);
    return fetch(url, { ...init, headers });
  };
  return { tee: teeingFetch(sign as typeof fetch), kp };
}

/** The prepaid route as an OpenAI-compatible chat model: its URL, and the body's replay fields added before signing. */
const prepaidModel = (tee: TeeingFetch): LanguageModel =>
  new OpenAICompatibleChatLanguageModel(MODEL, {
    provider: "signet.prepaid",
    url: () => `${served.service.url}/api/v1/inference`,
    headers: () => ({}),
    fetch: tee.fetch,
    transformRequestBody: (body) => ({ ...body, nonce: newNonce(), timestamp: Date.now() }),
  });

/** Runs streamText to its end, collecting the part types and any error part. */
async function streamToEnd(model: LanguageModel, prompt: string) {
  const errors: unknown[] = [];
  const result = streamText({ model, prompt, onError: ({ error }) => void errors.push(error) });
  const parts: string[] = [];
  for await (const part of result.fullStream) {
    parts.push(part.type);
    if (part.type === "error") errors.push(part.error);
  }
  return { parts, errors, text: await result.text, finishReason: await result.finishReason, usage: await result.usage };
}

/** The last exchange's sent messages and its raw stream read as a client reads it. */
async function lastStream(tee: TeeingFetch) {
  const exchange = tee.exchanges.at(-1)!;
  const sent = JSON.parse(exchange.requestBody!) as { messages: unknown[]; stream?: boolean };
  const raw = await exchange.responseText;
  return { sent, raw, answer: await readStreamedAnswer(new Response(raw).body!) };
}

describe("the AI SDK's streamText against Signet", () => {
  it("prepaid route with @ai-sdk/openai-compatible: finishes with stop and no error part, and the receipt in the raw stream verifies", async () => {
    const { tee, kp } = await signedFetch();
    const prompt = "a prepaid stream through the AI SDK";
    const run = await streamToEnd(prepaidModel(tee), prompt);
    expect(run.errors).toEqual([]);
    expect(run.finishReason).toBe("stop");
    expect(run.text).toEqual(expectedText(prompt));

    const { sent, answer } = await lastStream(tee);
    expect(answer.done).toBe(true);
    expect(answer.receipt).toMatchObject({ agent_pubkey: kp.publicKeyBase58 });
    const verdict = await verifyReceipt({
      receipt: answer.receipt!,
      prompt: sent.messages,
      response: answer.chunks,
      operatorKey: operatorKey(),
    });
    expect(verdict.ok).toBe(true);
    expect(
      (
        await verifyReceipt({
          receipt: answer.receipt!,
          prompt: sent.messages,
          response: run.text,
          operatorKey: operatorKey(),
        })
      ).ok,
    ).toBe(true);
  });
});

describe("the AI SDK's generateText against Signet", () => {
  it("prepaid route with @ai-sdk/openai-compatible: answers from credit", async () => {
    const { tee } = await signedFetch();
    const prompt = "a prepaid answer through the AI SDK";
    const result = await generateText({ model: prepaidModel(tee), prompt });
    expect(result.finishReason).toBe("stop");
    expect(result.text).toEqual(expectedText(prompt));
    expect(parseReceiptText(result.response.headers?.["x-service-receipt"] ?? "").ok).toBe(true);
  });
});
