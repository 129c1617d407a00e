// The upstream client against a local HTTP server speaking the OpenAI / OpenRouter protocol.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { systemClock } from "../../clock";
import { createUpstream, UpstreamError } from "../../upstream";

type Behaviour = "ok" | "no_cost" | "401" | "429" | "500" | "malformed" | "hang" | "not_json";
let behaviour: Behaviour = "ok";
let lastRequest: { auth?: string; body: Record<string, unknown> } | null = null;
/** A promise and its resolve. */
function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}
/** The next request the server reads, once armed: resolved when it arrives and when its connection closes. */
let watched: { arrived: ReturnType<typeof deferred>; closed: ReturnType<typeof deferred> } | null = null;
let server: http.Server;
let baseUrl: string;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let raw = "";
    req.on("data", (c: Buffer) => (raw += c.toString()));
    const watch = watched;
    watched = null;
    if (watch) req.on("close", () => watch.closed.resolve());
    req.on("end", () => {
      watch?.arrived.resolve();
      lastRequest = { auth: req.headers.authorization, body: JSON.parse(raw) as Record<string, unknown> };
      const json = (status: number, body: unknown) =>
        res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
      const usage = { prompt_tokens: 12, completion_tokens: 4, total_tokens: 16 };
      const ok = {
        id: "gen-x",
        model: lastRequest.body.model,
        choices: [{ index: 0, message: { role: "assistant", content: "Hi there" }, finish_reason: "stop" }],
      };
      switch (behaviour) {
        case "ok":
          return json(200, { ...ok, usage: { ...usage, cost: 0.0000123 } });
        case "no_cost":
          return json(200, { ...ok, usage });
        case "401":
          return json(401, { error: { message: "bad key sk-secret" } });
        case "429":
          return json(429, { error: { message: "slow down" } });
        case "500":
          return json(500, { error: { message: "internal" } });
        case "malformed":
          return json(200, { choices: [] });
        case "not_json":
          return res.writeHead(200).end("<html>");
        case "hang":
          return; // never answers
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

/** A provider that answers is never timed out here: its time limit is far past any answer's. */
const upstream = (timeoutMs = 60_000) =>
  createUpstream({ baseUrl, apiKey: "sk-test", timeoutMs, providerName: "openrouter", clock: systemClock });
const req = { model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "hello" }], max_tokens: 50_000 };

describe("createUpstream().complete() against an OpenAI-compatible provider", () => {
  it("sends the key, the capped max_tokens and usage.include, and prices with the reported cost", async () => {
    behaviour = "ok";
    const c = await upstream().complete(req);
    expect(lastRequest?.auth).toBe("Bearer sk-test");
    expect(lastRequest?.body).toMatchObject({
      model: "openai/gpt-4o-mini",
      max_tokens: 1024,
      usage: { include: true },
      stream: false,
    });
    expect(c).toMatchObject({
      content: "Hi there",
      upstream: "openrouter",
      costUnits: 13n,
      usage: { prompt_tokens: 12, completion_tokens: 4, total_tokens: 16 },
    });
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
    const err = (await upstream()
      .complete(req)
      .catch((e: unknown) => e)) as UpstreamError;
    expect(err).toBeInstanceOf(UpstreamError);
    expect(err.reason).toBe(reason);
    if (status) expect(err.status).toBe(status);
    expect(err.message).not.toContain("sk-secret");
    expect(err.message).not.toContain("sk-test");
  });

  it("times out a provider that hangs", async () => {
    behaviour = "hang";
    const started = Date.now();
    const err = (await upstream(500)
      .complete(req)
      .catch((e: unknown) => e)) as UpstreamError;
    expect(err.reason).toBe("timeout");
    expect(err.message).toContain("within 500 ms");
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it("aborts the upstream request when the caller aborts", async () => {
    behaviour = "hang";
    const watch = (watched = { arrived: deferred(), closed: deferred() });
    const controller = new AbortController();
    // The caller aborts once the provider holds the request: the abort must reach the provider's connection.
    void watch.arrived.promise.then(() => controller.abort());
    const err = (await upstream()
      .complete(req, { signal: controller.signal })
      .catch((e: unknown) => e)) as UpstreamError;
    expect(err.reason).toBe("aborted");
    // The provider sees its request's connection closed (the test's own time limit fails it if it never is).
    await watch.closed.promise;
  });

  it("refuses remote models without a key, and unknown models, without calling anyone", async () => {
    const keyless = createUpstream({
      baseUrl: "http://127.0.0.1:1",
      timeoutMs: 100,
      providerName: "openrouter",
      clock: systemClock,
    });
    await expect(keyless.complete(req)).rejects.toMatchObject({ reason: "model_unavailable" });
    await expect(upstream().complete({ ...req, model: "acme/none" })).rejects.toMatchObject({
      reason: "model_unavailable",
    });
    expect(keyless.models().map((m) => m.id)).toEqual(["local/echo-1"]);
  });

  it("serves local/echo-1 offline with a nominal cost", async () => {
    const keyless = createUpstream({
      baseUrl: "http://127.0.0.1:1",
      timeoutMs: 100,
      providerName: "openrouter",
      clock: systemClock,
    });
    const c = await keyless.complete({ model: "local/echo-1", messages: [{ role: "user", content: "ping" }] });
    expect(c.upstream).toBe("local");
    expect(c.costUnits).toBeGreaterThan(0n);
  });
});
