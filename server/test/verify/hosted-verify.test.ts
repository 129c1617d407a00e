import { readdirSync, readFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import bs58 from "bs58";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { POST as verifyRoute } from "@/app/api/verify/route";
import { GET as verifierKeyRoute } from "@/app/api/verify/operator-key/route";
import { GET as operatorKeyRoute } from "@/app/api/v1/operator-key/route";
import { operatorKeypair } from "../../keys/service-keys";
import { generateKeypair } from "../../keys/parse-secret-key";
import { buildReceipt } from "../../receipts/build-receipt";
import { signReceipt } from "../../receipts/sign-receipt";
import { canonicalJson, verifyEd25519 } from "../../verify";
import { recordedTransaction } from "../../verify/fixtures/recorded-transaction";
import { setEnv, tempDataDir } from "../support/env";

const VECTORS = path.resolve(__dirname, "../../../../shared/conformance/sir-v2");
const vector = (name: string) => {
  const read = (f: string) => JSON.parse(readFileSync(path.join(VECTORS, name, f), "utf8")) as Record<string, unknown>;
  return {
    receipt: read("receipt.json"),
    prompt: read("request.json"),
    response: read("response.json"),
    expected: read("expected.json") as { checks: Record<string, boolean | string>; ok: unknown },
    operatorKey: readFileSync(path.join(VECTORS, name, "operator-pubkey.txt"), "utf8").trim(),
  };
};

const call = (body: unknown, raw = false) =>
  verifyRoute(new Request("http://localhost/api/verify", { method: "POST", headers: { "content-type": "application/json" }, body: raw ? (body as string) : JSON.stringify(body) }), {});

/** A local JSON-RPC node answering getTransaction from a recorded answer; also serves an operator key. */
let node: http.Server;
let nodeUrl: string;
let servedOperatorKey = "";
beforeAll(async () => {
  node = http.createServer((req, res) => {
    if (req.url === "/hang") return; // never answers
    if (req.url === "/api/v1/operator-key") return res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ pubkey: servedOperatorKey }));
    if (req.url === "/missing/api/v1/operator-key") return res.writeHead(404).end("{}");
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString()));
    req.on("end", () => {
      const { method } = JSON.parse(body) as { method: string };
      if (method !== "getTransaction") return res.writeHead(400).end();
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", id: 1, result: recordedTransaction() }));
    });
  });
  await new Promise<void>((r) => node.listen(0, "127.0.0.1", r));
  nodeUrl = `http://127.0.0.1:${(node.address() as AddressInfo).port}`;
});
afterAll(() => {
  node.closeAllConnections();
  return new Promise<void>((r) => node.close(() => r()));
});

let restore: () => void;
beforeEach(() => {
  restore = setEnv({ SIGNET_DATA_DIR: tempDataDir(), NODE_ENV: "test", VERIFIER_SECRET_KEY: undefined, SERVICE_OPERATOR_SECRET_KEY: undefined, VERIFIER_ALLOW_PRIVATE_NETWORKS: "true" });
});
afterEach(() => restore());

async function verifierKey(): Promise<string> {
  return ((await (await verifierKeyRoute(new Request("http://localhost/api/verify/operator-key"), {})).json()) as { pubkey: string }).pubkey;
}

function checkVerdictSignature(verdict: Record<string, unknown>, key: string): boolean {
  const { verifier_signature: sig, ...rest } = verdict;
  return verifyEd25519(new TextEncoder().encode(canonicalJson(rest)), sig, key);
}

