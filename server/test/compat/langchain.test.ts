// LangChain's ChatOpenAI (`@langchain/openai` 1.6.0 over `@langchain/core` 1.4.0), unchanged, against the service over
// real HTTP: a tool bound with bindTools is called by the model (the weather model as the upstream), and the tool's
// answer sent back gets the final text, paid per call by the stock @x402/fetch client or from prepaid credit by the
// shipped signing fetch, at the chat route's own path. Every call carries its receipt.
import { ChatOpenAI } from "@langchain/openai";
import { HumanMessage, ToolMessage, type AIMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signingFetch } from "../../agent/signing-fetch";
import { generateKeypair } from "../../keys/parse-secret-key";
import { parseReceiptText } from "../../verify";
import { startCompatStack, stockPayingFetch, type CompatStack } from "./compat-stack";
import { PROVIDER_MODEL, WEATHER_ANSWER } from "./weather-model";

let compat: CompatStack;
beforeAll(async () => {
  compat = await startCompatStack();
}, 120_000);
afterAll(async () => compat?.close());

const getWeather = tool(async ({ city }: { city: string }) => JSON.stringify({ city, celsius: 12 }), {
  name: "get_weather",
  description: "The weather in a city",
  schema: z.object({ city: z.string() }),
});

/** A fetch that keeps each answer's receipt header, in order, and passes every request to `inner`. */
function keepingReceipts(inner: typeof fetch): { fetch: typeof fetch; receipts: Record<string, unknown>[] } {
  const receipts: Record<string, unknown>[] = [];
  const wrapped = async (input: RequestInfo | URL, init?: RequestInit) => {
    const res = await inner(input, init);
    const parsed = parseReceiptText(res.headers.get("x-service-receipt") ?? "");
    if (parsed.ok) receipts.push(parsed.receipt);
    return res;
  };
  return { fetch: wrapped as typeof fetch, receipts };
}

/** The tool round trip: the model calls get_weather, the tool answers, the model answers in text. */
async function roundTrip(fetchImpl: typeof fetch): Promise<{ call: AIMessage; final: AIMessage }> {
  const model = new ChatOpenAI({
    model: PROVIDER_MODEL,
    apiKey: "unused: paid per call or from credit",
    maxRetries: 0,
    configuration: { baseURL: compat.baseURL, fetch: fetchImpl },
  }).bindTools([getWeather]);
  const question = new HumanMessage("Weather in Oslo?");
  const call = await model.invoke([question]);
  const toolCall = call.tool_calls?.[0];
  if (!toolCall) throw new Error("the model called no tool");
  const answer = await getWeather.invoke(toolCall.args as { city: string });
  const final = await model.invoke([question, call, new ToolMessage({ content: answer, tool_call_id: toolCall.id! })]);
  return { call, final };
}

describe("LangChain ChatOpenAI with bindTools", () => {
  it("runs a tool round trip paid per call with @x402/fetch: two calls, two receipts", async () => {
    const { fetch: paying, address } = await stockPayingFetch(compat.served);
    const kept = keepingReceipts(paying);
    const { call, final } = await roundTrip(kept.fetch);
    expect(call.tool_calls).toEqual([expect.objectContaining({ name: "get_weather", args: { city: "Oslo" } })]);
    expect(final.content).toBe(WEATHER_ANSWER);
    expect(kept.receipts).toHaveLength(2);
    for (const receipt of kept.receipts)
      expect(receipt).toMatchObject({ agent_pubkey: address, payment: { scheme: "x402" } });
  });

  it("runs the same round trip from prepaid credit with the shipped signing fetch", async () => {
    const kp = generateKeypair();
    await compat.served.stack.credit(kp.publicKeyBase58, 1_000_000n);
    const kept = keepingReceipts(signingFetch(kp));
    const { final } = await roundTrip(kept.fetch);
    expect(final.content).toBe(WEATHER_ANSWER);
    expect(kept.receipts).toHaveLength(2);
    for (const receipt of kept.receipts) {
      expect(receipt).toMatchObject({ agent_pubkey: kp.publicKeyBase58 });
      expect(receipt).not.toHaveProperty("payment");
    }
  });
});
