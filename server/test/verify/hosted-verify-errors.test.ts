// The hosted verifier's failures: 400 invalid_request, 413 payload_too_large, 502 upstream_error and 500
// server_misconfigured. No error body carries a verifier_signature, a stack trace or a secret.
import net from "node:net";
import bs58 from "bs58";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POST as verifyRoute } from "@/app/api/verify/route";
import { GET as verifierKeyRoute } from "@/app/api/verify/operator-key/route";
import { generateKeypair, toSolanaCliJson } from "../../keys/parse-secret-key";
import { withEnv } from "../support/env";
import { useHostedVerifierEnv } from "./hosted-verifier-env";
import {
  closedPort,
  startHangingServer,
  startRecordedRpc,
  startServer,
  type LocalServer,
  type RecordedRpc,
} from "./local-servers";
import { assertVectorsPresent, readVector, vectorNames, type Vector } from "./vectors";

const BODY_FIELDS = new Set(["error", "request_id"]);
const ERROR_FIELDS = new Set(["message", "type", "param", "code", "detail", "reason"]);

const post = (body: BodyInit) =>
  verifyRoute(
    new Request("http://localhost/api/verify", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
    }),
    {},
  );
const verify = (body: unknown) => post(JSON.stringify(body));

/** Asserts the shape every verifier error shares (OpenAI's error object, the request id beside it) and returns its error object. */
async function errorBody(res: Response, status: number, code: string): Promise<Record<string, unknown>> {
  const text = await res.text();
  expect(res.status, text).toBe(status);
  expect(res.headers.get("content-type")).toMatch(/^application\/json/);
  const body = JSON.parse(text) as { error: Record<string, unknown>; request_id?: string };
  for (const key of Object.keys(body)) expect(BODY_FIELDS.has(key), `unexpected body field ${key}`).toBe(true);
  const err = body.error;
  expect(err.code).toBe(code);
  expect(typeof err.message).toBe("string");
  expect(typeof err.type).toBe("string");
  expect(err.param).toBe(res.status === 400 && typeof err.detail === "string" ? err.detail : null);
  for (const key of Object.keys(err)) expect(ERROR_FIELDS.has(key), `unexpected error field ${key}`).toBe(true);
  expect(body).not.toHaveProperty("verifier_signature");
  expect(text).not.toMatch(/\n\s+at |\.ts:\d+|node_modules/);
  expect(body.request_id).toBe(res.headers.get("x-request-id"));
  return err;
}

function firstVector(paid: boolean): Vector {
  const name = vectorNames().find((n) => (readVector(n).receipt.payment !== undefined) === paid);
  if (!name) throw new Error(`no ${paid ? "x402" : "prepaid"} vector in the conformance folder`);
  return readVector(name);
}
const requestFor = (v: Vector, extra: Record<string, unknown> = {}) => ({
  receipt: v.receipt,
  prompt: v.prompt,
  response: v.response,
  ...extra,
});

let rpc: RecordedRpc;
let hanging: LocalServer;
/** Plays a service whose operator-key resource is broken in the ways a remote one can be. */
let brokenService: LocalServer;
/** Answers every request with an HTTP status no Response can hold. */
let status999: net.Server;
let status999Url: string;
let deadUrl: string;

beforeAll(async () => {
  rpc = await startRecordedRpc();
  hanging = await startHangingServer();
  brokenService = await startServer((req, _body, res) => {
    if (req.url === "/no-key/api/v1/operator-key")
      return res.writeHead(200, { "content-type": "application/json" }).end('{"pubkey":"not-a-key"}');
    if (req.url === "/rpc-error")
      return res
        .writeHead(200, { "content-type": "application/json" })
        .end('{"jsonrpc":"2.0","id":1,"error":{"code":-32005,"message":"node is behind"}}');
    res
      .writeHead(404, { "content-type": "application/json" })
      .end('{"error":{"message":"not found","type":"invalid_request_error","param":null,"code":"not_found"}}');
  });
  status999 = net.createServer((socket) =>
    socket.once("data", () => socket.end("HTTP/1.1 999 Odd\r\ncontent-length: 2\r\nconnection: close\r\n\r\n{}")),
  );
  await new Promise<void>((r) => status999.listen(0, "127.0.0.1", r));
  status999Url = `http://127.0.0.1:${(status999.address() as net.AddressInfo).port}`;
  deadUrl = `http://127.0.0.1:${await closedPort()}`;
});
afterAll(async () => {
  await Promise.all([
    rpc.close(),
    hanging.close(),
    brokenService.close(),
    new Promise<void>((r) => status999.close(() => r())),
  ]);
});

