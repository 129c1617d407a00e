// The OpenAI Agents SDK (`@openai/agents` 0.20.0), unchanged, against the service over real HTTP: an agent with a
// function tool runs on the SDK's default model API (the Responses API: its OpenAIProvider left at its default), the
// model (the weather model as the upstream) calls the tool, and the agent's final output is the model's answer once
// the tool's result is in. Paid per call with the stock @x402/fetch client (plain and streamed), and from prepaid
// credit with the shipped signing fetch. Tracing is off: nothing leaves the machine.
import { Agent, OpenAIProvider, Runner, setTracingDisabled, tool } from "@openai/agents";
import OpenAI from "openai";
import { z } from "zod";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signingFetch } from "../../agent/signing-fetch";
import { generateKeypair } from "../../keys/parse-secret-key";
import { parseReceiptText } from "../../verify";
import { startCompatStack, stockPayingFetch, type CompatStack } from "./compat-stack";
import { PROVIDER_MODEL, WEATHER_ANSWER } from "./weather-model";

let compat: CompatStack;
beforeAll(async () => {
  setTracingDisabled(true);
  compat = await startCompatStack();
}, 120_000);
afterAll(async () => compat?.close());

/** A fetch that keeps each answer's path and receipt, and passes every request to `inner`. */
function keeping(inner: typeof fetch) {
  const calls: { path: string; status: number; receipt: Record<string, unknown> | null }[] = [];
  const wrapped = async (input: RequestInfo | URL, init?: RequestInit) => {
    const res = await inner(input, init);
    const parsed = parseReceiptText(res.headers.get("x-service-receipt") ?? "");
    const url = input instanceof Request ? input.url : String(input);
    calls.push({ path: new URL(url).pathname, status: res.status, receipt: parsed.ok ? parsed.receipt : null });
    return res;
  };
  return { fetch: wrapped as typeof fetch, calls };
}

/**
 * Runs a weather agent on the default model API with `fetchImpl` as its client's fetch, plain or streamed; the result
 * and the tool's calls.
 */
async function runWeatherAgent(fetchImpl: typeof fetch, { stream = false } = {}) {
  const asked: { city: string }[] = [];
  const getWeather = tool({
    name: "get_weather",
    description: "The weather in a city",
    parameters: z.object({ city: z.string() }),
    execute: async ({ city }) => (asked.push({ city }), JSON.stringify({ city, celsius: 12 })),
  });
  const client = new OpenAI({
    baseURL: compat.baseURL,
    apiKey: "unused: paid per call or from credit",
    fetch: fetchImpl,
    maxRetries: 0,
  });
  const agent = new Agent({
    name: "weather",
    instructions: "Answer with the tool.",
    model: PROVIDER_MODEL,
    tools: [getWeather],
  });
  // The SDK's own provider with this client, left on its default API (the Responses API); a runner per run, so no
  // client is shared between runs through the SDK's process-wide default.
  const runner = new Runner({ modelProvider: new OpenAIProvider({ openAIClient: client }) });
  if (stream) {
    const streamed = await runner.run(agent, "Weather in Oslo, streamed?", { stream: true });
    const kinds = new Set<string>();
    for await (const event of streamed) kinds.add(event.type);
    await streamed.completed;
    return { result: streamed, asked, kinds };
  }
  const result = await runner.run(agent, "Weather in Oslo?");
  return { result, asked, kinds: new Set<string>() };
}

describe("the OpenAI Agents SDK with a function tool, on the Responses API", () => {
  it("runs the agent paid per call with @x402/fetch: the tool is called, the final output is the model's answer", async () => {
    const { fetch: paying, address } = await stockPayingFetch(compat.served);
    const kept = keeping(paying);
    const { result, asked } = await runWeatherAgent(kept.fetch);
    expect(asked).toEqual([{ city: "Oslo" }]);
    expect(result.finalOutput).toBe(WEATHER_ANSWER);
    const served = kept.calls.filter((c) => c.status === 200);
    expect(served.map((c) => c.path)).toEqual(["/api/v1/responses", "/api/v1/responses"]);
    for (const call of served)
      expect(call.receipt).toMatchObject({ agent_pubkey: address, payment: { scheme: "x402" } });
  });

  it("runs the same agent from prepaid credit with the signing fetch", async () => {
    const kp = generateKeypair();
    await compat.served.stack.credit(kp.publicKeyBase58, 1_000_000n);
    const kept = keeping(signingFetch(kp));
    const { result, asked } = await runWeatherAgent(kept.fetch);
    expect(asked).toEqual([{ city: "Oslo" }]);
    expect(result.finalOutput).toBe(WEATHER_ANSWER);
    expect(kept.calls.map((c) => [c.path, c.status])).toEqual([
      ["/api/v1/responses", 200],
      ["/api/v1/responses", 200],
    ]);
    for (const call of kept.calls) expect(call.receipt).toMatchObject({ agent_pubkey: kp.publicKeyBase58 });
  });

  it("streams the same agent run: the function call arrives as stream events, the tool runs, the output is the answer", async () => {
    const { fetch: paying } = await stockPayingFetch(compat.served);
    const kept = keeping(paying);
    const { result, asked, kinds } = await runWeatherAgent(kept.fetch, { stream: true });
    expect(asked).toEqual([{ city: "Oslo" }]);
    expect(result.finalOutput).toBe(WEATHER_ANSWER);
    expect(kinds.has("raw_model_stream_event")).toBe(true);
    expect(kept.calls.filter((c) => c.status === 200).map((c) => c.path)).toEqual([
      "/api/v1/responses",
      "/api/v1/responses",
    ]);
  });
});
