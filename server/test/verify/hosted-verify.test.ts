// The hosted verifier end to end, in process: the real route handlers with real Requests, real local servers for the
// operator-key endpoint and the chain RPC, and the public vectors. Failures (400/413/500/502) live in
// hosted-verify-errors.test.ts.
import { randomBytes } from "node:crypto";
import bs58 from "bs58";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POST as verifyRoute } from "@/app/api/verify/route";
import { GET as verifierKeyRoute } from "@/app/api/verify/operator-key/route";
import { GET as operatorKeyRoute } from "@/app/api/v1/operator-key/route";
import { operatorKeypair } from "../support/env";
import { generateKeypair } from "../../keys/parse-secret-key";
import { buildReceipt, type ReceiptFacts } from "../../receipts/build-receipt";
import { signReceipt } from "../../receipts/sign-receipt";
import { canonicalJson, CHECK_NAMES, SOLANA_DEVNET_CAIP2, verifyEd25519 } from "../../verify";
import { withEnv } from "../support/env";
import { useHostedVerifierEnv } from "./hosted-verifier-env";
import {
  closedPort,
  pipeResponse,
  startRecordedRpc,
  startServer,
  type LocalServer,
  type RecordedRpc,
} from "./local-servers";
import { assertVectorsPresent, expectedChecks, readVector, vectorNames } from "./vectors";

type Verdict = Record<string, unknown> & { ok: boolean; checks: Record<string, boolean> };

const VERDICT_FIELDS = [
  "checks",
  "network",
  "ok",
  "operator_pubkey",
  "receipt_signature",
  "rpc",
  "v",
  "verified_at",
  "verifier_pubkey",
  "verifier_signature",
];

const verify = (body: unknown) =>
  verifyRoute(
    new Request("http://localhost/api/verify", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    }),
    {},
  );

async function verdictOf(body: unknown): Promise<Verdict> {
  const res = await verify(body);
  const text = await res.text();
  expect(res.status, text).toBe(200);
  return JSON.parse(text) as Verdict;
}

async function keyResource(route: typeof verifierKeyRoute, url: string): Promise<Record<string, unknown>> {
  const res = await route(new Request(url), {});
  expect(res.status).toBe(200);
  return (await res.json()) as Record<string, unknown>;
}
const verifierKey = async () =>
  (await keyResource(verifierKeyRoute, "http://localhost/api/verify/operator-key")).pubkey as string;
const serviceOperatorKey = async () =>
  (await keyResource(operatorKeyRoute, "http://localhost/api/v1/operator-key")).pubkey as string;

/** A re-verifier's check: verifier_signature over the UTF-8 canonical JSON of the verdict without it. */
function verdictSignatureValid(verdict: Record<string, unknown>, key: string): boolean {
  const { verifier_signature: signature, ...rest } = verdict;
  return verifyEd25519(new TextEncoder().encode(canonicalJson(rest)), signature, key);
}

const MESSAGES = [
  { role: "system", content: "Answer briefly." },
  { role: "user", content: "Name a prime." },
];
const ANSWER = {
  id: "chatcmpl-1",
  object: "chat.completion",
  choices: [{ index: 0, message: { role: "assistant", content: "7" }, finish_reason: "stop" }],
};

/** A receipt signed right now with this service's dev operator key. */
function freshReceipt(extra: Partial<ReceiptFacts> = {}): Record<string, unknown> {
  const facts: ReceiptFacts = {
    agentPubkey: generateKeypair().publicKeyBase58,
    upstream: "local",
    model: "local/echo-1",
    costUnits: 45n,
    prompt: { messages: MESSAGES },
    responseText: "7",
    timestampMs: Date.now(),
    inferenceId: "0b5f3c1e-6a43-4c6a-9d51-0c2b8f0e7a11",
    pointsTotal: 1,
    ...extra,
  };
  return signReceipt(buildReceipt(facts), operatorKeypair()) as unknown as Record<string, unknown>;
}