useHostedVerifierEnv("signet-verify-err-", () => deadUrl);

describe("POST /api/verify rejects malformed input", () => {
  it("finds the vectors folder with at least one vector", () => {
    assertVectorsPresent();
  });

  const KEY = "8MX7BMkwGCmog9VodYeo7YAcZKyyYBuoQybeDMyQFZbS";
  const ok = { receipt: { v: 2 }, prompt: "x", response: "y" };
  it.each([
    ["a body that is not JSON", "body", "{oops"],
    ["an empty body", "body", ""],
    ["a JSON array", "body", "[]"],
    ["JSON null", "body", "null"],
    ["invalid UTF-8", "body", new Uint8Array([0x7b, 0xff, 0xfe, 0x7d])],
    ["no receipt", "receipt", JSON.stringify({ prompt: "x", response: "y" })],
    ["a receipt that is a string", "receipt", JSON.stringify({ ...ok, receipt: "eyJ2IjoyfQ==" })],
    ["a receipt without a version", "receipt.v", JSON.stringify({ ...ok, receipt: { agent_pubkey: KEY } })],
    ["a prompt of the wrong type", "prompt", JSON.stringify({ ...ok, prompt: 5 })],
    ["no response", "response", JSON.stringify({ receipt: { v: 2 }, prompt: "x" })],
    ["a response in no form the library reads", "response", JSON.stringify({ ...ok, response: { output: "y" } })],
    ["stream events of unknown shape", "response", JSON.stringify({ ...ok, response: [{ type: "x" }, 5] })],
    ["a prompt in no form the library reads", "prompt", JSON.stringify({ ...ok, prompt: { input: [{ weird: 1 }] } })],
    ["an operatorKey that is not base58", "operatorKey", JSON.stringify({ ...ok, operatorKey: "nope-0OIl" })],
    ["an operatorKey of the wrong length", "operatorKey", JSON.stringify({ ...ok, operatorKey: KEY.slice(0, 40) })],
    ["an endpoint that is a file: URL", "endpoint", JSON.stringify({ ...ok, endpoint: "file:///etc/passwd" })],
    ["an endpoint that is not a URL", "endpoint", JSON.stringify({ ...ok, endpoint: "signet.example" })],
    ["an rpc that is a gopher: URL", "rpc", JSON.stringify({ ...ok, rpc: "gopher://127.0.0.1:6379/_INFO" })],
  ])("answers 400 invalid_request for %s, naming %s in detail", async (_label, field, body) => {
    const res = await post(body);
    const err = await errorBody(res, 400, "invalid_request");
    expect(err.detail).toBe(field);
  });

  it("answers 413 payload_too_large for a body over 1 MB", async () => {
    await errorBody(
      await verify({ receipt: { v: 2 }, prompt: "x".repeat(1_100_000), response: "y" }),
      413,
      "payload_too_large",
    );
  });
});

