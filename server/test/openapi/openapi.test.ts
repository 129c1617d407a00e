// The OpenAPI 3.1 document: valid under the official OAS 3.1 schema (@seriousme/openapi-schema-validator),
// and real answers of the running service over HTTP, success and error, JSON and SSE, match the response the document
// declares for their operation and status (ajv, JSON Schema 2020-12). A status the document does not declare fails.
import { logIdentity } from "../support/env";
import { Validator } from "@seriousme/openapi-schema-validator";
import Ajv2020 from "ajv/dist/2020.js";
import { utf8ToBytes } from "@noble/hashes/utils.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPayingFetch } from "../../agent/paying-fetch";
import { newNonce, signRequestHeaders } from "../../agent/sign-request";
import { generateKeypair } from "../../keys/parse-secret-key";
import { signedRequestMessage } from "../../prepaid/signed-request";
import { signDetached } from "../../receipts/sign-receipt";
import { sseData } from "../../upstream/read-sse";
import { startHttpService, type HttpService } from "../support/http-service";
import { buildPaymentHeader, challengeOf, startPaidStack, type PaidStack } from "../support/paid-stack";
import { publishLog } from "../../transparency/publish-log";
import { createLogger } from "../../log";

/** Where this file's own sequencer rounds log: nowhere. */
const quietLog = createLogger("silent");

const DEVNET = "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1";
let stack: PaidStack;
let service: HttpService;
let doc: {
  paths: Record<
    string,
    Record<
      string,
      {
        responses: Record<
          string,
          { headers?: Record<string, { required?: boolean }>; content?: Record<string, unknown> }
        >;
      }
    >
  >;
};
const ajv = new Ajv2020({ strict: false, allErrors: true });
const checked: string[] = [];

beforeAll(async () => {
  stack = await startPaidStack({ env: { X402_FLAT_PRICE_USDC: "0.001", LOCAL_MODEL_STREAM_DELAY_MS: "0" } });
  service = await startHttpService();
  const res = await fetch(`${service.url}/api/v1/openapi.json`);
  expect(res.status).toBe(200);
  doc = (await res.json()) as typeof doc;
  ajv.addSchema(doc as object, "openapi");
});
afterAll(async () => {
  await service?.close();
  await stack?.close();
});