const freshPayment = () => ({
  amountUnits: 10_000n,
  txSignature: bs58.encode(randomBytes(64)),
  network: SOLANA_DEVNET_CAIP2,
  payTo: generateKeypair().publicKeyBase58,
});

let rpc: RecordedRpc;
/** Plays the main service for `endpoint`: serves GET /api/v1/operator-key through the real route handler. */
let service: LocalServer;
let deadRpcUrl: string;

beforeAll(async () => {
  rpc = await startRecordedRpc();
  service = await startServer(async (req, _body, res) => {
    if (req.method === "GET" && req.url === "/api/v1/operator-key") {
      return pipeResponse(await operatorKeyRoute(new Request(`http://127.0.0.1${req.url}`), {}), res);
    }
    res
      .writeHead(404, { "content-type": "application/json" })
      .end('{"error":{"message":"not found","type":"invalid_request_error","param":null,"code":"not_found"}}');
  });
  deadRpcUrl = `http://127.0.0.1:${await closedPort()}`;
});
afterAll(async () => {
  await Promise.all([rpc.close(), service.close()]);
});

useHostedVerifierEnv("signet-verify-", () => deadRpcUrl);

describe("POST /api/verify over the public vectors (sir-v2)", () => {
  it("finds the vectors folder with at least one vector", () => {
    assertVectorsPresent();
  });

  it.each(vectorNames())("agrees with vector %s, binds its receipt signature and signs the verdict", async (name) => {
    const v = readVector(name);
    const paid = v.receipt.payment !== undefined;
    if (paid) rpc.record(v.receipt);
    const callsBefore = rpc.getTransactionCalls().length;
    const before = Date.now();

    // Prepaid receipts need no chain: they get no `rpc` (and the service's own RPC is dead).
    const verdict = await verdictOf({
      receipt: v.receipt,
      prompt: v.prompt,
      response: v.response,
      operatorKey: v.operatorKey,
      ...(paid ? { rpc: rpc.url } : {}),
    });

    // Online, against a chain answer that matches the receipt, the "skip-offline" checks pass.
    const checks = expectedChecks(v, { online: true });
    expect(verdict.checks).toEqual(checks);
    expect(verdict.ok).toBe(CHECK_NAMES.every((c) => checks[c]));
    if (typeof v.expected.ok === "boolean") expect(verdict.ok).toBe(v.expected.ok);
    expect(Object.keys(verdict).sort()).toEqual(VERDICT_FIELDS);
    expect(verdict).toMatchObject({
      v: 1,
      receipt_signature: v.receipt.service_signature,
      operator_pubkey: v.operatorKey,
    });
    expect(verdict.verified_at).toBeGreaterThanOrEqual(before);
    expect(verdict.verified_at).toBeLessThanOrEqual(Date.now());

    const key = await verifierKey();
    expect(verdict.verifier_pubkey).toBe(key);
    expect(key).not.toBe(v.operatorKey);
    expect(verdictSignatureValid(verdict, key)).toBe(true);
    expect(verdictSignatureValid(verdict, v.operatorKey)).toBe(false);
    expect(verdictSignatureValid({ ...verdict, ok: !verdict.ok }, key)).toBe(false);

    const calls = rpc.getTransactionCalls().slice(callsBefore);
    if (paid) {
      expect(calls).toEqual([
        [
          (v.receipt.payment as { tx_signature: string }).tx_signature,
          { encoding: "jsonParsed", commitment: "confirmed", maxSupportedTransactionVersion: 0 },
        ],
      ]);
    } else {
      expect(calls).toEqual([]);
    }
  });

  it.each(vectorNames())(
    "returns receipt_signature null when vector %s is presented as a v=1 receipt",
    async (name) => {
      const v = readVector(name);
      if (v.receipt.payment !== undefined) rpc.record(v.receipt);
      const verdict = await verdictOf({
        receipt: { ...v.receipt, v: 1 },
        prompt: v.prompt,
        response: v.response,
        operatorKey: v.operatorKey,
        rpc: rpc.url,
      });
      expect(verdict.receipt_signature).toBeNull();
      // The signature covered v=2, so the altered receipt fails its signature check; the verdict is still signed.
      expect(verdict.checks.service_signature_ok).toBe(false);
      expect(verdictSignatureValid(verdict, await verifierKey())).toBe(true);
    },
  );

  it("reports an x402 receipt whose transaction the chain does not know as unpaid (a verdict, not an error)", async () => {
    const v = readVector(vectorNames().find((n) => readVector(n).receipt.payment !== undefined) ?? "x402-001");
    const unknownTx = { ...v.receipt, payment: { ...(v.receipt.payment as object), tx_signature: "1".repeat(64) } };
    const verdict = await verdictOf({
      receipt: unknownTx,
      prompt: v.prompt,
      response: v.response,
      operatorKey: v.operatorKey,
      rpc: rpc.url,
    });
    expect(verdict.ok).toBe(false);
    expect(verdict.checks).toMatchObject({ payment_on_chain_ok: false, payer_matches: false });
  });
});

