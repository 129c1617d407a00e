// A paid call's transfer is simulated once: its verification's simulation stands for its settlement unless another
// settlement of the same payer was sent after that verification began. A payer's calls back to back (the previous
// one's settlement released its lane a few milliseconds before the next verification) must not read as "sent since",
// or every call pays for a second simulation.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { FRESH_MS } from "../../facilitator/use-once-memory";
import { buildPaymentHeader, challengeOf, startPaidStack, type PaidStack } from "../support/paid-stack";

let stack: PaidStack;
const realFetch = fetch;
/** JSON-RPC methods the service sent to its devnet RPC. */
const methods: string[] = [];

beforeAll(async () => {
  stack = await startPaidStack({ env: { X402_FLAT_PRICE_USDC: "0.001" } });
  vi.stubGlobal("fetch", (async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    if (url.startsWith(stack.devnet.url) && typeof init?.body === "string") {
      const body = JSON.parse(init.body) as { method?: string } | { method?: string }[];
      for (const call of Array.isArray(body) ? body : [body]) if (call.method) methods.push(call.method);
    }
    return realFetch(input, init);
  }) as typeof fetch);
});
afterAll(async () => {
  vi.unstubAllGlobals();
  await stack?.close();
});

describe("simulations per paid call", () => {
  it("simulates each of a payer's back-to-back calls once", async () => {
    const body = { model: "local/echo-1", messages: [{ role: "user", content: "once" }] };
    const agent = await stack.newAgent(1_000_000n);
    const challenge = await challengeOf(await stack.chat({ body }));
    // Every header first (through the fault-free door, not counted), so the calls follow one another with no gap.
    const headers = [];
    for (let i = 0; i < 4; i++) headers.push(await buildPaymentHeader(agent, challenge, stack.devnet.faultFreeUrl));
    expect(new Set(headers).size).toBe(headers.length);
    methods.length = 0;
    // A call's verification's simulation stands for its settlement for FRESH_MS; a call that took longer (a loaded
    // machine) may rightly simulate again, one that took less must not.
    let slow = 0;
    for (const header of headers) {
      const started = performance.now();
      const res = await stack.chat({ body, headers: { "PAYMENT-SIGNATURE": header } });
      expect(res.status, await res.clone().text()).toBe(200);
      await res.arrayBuffer();
      if (performance.now() - started > FRESH_MS) slow++;
    }
    const simulations = methods.filter((m) => m === "simulateTransaction").length;
    expect(simulations).toBeGreaterThanOrEqual(headers.length);
    expect(simulations).toBeLessThanOrEqual(headers.length + slow);
    expect(methods.filter((m) => m === "sendTransaction")).toHaveLength(headers.length);
  });
});