const pointer = (...parts: string[]) => parts.map((p) => p.replace(/~/g, "~0").replace(/\//g, "~1")).join("/");

/** Asserts `body` (and the declared headers) match the document's response for this operation and status. */
function conforms(
  template: string,
  method: string,
  res: Response,
  body: unknown,
  mediaType = "application/json",
): void {
  const operation = doc.paths[template]?.[method];
  expect(operation, `${method} ${template} is documented`).toBeDefined();
  const response = operation!.responses[String(res.status)];
  expect(response, `${method} ${template} documents status ${res.status}`).toBeDefined();
  expect(response!.content?.[mediaType], `${method} ${template} ${res.status} documents ${mediaType}`).toBeDefined();
  const validate = ajv.compile({
    $ref: `openapi#/${pointer("paths", template, method, "responses", String(res.status), "content", mediaType, "schema")}`,
  });
  expect(validate(body), `${method} ${template} ${res.status}: ${JSON.stringify(validate.errors)}`).toBe(true);
  // Headers are checked on JSON answers: a stream's receipt and balance come as its last events instead (documented).
  for (const [name, declared] of mediaType === "application/json" ? Object.entries(response!.headers ?? {}) : []) {
    if (name === "Set-Cookie" || name === "Retry-After" || declared.required === false) continue;
    expect(res.headers.get(name), `${method} ${template} ${res.status} sends ${name}`).not.toBeNull();
  }
  checked.push(`${method.toUpperCase()} ${template} ${res.status}`);
}

async function call(method: string, path: string, init: RequestInit = {}): Promise<{ res: Response; body: unknown }> {
  const res = await fetch(`${service.url}${path}`, { method, ...init });
  return { res, body: await res.json() };
}

const jsonInit = (body: unknown, headers: Record<string, string> = {}): RequestInit => ({
  headers: { "content-type": "application/json", ...headers },
  body: typeof body === "string" ? body : JSON.stringify(body),
});

describe("the OpenAPI document", () => {
  it("is valid OpenAPI 3.1 under the official schema", async () => {
    const result = await new Validator().validate(doc as never);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect((doc as unknown as { openapi: string }).openapi).toBe("3.1.0");
  });

  it("is served at the root too, where crawlers look first: the same document", async () => {
    const res = await fetch(`${service.url}/openapi.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(await res.json()).toEqual(doc);
  });

  it("covers every REST route the app serves", () => {
    expect(Object.keys(doc.paths).sort()).toEqual(
      [
        "/.well-known/did.json",
        "/.well-known/x402",
        "/api/operator/challenge",
        "/api/operator/login-link",
        "/api/operator/session",
        "/api/v1/chat/completions",
        "/api/v1/credits",
        "/api/v1/credits/{pubkey}",
        "/api/v1/embeddings",
        "/api/v1/grants",
        "/api/v1/grants/challenge",
        "/api/v1/inference",
        "/api/v1/models",
        "/api/v1/models/{id}",
        "/api/v1/openapi.json",
        "/openapi.json",
        "/api/v1/operator-key",
        "/api/v1/receipts/{id}",
        "/api/v1/receipts/{id}/proof",
        "/api/v1/responses",
        "/log/checkpoint",
        "/log/checkpoints/{size}",
        "/log/cosignature",
        "/log/key",
        "/log/tile/{path}",
        "/api/verify",
        "/api/verify/operator-key",
      ].sort(),
    );
  });
});

describe("real answers match the document", () => {
  const messages = [{ role: "user", content: "openapi conformance" }];

  it("the paid chat route: 402, 200 JSON, 200 SSE, 409, 400", async () => {
    const unpaid = await call("POST", "/api/v1/chat/completions", jsonInit({ model: "local/echo-1", messages }));
    conforms("/api/v1/chat/completions", "post", unpaid.res, unpaid.body);

    const agent = await stack.newAgent();
    const pay = createPayingFetch(agent, { [DEVNET]: stack.devnet.url });
    const paid = await pay(`${service.url}/api/v1/chat/completions`, {
      method: "POST",
      ...jsonInit({ model: "local/echo-1", messages }),
    });
    const paidBody = await paid.json();
    conforms("/api/v1/chat/completions", "post", paid, paidBody);
    const receipt = JSON.parse(Buffer.from(paid.headers.get("x-service-receipt")!, "base64").toString("utf8")) as {
      inference_id: string;
    };
    const stored = await call("GET", `/api/v1/receipts/${receipt.inference_id}`);
    conforms("/api/v1/receipts/{id}", "get", stored.res, stored.body);

    const header = await buildPaymentHeader(
      agent,
      await challengeOf(await stack.chat({ body: { model: "local/echo-1", messages } })),
      stack.devnet.url,
    );
    const streamed = await fetch(`${service.url}/api/v1/chat/completions`, {
      method: "POST",
      ...jsonInit({ model: "local/echo-1", messages, stream: true }, { "PAYMENT-SIGNATURE": header }),
    });
    let events = 0;
    for await (const data of sseData(streamed.body!)) {
      if (data === "[DONE]") continue;
      conforms("/api/v1/chat/completions", "post", streamed, data, "text/event-stream");
      events++;
    }
    expect(events).toBeGreaterThan(3);

    // The same request sent again once served: its stored answer, streamed as it was asked, in the same documented shape.
    const replayed = await fetch(`${service.url}/api/v1/chat/completions`, {
      method: "POST",
      ...jsonInit({ model: "local/echo-1", messages, stream: true }, { "PAYMENT-SIGNATURE": header }),
    });
    expect(replayed.status).toBe(200);
    expect(replayed.headers.get("x-answer-replayed")).toBe("true");
    let replayedEvents = 0;
    for await (const data of sseData(replayed.body!)) {
      if (data === "[DONE]") continue;
      conforms("/api/v1/chat/completions", "post", replayed, data, "text/event-stream");
      replayedEvents++;
    }
    // The text in one chunk, the final chunk, the receipt chunk.
    expect(replayedEvents).toBe(3);
    // The same payment for another request: 409.
    const mismatch = await call(
      "POST",
      "/api/v1/chat/completions",
      jsonInit(
        { model: "local/echo-1", messages: [{ role: "user", content: "another request" }], stream: true },
        { "PAYMENT-SIGNATURE": header },
      ),
    );
    expect(mismatch.res.status).toBe(409);
    expect(mismatch.body).toMatchObject({ error: { code: "payment_request_mismatch" } });
    conforms("/api/v1/chat/completions", "post", mismatch.res, mismatch.body);
    const bad = await call("POST", "/api/v1/chat/completions", jsonInit({ model: "local/echo-1", messages: [] }));
    expect(bad.res.status).toBe(400);
    conforms("/api/v1/chat/completions", "post", bad.res, bad.body);
  });

  it("the paid embeddings route: 402, 200 (float and base64), 400 for a stream, with no payment taken", async () => {
    const request = { model: "local/hash-embed-1", input: ["openapi conformance", "two"] };
    const unpaid = await call("POST", "/api/v1/embeddings", jsonInit(request));
    expect(unpaid.res.status).toBe(402);
    conforms("/api/v1/embeddings", "post", unpaid.res, unpaid.body);
    const agent = await stack.newAgent();
    const pay = createPayingFetch(agent, { [DEVNET]: stack.devnet.url });
    for (const encoding_format of ["float", "base64"]) {
      const paid = await pay(`${service.url}/api/v1/embeddings`, {
        method: "POST",
        ...jsonInit({ ...request, encoding_format }),
      });
      expect(paid.status).toBe(200);
      expect(paid.headers.get("x-service-receipt")).toBeTruthy();
      conforms("/api/v1/embeddings", "post", paid, await paid.json());
    }
    for (const stream of [true, false]) {
      const refused = await call("POST", "/api/v1/embeddings", jsonInit({ ...request, stream }));
      expect([refused.res.status, (refused.body as { error: { code: string; param: string } }).error]).toMatchObject([
        400,
        { code: "streaming_not_supported", param: "stream" },
      ]);
      conforms("/api/v1/embeddings", "post", refused.res, refused.body);
    }
  });

  it("the paid responses route: 402, 200 JSON, 200 SSE, 409, 400", async () => {
    const request = { model: "local/echo-1", input: "openapi conformance" };
    const unpaid = await call("POST", "/api/v1/responses", jsonInit(request));
    expect(unpaid.res.status).toBe(402);
    conforms("/api/v1/responses", "post", unpaid.res, unpaid.body);

    const agent = await stack.newAgent();
    const pay = createPayingFetch(agent, { [DEVNET]: stack.devnet.url });
    const paid = await pay(`${service.url}/api/v1/responses`, { method: "POST", ...jsonInit(request) });
    expect(paid.status).toBe(200);
    conforms("/api/v1/responses", "post", paid, await paid.json());

    const streamed = await pay(`${service.url}/api/v1/responses`, {
      method: "POST",
      ...jsonInit({ ...request, stream: true }),
    });
    expect(streamed.status).toBe(200);
    const types: string[] = [];
    for await (const data of sseData(streamed.body!)) {
      conforms("/api/v1/responses", "post", streamed, data, "text/event-stream");
      types.push((data as { type: string }).type);
    }
    expect(types.at(-1)).toBe("response.completed");

    const header = await buildPaymentHeader(
      agent,
      await challengeOf(await stack.chat({ body: { model: "local/echo-1", messages } })),
      stack.devnet.url,
    );
    expect(
      (
        await call(
          "POST",
          "/api/v1/chat/completions",
          jsonInit({ model: "local/echo-1", messages }, { "PAYMENT-SIGNATURE": header }),
        )
      ).res.status,
    ).toBe(200);
    const mismatch = await call("POST", "/api/v1/responses", jsonInit(request, { "PAYMENT-SIGNATURE": header }));
    expect(mismatch.res.status).toBe(409);
    conforms("/api/v1/responses", "post", mismatch.res, mismatch.body);
    const bad = await call("POST", "/api/v1/responses", jsonInit({ ...request, store: true }));
    expect(bad.res.status).toBe(400);
    conforms("/api/v1/responses", "post", bad.res, bad.body);

    // Signed: served from prepaid credit, plain and streamed; too little credit is 402; a bad signature 401.
    const kp = generateKeypair();
    await stack.credit(kp.publicKeyBase58, 100_000n);
    const signed = (extra: Record<string, unknown>, key = kp) => {
      const text = JSON.stringify({ ...request, nonce: newNonce(), timestamp: Date.now(), ...extra });
      return {
        headers: {
          "content-type": "application/json",
          ...signRequestHeaders(key, "POST", "http://signet.test/api/v1/responses", text),
        },
        body: text,
      };
    };
    const prepaid = await call("POST", "/api/v1/responses", signed({}));
    expect(prepaid.res.status).toBe(200);
    conforms("/api/v1/responses", "post", prepaid.res, prepaid.body);
    const prepaidStream = await fetch(`${service.url}/api/v1/responses`, {
      method: "POST",
      ...signed({ stream: true }),
    });
    expect(prepaidStream.status).toBe(200);
    for await (const data of sseData(prepaidStream.body!))
      conforms("/api/v1/responses", "post", prepaidStream, data, "text/event-stream");
    const poor = await call("POST", "/api/v1/responses", signed({}, generateKeypair()));
    expect(poor.res.status).toBe(402);
    conforms("/api/v1/responses", "post", poor.res, poor.body);
    const forged = await call("POST", "/api/v1/responses", {
      ...signed({}),
      body: JSON.stringify({ ...request, nonce: newNonce(), timestamp: Date.now() }),
    });
    expect(forged.res.status).toBe(401);
    conforms("/api/v1/responses", "post", forged.res, forged.body);
  });

  it("the prepaid routes: inference 200 JSON and SSE, 401, 402; credits 200 and 401; top-up 402", async () => {
    const kp = generateKeypair();
    await stack.credit(kp.publicKeyBase58, 100_000n);
    const signed = (body: Record<string, unknown>) => {
      const text = JSON.stringify({
        model: "local/echo-1",
        prompt: "openapi",
        nonce: newNonce(),
        timestamp: Date.now(),
        ...body,
      });
      return {
        headers: {
          "content-type": "application/json",
          ...signRequestHeaders(kp, "POST", "http://signet.test/api/v1/inference", text),
        },
        body: text,
      };
    };
    const ok = await call("POST", "/api/v1/inference", signed({}));
    conforms("/api/v1/inference", "post", ok.res, ok.body);
    const streamed = await fetch(`${service.url}/api/v1/inference`, { method: "POST", ...signed({ stream: true }) });
    for await (const data of sseData(streamed.body!))
      if (data !== "[DONE]") conforms("/api/v1/inference", "post", streamed, data, "text/event-stream");
    const poor = await call(
      "POST",
      "/api/v1/inference",
      signed({
        max_cost_usdc: 1000,
        max_tokens: 256,
        messages: [{ role: "user", content: "x".repeat(30_000) }],
        prompt: undefined,
      }),
    );
    conforms("/api/v1/inference", "post", poor.res, poor.body);
    const unsigned = await call("POST", "/api/v1/inference", jsonInit({}));
    expect(unsigned.res.status).toBe(401);
    conforms("/api/v1/inference", "post", unsigned.res, unsigned.body);

    const timestamp = String(Date.now());
    const sig = signDetached(
      signedRequestMessage("GET", `http://signet.test/api/v1/credits/${kp.publicKeyBase58}`, utf8ToBytes(timestamp)),
      kp,
    );
    const credits = await call("GET", `/api/v1/credits/${kp.publicKeyBase58}`, {
      headers: { "X-Agent-Pubkey": kp.publicKeyBase58, "X-Agent-Signature": sig, "X-Agent-Timestamp": timestamp },
    });
    expect(credits.res.status).toBe(200);
    conforms("/api/v1/credits/{pubkey}", "get", credits.res, credits.body);
    const anonymous = await call("GET", `/api/v1/credits/${kp.publicKeyBase58}`);
    conforms("/api/v1/credits/{pubkey}", "get", anonymous.res, anonymous.body);
    const topUp = await call("POST", "/api/v1/credits", jsonInit({ amount_usdc: 0.01 }));
    expect(topUp.res.status).toBe(402);
    conforms("/api/v1/credits", "post", topUp.res, topUp.body);
  });

  it("models, keys, grants, the verifier, receipts, discovery", async () => {
    for (const [path, template] of [
      ["/api/v1/models", "/api/v1/models"],
      ["/api/v1/models/local/echo-1", "/api/v1/models/{id}"],
      ["/api/v1/models/local%2Fecho-1", "/api/v1/models/{id}"],
      ["/api/v1/models/acme/no-such-model", "/api/v1/models/{id}"],
      ["/api/v1/operator-key", "/api/v1/operator-key"],
      ["/api/verify/operator-key", "/api/verify/operator-key"],
      ["/.well-known/x402", "/.well-known/x402"],
      [`/api/v1/grants/challenge?agent_pubkey=${generateKeypair().publicKeyBase58}`, "/api/v1/grants/challenge"],
      ["/api/v1/grants/challenge", "/api/v1/grants/challenge"],
      ["/api/v1/receipts/00000000-0000-4000-8000-000000000000", "/api/v1/receipts/{id}"],
    ] as const) {
      const { res, body } = await call("GET", path);
      conforms(template, "get", res, body);
    }
    const did = await call("GET", "/.well-known/did.json");
    expect(did.res.headers.get("content-type")).toBe("application/did+json");
    conforms("/.well-known/did.json", "get", did.res, did.body, "application/did+json");
    const grant = await call("POST", "/api/v1/grants", jsonInit({ agent_pubkey: "nope" }));
    conforms("/api/v1/grants", "post", grant.res, grant.body);

    const agent = await stack.newAgent();
    const pay = createPayingFetch(agent, { [DEVNET]: stack.devnet.url });
    const paid = await pay(`${service.url}/api/v1/chat/completions`, {
      method: "POST",
      ...jsonInit({ model: "local/echo-1", messages }),
    });
    const response = await paid.json();
    const receipt = JSON.parse(
      Buffer.from(paid.headers.get("x-service-receipt")!, "base64").toString("utf8"),
    ) as Record<string, unknown>;
    const verdict = await call("POST", "/api/verify", jsonInit({ receipt, prompt: messages, response }));
    expect(verdict.body).toMatchObject({ ok: true });
    conforms("/api/verify", "post", verdict.res, verdict.body);
    const badVerify = await call("POST", "/api/verify", jsonInit({ receipt: "nope" }));
    conforms("/api/verify", "post", badVerify.res, badVerify.body);
  });

  it("the receipt log: a proof pending then served, checkpoints, tiles, the key, a refused cosignature", async () => {
    const kp = generateKeypair();
    await stack.credit(kp.publicKeyBase58, 100_000n);
    const text = JSON.stringify({ model: "local/echo-1", prompt: "log", nonce: newNonce(), timestamp: Date.now() });
    const served = await fetch(`${service.url}/api/v1/inference`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        ...signRequestHeaders(kp, "POST", "http://signet.test/api/v1/inference", text),
      },
      body: text,
    });
    const id = (
      JSON.parse(Buffer.from(served.headers.get("x-service-receipt")!, "base64").toString("utf8")) as {
        inference_id: string;
      }
    ).inference_id;
    const pending = await call("GET", `/api/v1/receipts/${id}/proof`);
    expect(pending.res.status).toBe(409);
    conforms("/api/v1/receipts/{id}/proof", "get", pending.res, pending.body);
    // The service's own sequencer may hold the lock for this round: then its round logs the receipt.
    let proof = await call("GET", `/api/v1/receipts/${id}/proof`);
    for (let i = 0; i < 20 && proof.res.status === 409; i++) {
      while (await publishLog(stack.tdb.prisma, logIdentity(), quietLog));
      await new Promise((r) => setTimeout(r, 100));
      proof = await call("GET", `/api/v1/receipts/${id}/proof`);
    }
    expect(proof.res.status, JSON.stringify(proof.body)).toBe(200);
    conforms("/api/v1/receipts/{id}/proof", "get", proof.res, proof.body);
    const unknown = await call("GET", "/api/v1/receipts/00000000-0000-4000-8000-000000000000/proof");
    conforms("/api/v1/receipts/{id}/proof", "get", unknown.res, unknown.body);
    const key = await call("GET", "/log/key");
    conforms("/log/key", "get", key.res, key.body);
    const size = (proof.body as { tree_size: number }).tree_size;
    for (const [path, template] of [
      ["/log/checkpoint", "/log/checkpoint"],
      [`/log/checkpoints/${size}`, "/log/checkpoints/{size}"],
    ] as const) {
      const res = await fetch(`${service.url}${path}`);
      conforms(template, "get", res, await res.text(), "text/plain");
    }
    const tile = await fetch(`${service.url}/log/tile/0/000.p/${size}`);
    conforms(
      "/log/tile/{path}",
      "get",
      tile,
      Buffer.from(await tile.arrayBuffer()).toString("base64"),
      "application/octet-stream",
    );
    const missing = await call("GET", "/log/tile/0/999");
    conforms("/log/tile/{path}", "get", missing.res, missing.body);
    const checkpoint = await (await fetch(`${service.url}/log/checkpoint`)).text();
    const cosign = await call("POST", "/log/cosignature", {
      headers: { "content-type": "text/plain" },
      body: checkpoint,
    });
    expect(cosign.res.status).toBe(403);
    conforms("/log/cosignature", "post", cosign.res, cosign.body);
  });

  it("checked at least one answer of every route a client calls", () => {
    const templates = new Set(checked.map((c) => c.split(" ")[1]));
    for (const path of Object.keys(doc.paths).filter(
      (p) => !p.startsWith("/api/operator") && p !== "/api/v1/openapi.json" && p !== "/openapi.json",
    ))
      expect(templates).toContain(path);
  });
});