describe("POST /api/verify with a receipt this service just signed", () => {
  it("uses this service's own operator key when given neither operatorKey nor endpoint: a prepaid receipt is ok", async () => {
    const receipt = freshReceipt();
    const verdict = await verdictOf({ receipt, prompt: MESSAGES, response: ANSWER });
    expect(verdict.ok).toBe(true);
    expect(verdict.checks).toEqual({
      prompt_hash_ok: true,
      response_hash_ok: true,
      service_signature_ok: true,
      payment_on_chain_ok: true,
      payer_matches: true,
    });
    expect(verdict.operator_pubkey).toBe(await serviceOperatorKey());
    expect(verdict.receipt_signature).toBe(receipt.service_signature);
    expect(verdictSignatureValid(verdict, await verifierKey())).toBe(true);
  });

  it("reports an answer that is not the one signed as not ok", async () => {
    const tampered = { ...ANSWER, choices: [{ ...ANSWER.choices[0], message: { role: "assistant", content: "8" } }] };
    const verdict = await verdictOf({ receipt: freshReceipt(), prompt: MESSAGES, response: tampered });
    expect(verdict.ok).toBe(false);
    expect(verdict.checks).toMatchObject({ prompt_hash_ok: true, response_hash_ok: false, service_signature_ok: true });
  });

  it("checks an x402 receipt against this service's own chain RPC when the caller gives no rpc", async () => {
    const receipt = freshReceipt({ payment: freshPayment() });
    rpc.record(receipt);
    const verdict = await withEnv({ RPC_URL_SOLANA_DEVNET: rpc.url }, () =>
      verdictOf({ receipt, prompt: MESSAGES, response: ANSWER }),
    );
    expect(verdict.ok).toBe(true);
    expect(rpc.getTransactionCalls().at(-1)?.[0]).toBe((receipt.payment as { tx_signature: string }).tx_signature);
  });

  it("names the network it asked and whose RPC answered in the verdict, under the verifier's signature", async () => {
    const receipt = freshReceipt({ payment: freshPayment() });
    rpc.record(receipt);
    const key = await verifierKey();

    const viaCaller = await verdictOf({ receipt, prompt: MESSAGES, response: ANSWER, rpc: rpc.url });
    expect(viaCaller).toMatchObject({ ok: true, network: SOLANA_DEVNET_CAIP2, rpc: "caller" });
    expect(verdictSignatureValid(viaCaller, key)).toBe(true);
    // The signature covers both fields: a relying party cannot be told another chain or another RPC was asked.
    expect(verdictSignatureValid({ ...viaCaller, network: "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp" }, key)).toBe(
      false,
    );
    expect(verdictSignatureValid({ ...viaCaller, rpc: "service" }, key)).toBe(false);

    const viaService = await withEnv({ RPC_URL_SOLANA_DEVNET: rpc.url }, () =>
      verdictOf({ receipt, prompt: MESSAGES, response: ANSWER }),
    );
    expect(viaService).toMatchObject({ ok: true, network: SOLANA_DEVNET_CAIP2, rpc: "service" });
    expect(verdictSignatureValid(viaService, key)).toBe(true);

    // A prepaid receipt asks no chain.
    const prepaid = await verdictOf({ receipt: freshReceipt(), prompt: MESSAGES, response: ANSWER });
    expect(prepaid).toMatchObject({ ok: true, network: null, rpc: "service" });
    expect(verdictSignatureValid(prepaid, key)).toBe(true);
  });

  it("fetches the operator key from `endpoint` when private networks are allowed", async () => {
    const hitsBefore = service.hits.length;
    const verdict = await verdictOf({
      receipt: freshReceipt(),
      prompt: MESSAGES,
      response: ANSWER,
      endpoint: service.url,
    });
    expect(verdict.ok).toBe(true);
    expect(verdict.operator_pubkey).toBe(operatorKeypair().publicKeyBase58);
    expect(service.hits.slice(hitsBefore).map((h) => `${h.method} ${h.url}`)).toEqual(["GET /api/v1/operator-key"]);
  });

  it("accepts an endpoint with a trailing slash", async () => {
    const verdict = await verdictOf({
      receipt: freshReceipt(),
      prompt: MESSAGES,
      response: ANSWER,
      endpoint: `${service.url}/`,
    });
    expect(verdict.ok).toBe(true);
  });

  it("refuses a loopback endpoint with 502 upstream_error when private networks are closed, without connecting", async () => {
    const receipt = freshReceipt();
    const hitsBefore = service.hits.length;
    const res = await withEnv({ VERIFIER_ALLOW_PRIVATE_NETWORKS: "false" }, () =>
      verify({ receipt, prompt: MESSAGES, response: ANSWER, endpoint: service.url }),
    );
    expect(res.status).toBe(502);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ error: { code: "upstream_error", reason: "fetch_refused" } });
    expect(body).not.toHaveProperty("verifier_signature");
    expect(service.hits.length).toBe(hitsBefore);
  });

  it("refuses a loopback rpc for an x402 receipt when private networks are closed, but needs none for a prepaid one", async () => {
    const paid = freshReceipt({ payment: freshPayment() });
    rpc.record(paid);
    await withEnv({ VERIFIER_ALLOW_PRIVATE_NETWORKS: "false" }, async () => {
      const refused = await verify({ receipt: paid, prompt: MESSAGES, response: ANSWER, rpc: rpc.url });
      expect(refused.status).toBe(502);
      expect(await refused.json()).toMatchObject({ error: { code: "upstream_error", reason: "fetch_refused" } });
      const prepaid = await verdictOf({ receipt: freshReceipt(), prompt: MESSAGES, response: ANSWER, rpc: rpc.url });
      expect(prepaid.ok).toBe(true);
    });
  });
});

describe("GET /api/v1/operator-key and GET /api/verify/operator-key", () => {
  it("publish the operator key (with the keys it retired: none here) and a different verifier key, both as base58 Ed25519 key resources", async () => {
    const operator = await keyResource(operatorKeyRoute, "http://localhost/api/v1/operator-key");
    const verifier = await keyResource(verifierKeyRoute, "http://localhost/api/verify/operator-key");
    expect(operator).toEqual({
      pubkey: operatorKeypair().publicKeyBase58,
      algorithm: "ed25519",
      encoding: "base58",
      retired: [],
    });
    expect(verifier).toEqual({
      pubkey: expect.stringMatching(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/),
      algorithm: "ed25519",
      encoding: "base58",
    });
    expect(verifier.pubkey).not.toBe(operator.pubkey);
  });

  it("keep the same keys across a reload of config and keys (dev keys persist in the data dir)", async () => {
    const [operator, verifier] = [await serviceOperatorKey(), await verifierKey()];
    await withEnv({}, async () => {
      expect(await serviceOperatorKey()).toBe(operator);
      expect(await verifierKey()).toBe(verifier);
    });
  });
});