describe("POST /api/verify when what it must fetch fails", () => {
  it("answers 502 upstream_error when the endpoint's operator-key resource is 404", async () => {
    const before = brokenService.hits.length;
    const err = await errorBody(
      await verify(requestFor(firstVector(false), { endpoint: `${brokenService.url}/gone` })),
      502,
      "upstream_error",
    );
    expect(err.reason).toBe("operator_key_unavailable");
    // A 404 is final: asked once, not retried.
    expect(brokenService.hits.slice(before).map((h) => h.url)).toEqual(["/gone/api/v1/operator-key"]);
  });

  it("answers 502 upstream_error when the endpoint serves something that is not a key", async () => {
    const err = await errorBody(
      await verify(requestFor(firstVector(false), { endpoint: `${brokenService.url}/no-key` })),
      502,
      "upstream_error",
    );
    expect(err.reason).toBe("operator_key_unavailable");
  });

  it("answers 502 upstream_error when the endpoint is not listening", async () => {
    await errorBody(await verify(requestFor(firstVector(false), { endpoint: deadUrl })), 502, "upstream_error");
  });

  it("answers 502 upstream_error, and stays up, when the endpoint answers an HTTP status 999", async () => {
    await errorBody(await verify(requestFor(firstVector(false), { endpoint: status999Url })), 502, "upstream_error");
    // The verifier still serves the next request.
    const v = firstVector(false);
    expect((await verify(requestFor(v, { operatorKey: v.operatorKey }))).status).toBe(200);
  });

  it("answers 502 upstream_error when the chain RPC is down (a closed port)", async () => {
    const v = firstVector(true);
    const err = await errorBody(
      await verify(requestFor(v, { operatorKey: v.operatorKey, rpc: deadUrl })),
      502,
      "upstream_error",
    );
    expect(err.reason).toBe("rpc_unreachable");
  });

  it("answers 502 upstream_error when the chain RPC answers a JSON-RPC error", async () => {
    const v = firstVector(true);
    const err = await errorBody(
      await verify(requestFor(v, { operatorKey: v.operatorKey, rpc: `${brokenService.url}/rpc-error` })),
      502,
      "upstream_error",
    );
    expect(err.reason).toBe("rpc_error");
  });

  it("answers 502 upstream_error within the ~10 s bound when the chain RPC hangs", async () => {
    const v = firstVector(true);
    const started = Date.now();
    const err = await errorBody(
      await verify(requestFor(v, { operatorKey: v.operatorKey, rpc: hanging.url })),
      502,
      "upstream_error",
    );
    // One lookup's bound is 5.2 s to the millisecond (json-rpc.test.ts, on a moved clock); this is the route's whole wait.
    expect(Date.now() - started).toBeLessThan(12_000);
    expect(err.reason).toBe("rpc_timeout");
  });

  it("never shows the service's own RPC URL (it may hold an API key) when that RPC fails", async () => {
    const v = firstVector(true);
    const res = await withEnv({ RPC_URL_SOLANA_DEVNET: `${deadUrl}/?api-key=PROVIDER-SECRET-123` }, () =>
      verify(requestFor(v, { operatorKey: v.operatorKey })),
    );
    const text = JSON.stringify(await errorBody(res, 502, "upstream_error"));
    expect(text).not.toContain("PROVIDER-SECRET-123");
    expect(text).not.toContain(deadUrl);
  });

  it("shows a caller's own rpc in the message, since they chose it", async () => {
    const v = firstVector(true);
    const err = await errorBody(
      await verify(requestFor(v, { operatorKey: v.operatorKey, rpc: deadUrl })),
      502,
      "upstream_error",
    );
    expect(err.message).toContain(deadUrl);
  });
});

describe("POST /api/verify without a usable verifier key", () => {
  const operatorSecret = bs58.encode(generateKeypair().seed);

  it("answers 500 server_misconfigured in production without VERIFIER_SECRET_KEY, on both verifier routes", async () => {
    const v = firstVector(false);
    await withEnv(
      {
        NODE_ENV: "production",
        SERVICE_BASE_URL: "https://signet.example",
        SERVICE_OPERATOR_SECRET_KEY: operatorSecret,
        VERIFIER_SECRET_KEY: undefined,
      },
      async () => {
        const err = await errorBody(
          await verify(requestFor(v, { operatorKey: v.operatorKey })),
          500,
          "server_misconfigured",
        );
        expect(JSON.stringify(err)).not.toContain(operatorSecret);
        await errorBody(
          await verifierKeyRoute(new Request("http://localhost/api/verify/operator-key"), {}),
          500,
          "server_misconfigured",
        );
      },
    );
    // The environment is back: the same request is answered again.
    expect((await verify(requestFor(v, { operatorKey: v.operatorKey }))).status).toBe(200);
  });

  it("answers 500 server_misconfigured when VERIFIER_SECRET_KEY equals SERVICE_OPERATOR_SECRET_KEY", async () => {
    const v = firstVector(false);
    await withEnv({ SERVICE_OPERATOR_SECRET_KEY: operatorSecret, VERIFIER_SECRET_KEY: operatorSecret }, async () => {
      await errorBody(await verify(requestFor(v, { operatorKey: v.operatorKey })), 500, "server_misconfigured");
    });
  });

  it("answers 500 server_misconfigured when the two keys are equal but written in different forms", async () => {
    const kp = generateKeypair();
    const v = firstVector(false);
    await withEnv(
      { SERVICE_OPERATOR_SECRET_KEY: bs58.encode(kp.seed), VERIFIER_SECRET_KEY: toSolanaCliJson(kp) },
      async () => {
        await errorBody(await verify(requestFor(v, { operatorKey: v.operatorKey })), 500, "server_misconfigured");
      },
    );
  });

  it("answers 500 server_misconfigured, without echoing it, when VERIFIER_SECRET_KEY is malformed", async () => {
    const v = firstVector(false);
    const garbage = "0OIl-definitely-not-a-key";
    await withEnv({ VERIFIER_SECRET_KEY: garbage }, async () => {
      const err = await errorBody(
        await verify(requestFor(v, { operatorKey: v.operatorKey })),
        500,
        "server_misconfigured",
      );
      expect(JSON.stringify(err)).not.toContain(garbage);
    });
  });
});
