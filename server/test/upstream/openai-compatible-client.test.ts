// The upstream client against a local HTTP server speaking the OpenAI / OpenRouter protocol.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createUpstream, UpstreamError } from "../../upstream";

type Behaviour = "ok" | "no_cost" | "401" | "429" | "500" | "malformed" | "hang" | "not_json";
let behaviour: Behaviour = "ok";
let lastRequest: { auth?: string; body: Record<string, unknown> } | null = null;
let closedSockets = 0;
let server: http.Server;
let baseUrl: string;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let raw = "";
    req.on("data", (c: Buffer) => (raw += c.toString()));
    req.on("close", () => closedSockets++);
    req.on("end", () => {
      lastRequest = { auth: req.headers.authorization, body: JSON.parse(raw) as Record<string, unknown> };
      const json = (status: number, body: unknown) => res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
      const usage = { prompt_tokens: 12, completion_tokens: 4, total_tokens: 16 };
      const ok = { id: "gen-x", model: lastRequest.body.model, choices: [{ index: 0, message: { role: "assistant", content: "Hi there" }, finish_reason: "stop" }] };
      switch (behaviour) {
        case "ok": return json(200, { ...ok, usage: { ...usage, cost: 0.0000123 } });
        case "no_cost": return json(200, { ...ok, usage });
        case "401": return json(401, { error: { message: "bad key sk-secret" } });
        case "429": return json(429, { error: { message: "slow down" } });
        case "500": return json(500, { error: { message: "internal" } });
        case "malformed": return json(200, { choices: [] });
        case "not_json": return res.writeHead(200).end("<html>");
        case "hang": return; // never answers
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`;
});
afterAll(() => {
  server.closeAllConnections();
  return new Promise<void>((r) => server.close(() => r()));
});

const upstream = () => createUpstream({ baseUrl, apiKey: "sk-test", timeoutMs: 500, providerName: "openrouter" });
const req = { model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "hello" }], max_tokens: 50_000 };

describe("createUpstream().complete() against an OpenAI-compatible provider", () => {
  it("sends the key, the capped max_tokens and usage.include, and prices with the reported cost", async () => {
    behaviour = "ok";
    const c = await upstream().complete(req);
    expect(lastRequest?.auth).toBe("Bearer sk-test");
    expect(lastRequest?.body).toMatchObject({ model: "openai/gpt-4o-mini", max_tokens: 1024, usage: { include: true }, stream: false });
    expect(c).toMatchObject({ content: "Hi there", upstream: "openrouter", costUnits: 13n, usage: { prompt_tokens: 12, completion_tokens: 4, total_tokens: 16 } });
  });

  it("falls back to tokens × the catalogue price without a reported cost", async () => {
    behaviour = "no_cost";
    const c = await upstream().complete(req);
    // 12 × 150,000 + 4 × 600,000 per 1M tokens = 4.2 → 5 units (rounded up)
    expect(c.costUnits).toBe(5n);
  });

  it.each([
    ["401", "http_error", 401],
    ["429", "http_error", 429],
    ["500", "http_error", 500],
    ["malformed", "bad_response", undefined],
    ["not_json", "bad_response", 200],
  ] as const)("turns HTTP %s into UpstreamError(%s) without leaking the provider's body", async (b, reason, status) => {
    behaviour = b;
    const err = (await upstream().complete(req).catch((e: unknown) => e)) as UpstreamError;
    expect(err).toBeInstanceOf(UpstreamError);
    expect(err.reason).toBe(reason);
    if (status) expect(err.status).toBe(status);
    expect(err.message).not.toContain("sk-secret");
    expect(err.message).not.toContain("sk-test");
  });

  it("times out a provider that hangs", async () => {
    behaviour = "hang";
    const started = Date.now();
    const err = (await upstream().complete(req).catch((e: unknown) => e)) as UpstreamError;
    expect(err.reason).toBe("timeout");
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it("aborts the upstream request when the caller aborts", async () => {
    behaviour = "hang";
    const before = closedSockets;
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const err = (await upstream().complete(req, { signal: controller.signal }).catch((e: unknown) => e)) as UpstreamError;
    expect(err.reason).toBe("aborted");
    await new Promise((r) => setTimeout(r, 100));
    expect(closedSockets).toBeGreaterThan(before);
  });

  it("refuses remote models without a key, and unknown models, without calling anyone", async () => {
    const keyless = createUpstream({ baseUrl: "http://127.0.0.1:1", timeoutMs: 100, providerName: "openrouter" });
    await expect(keyless.complete(req)).rejects.toMatchObject({ reason: "model_unavailable" });
    await expect(upstream().complete({ ...req, model: "acme/none" })).rejects.toMatchObject({ reason: "model_unavailable" });
    expect(keyless.models().map((m) => m.id)).toEqual(["local/echo-1"]);
  });

  it("serves local/echo-1 offline with a nominal cost", async () => {
    const keyless = createUpstream({ baseUrl: "http://127.0.0.1:1", timeoutMs: 100, providerName: "openrouter" });
    const c = await keyless.complete({ model: "local/echo-1", messages: [{ role: "user", content: "ping" }] });
    expect(c.upstream).toBe("local");
    expect(c.costUnits).toBeGreaterThan(0n);
  });
});
