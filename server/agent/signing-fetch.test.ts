import { describe, expect, it } from "vitest";
import { AppError } from "../errors";
import { generateKeypair } from "../keys/parse-secret-key";
import { authenticateSignedRequest } from "../prepaid/signed-request";
import { signingFetch } from "./signing-fetch";

const ORIGIN = "https://signet.example";

/** The error code `check` refuses with, or null when it passes. */
function refusal(check: () => unknown): string | null {
  try {
    check();
    return null;
  } catch (err) {
    return err instanceof AppError ? err.code : String(err);
  }
}

/** A fetch that keeps what it was sent and answers 200; the request as the service would read it. */
function recordingFetch() {
  const sent: { url: string; method: string; headers: Headers; body: string }[] = [];
  const fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    sent.push({ url: request.url, method: request.method, headers: request.headers, body: await request.text() });
    return new Response("{}");
  };
  return { sent, fetch: fetch as typeof globalThis.fetch };
}

describe("signingFetch", () => {
  it("adds a nonce and the sender's time to a POST body and signs the bytes sent for that URL's origin and path", async () => {
    const kp = generateKeypair();
    const wire = recordingFetch();
    const send = signingFetch(kp, { fetch: wire.fetch, now: () => 1_700_000_000_000 });
    await send(`${ORIGIN}/api/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-stainless-lang": "js" },
      body: JSON.stringify({ model: "local/echo-1", messages: [{ role: "user", content: "hi" }] }),
    });
    const [request] = wire.sent;
    const body = JSON.parse(request!.body) as Record<string, unknown>;
    expect(body).toMatchObject({ model: "local/echo-1", timestamp: 1_700_000_000_000 });
    expect(body.nonce).toMatch(/^[A-Za-z0-9_-]{16,64}$/);
    expect(request!.headers.get("x-stainless-lang")).toBe("js");
    const bytes = new TextEncoder().encode(request!.body);
    expect(authenticateSignedRequest(ORIGIN, request!.headers, "POST", "/api/v1/chat/completions", bytes)).toBe(
      kp.publicKeyBase58,
    );
    // The signature names the path: the same bytes on another route are refused.
    expect(refusal(() => authenticateSignedRequest(ORIGIN, request!.headers, "POST", "/api/v1/inference", bytes))).toBe(
      "invalid_signature",
    );
  });

  it("keeps replay fields the body has, and gives every other request its own nonce", async () => {
    const wire = recordingFetch();
    const send = signingFetch(generateKeypair(), { fetch: wire.fetch });
    const url = `${ORIGIN}/api/v1/responses`;
    await send(url, {
      method: "POST",
      body: JSON.stringify({ input: "a", nonce: "kept-nonce-0123456789", timestamp: 5 }),
    });
    await send(new Request(url, { method: "POST", body: JSON.stringify({ input: "b" }) }));
    await send(url, { method: "POST", body: JSON.stringify({ input: "c" }) });
    const bodies = wire.sent.map((r) => JSON.parse(r.body) as { nonce: string; timestamp: number });
    expect(bodies[0]).toMatchObject({ nonce: "kept-nonce-0123456789", timestamp: 5 });
    expect(new Set(bodies.map((b) => b.nonce)).size).toBe(3);
  });

  it("signs for the service's public origin when it is reached at another address", async () => {
    const wire = recordingFetch();
    const send = signingFetch(generateKeypair(), { fetch: wire.fetch, origin: `${ORIGIN}/ignored/path` });
    await send("http://127.0.0.1:3000/api/v1/embeddings", { method: "POST", body: '{"input":"x"}' });
    const [request] = wire.sent;
    expect(request!.url).toBe("http://127.0.0.1:3000/api/v1/embeddings");
    const bytes = new TextEncoder().encode(request!.body);
    expect(
      refusal(() => authenticateSignedRequest(ORIGIN, request!.headers, "POST", "/api/v1/embeddings", bytes)),
    ).toBe(null);
  });

  it("passes other methods through unsigned, and refuses to sign a body that is not a JSON object", async () => {
    const wire = recordingFetch();
    const send = signingFetch(generateKeypair(), { fetch: wire.fetch });
    await send(`${ORIGIN}/api/v1/models`);
    expect(wire.sent[0]!.method).toBe("GET");
    expect(wire.sent[0]!.headers.has("x-agent-signature")).toBe(false);
    for (const body of ["not json", "[1,2]", "null", ""])
      await expect(send(`${ORIGIN}/api/v1/inference`, { method: "POST", body })).rejects.toThrow(TypeError);
    expect(wire.sent).toHaveLength(1);
  });
});