describe("POST /api/verify", () => {
  it.each(readdirSync(VECTORS).sort())("agrees with vector %s and signs its verdict", async (name) => {
    const v = vector(name);
    const res = await call({ receipt: v.receipt, prompt: v.prompt, response: v.response, operatorKey: v.operatorKey, rpc: nodeUrl });
    expect(res.status).toBe(200);
    const verdict = (await res.json()) as Record<string, unknown> & { checks: Record<string, boolean> };
    expect(verdict.checks.prompt_hash_ok).toBe(v.expected.checks.prompt_hash_ok);
    expect(verdict.checks.response_hash_ok).toBe(v.expected.checks.response_hash_ok);
    expect(verdict.checks.service_signature_ok).toBe(v.expected.checks.service_signature_ok);
    expect(verdict).toMatchObject({ v: 1, receipt_signature: v.receipt.service_signature, operator_pubkey: v.operatorKey });
    expect(checkVerdictSignature(verdict, await verifierKey())).toBe(true);
  });

  it("verifies a vector's payment against a recorded chain answer: all five checks pass", async () => {
    const v = vector("x402-001");
    const verdict = (await (await call({ receipt: v.receipt, prompt: v.prompt, response: v.response, operatorKey: v.operatorKey, rpc: nodeUrl })).json()) as Record<string, unknown>;
    expect(verdict.ok).toBe(true);
  });

  it("uses this service's own operator key when given neither a key nor an endpoint", async () => {
    const messages = [{ role: "user", content: "hi" }];
    const receipt = signReceipt(
      buildReceipt({ agentPubkey: generateKeypair().publicKeyBase58, upstream: "local", model: "local/echo-1", costUnits: 1n, prompt: { messages }, responseText: "yo", timestampMs: 1, inferenceId: "x", pointsTotal: 1 }),
      operatorKeypair(),
    );
    const verdict = (await (await call({ receipt, prompt: messages, response: "yo" })).json()) as Record<string, unknown>;
    expect(verdict.ok).toBe(true);
    expect(verdict.operator_pubkey).toBe(operatorKeypair().publicKeyBase58);
  });

  it("fetches the operator key from an endpoint, and refuses a loopback endpoint when private networks are closed", async () => {
    const v = vector("prepaid-001");
    servedOperatorKey = v.operatorKey;
    const ok = (await (await call({ receipt: v.receipt, prompt: v.prompt, response: v.response, endpoint: nodeUrl })).json()) as Record<string, unknown>;
    expect(ok.ok).toBe(true);
    restore();
    restore = setEnv({ SIGNET_DATA_DIR: tempDataDir(), VERIFIER_ALLOW_PRIVATE_NETWORKS: "false" });
    const refused = await call({ receipt: v.receipt, prompt: v.prompt, response: v.response, endpoint: nodeUrl });
    expect(refused.status).toBe(502);
    const body = (await refused.json()) as Record<string, unknown>;
    expect(body.error).toBe("upstream_error");
    expect(body).not.toHaveProperty("verifier_signature");
  });

  it("answers 502 upstream_error when the operator-key fetch fails, the RPC is down, or the RPC hangs (within the bound)", async () => {
    const v = vector("x402-001");
    expect((await call({ receipt: v.receipt, prompt: v.prompt, response: v.response, endpoint: `${nodeUrl}/missing` })).status).toBe(502);
    expect((await call({ receipt: v.receipt, prompt: v.prompt, response: v.response, operatorKey: v.operatorKey, rpc: "http://127.0.0.1:1" })).status).toBe(502);
    const started = Date.now();
    const hung = await call({ receipt: v.receipt, prompt: v.prompt, response: v.response, operatorKey: v.operatorKey, rpc: `${nodeUrl}/hang` });
    expect(hung.status).toBe(502);
    expect(Date.now() - started).toBeLessThan(12_000);
  });

  it("returns receipt_signature null for a v=1 receipt", async () => {
    const v = vector("prepaid-001");
    const verdict = (await (await call({ receipt: { ...v.receipt, v: 1 }, prompt: v.prompt, response: v.response, operatorKey: v.operatorKey })).json()) as Record<string, unknown>;
    expect(verdict.receipt_signature).toBeNull();
  });

  it.each([
    ["non-JSON", "{oops", "body"],
    ["an empty body", "", "body"],
    ["no receipt", JSON.stringify({ prompt: "x", response: "y" }), "receipt"],
    ["a prompt of the wrong type", JSON.stringify({ receipt: { v: 2 }, prompt: 5, response: "y" }), "prompt"],
    ["a bad operatorKey", JSON.stringify({ receipt: { v: 2 }, prompt: "x", response: "y", operatorKey: "nope" }), "operatorKey"],
    ["a non-http endpoint", JSON.stringify({ receipt: { v: 2 }, prompt: "x", response: "y", endpoint: "file:///etc/passwd" }), "endpoint"],
  ])("rejects %s with 400 invalid_request naming the field", async (_label, raw, field) => {
    const res = await call(raw, true);
    expect(res.status).toBe(400);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ error: "invalid_request", detail: field });
    expect(body).not.toHaveProperty("verifier_signature");
  });

  it("rejects an oversized body with 413", async () => {
    const res = await call({ receipt: { v: 2 }, prompt: "x".repeat(1_100_000), response: "y" });
    expect(res.status).toBe(413);
  });

  it("answers 500 server_misconfigured without a verifier key in production, or with one equal to the operator key", async () => {
    const v = vector("prepaid-001");
    restore();
    restore = setEnv({ NODE_ENV: "production", SERVICE_OPERATOR_SECRET_KEY: bs58.encode(generateKeypair().seed), VERIFIER_SECRET_KEY: undefined, SIGNET_DATA_DIR: tempDataDir() });
    const missing = await call({ receipt: v.receipt, prompt: v.prompt, response: v.response, operatorKey: v.operatorKey });
    expect(missing.status).toBe(500);
    expect(await missing.json()).toMatchObject({ error: "server_misconfigured" });
    restore();
    const same = bs58.encode(generateKeypair().seed);
    restore = setEnv({ SERVICE_OPERATOR_SECRET_KEY: same, VERIFIER_SECRET_KEY: same, SIGNET_DATA_DIR: tempDataDir() });
    const equal = await call({ receipt: v.receipt, prompt: v.prompt, response: v.response, operatorKey: v.operatorKey });
    expect(equal.status).toBe(500);
    expect(await equal.json()).not.toHaveProperty("verifier_signature");
  });
});

describe("GET /api/v1/operator-key and /api/verify/operator-key", () => {
  it("publish two different Ed25519 keys", async () => {
    const op = (await (await operatorKeyRoute(new Request("http://localhost/api/v1/operator-key"), {})).json()) as Record<string, unknown>;
    expect(op).toEqual({ pubkey: operatorKeypair().publicKeyBase58, algorithm: "ed25519", encoding: "base58" });
    expect(await verifierKey()).not.toBe(op.pubkey);
  });
});
