// Embeddings receipts made by the real route (paid with the stock @x402/fetch client on the local chain, and prepaid by
// a signed request), over real HTTP, checked by three of the four verifiers: the library, `signet verify` (a child
// process, as users run it) and the hosted verifier (POST /api/verify). Each says "matches" for the request and answer
// the receipt was made over, whichever encoding carried the vectors, and names the hash that differs for a changed
// vector or input. The browser explorer's check is e2e/explorer.spec.ts. Also: /.well-known/x402 and the OpenAPI
// document list the route, derived from the paid-route registry.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newNonce, signRequestHeaders } from "../../agent/sign-request";
import { generateKeypair } from "../../keys/parse-secret-key";
import { canonicalJson, CHECK_NAMES, parseReceiptText, verifyEd25519, verifyReceipt } from "../../verify";
import { stockPayingFetch } from "../compat/compat-stack";
import { operatorKeypair } from "../support/env";
import { startServedStack, type ServedStack } from "../support/http-service";
import { runSignet } from "../support/signet-cli";

const MODEL = "local/hash-embed-1";
const allChecks = Object.fromEntries(CHECK_NAMES.map((c) => [c, true]));
const operatorKey = () => operatorKeypair().publicKeyBase58;

let served: ServedStack;
const scratch = mkdtempSync(path.join(tmpdir(), "signet-embeddings-verify-"));

beforeAll(async () => {
  served = await startServedStack({ timing: "instant", env: { X402_FLAT_PRICE_USDC: "0.001" } });
}, 120_000);
afterAll(async () => {
  await served?.close();
  rmSync(scratch, { recursive: true, force: true });
});

const url = (p: string) => `${served.service.url}${p}`;

interface Call {
  request: Record<string, unknown>;
  response: { data: { index: number; embedding: number[] | string }[] };
  receipt: Record<string, unknown>;
  receiptHeader: string;
}

async function readCall(res: Response, request: Record<string, unknown>): Promise<Call> {
  const text = await res.text();
  expect(res.status, text).toBe(200);
  const receiptHeader = res.headers.get("x-service-receipt")!;
  const parsed = parseReceiptText(receiptHeader);
  if (!parsed.ok) throw new Error("the answer carries no receipt");
  return { request, response: JSON.parse(text) as Call["response"], receipt: parsed.receipt, receiptHeader };
}

/** One embeddings call paid with the stock x402 client by a fresh funded agent. */
async function paidCall(request: Record<string, unknown>): Promise<Call> {
  const { fetch: pay } = await stockPayingFetch(served);
  return readCall(
    await pay(url("/api/v1/embeddings"), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(request),
    }),
    request,
  );
}

/** One embeddings call signed by a freshly credited key, from prepaid credit. */
async function prepaidCall(request: Record<string, unknown>): Promise<Call> {
  const kp = generateKeypair();
  await served.stack.credit(kp.publicKeyBase58, 1_000_000n);
  const body = { ...request, nonce: newNonce(), timestamp: Date.now() };
  const text = JSON.stringify(body);
  const headers = {
    "content-type": "application/json",
    ...signRequestHeaders(kp, "POST", url("/api/v1/embeddings"), text),
  };
  return readCall(await fetch(url("/api/v1/embeddings"), { method: "POST", headers, body: text }), body);
}

/** The answer with one value of its first vector moved: another answer the receipt does not cover. */
function tamperedAnswer(call: Call): Call["response"] {
  const first = call.response.data[0]!.embedding;
  if (typeof first === "string") throw new Error("tamper a float answer");
  return {
    ...call.response,
    data: [
      { ...call.response.data[0]!, embedding: [first[0]! + 0.5, ...first.slice(1)] },
      ...call.response.data.slice(1),
    ],
  };
}

let paidFloat: Call;
let paidBase64: Call;
let prepaid: Call;

beforeAll(async () => {
  paidFloat = await paidCall({ model: MODEL, input: ["the first text", "the second text"] });
  paidBase64 = await paidCall({ model: MODEL, input: "one text, base64", encoding_format: "base64", dimensions: 32 });
  prepaid = await prepaidCall({ model: MODEL, input: [[791, 3691], [574]], dimensions: 16 });
}, 120_000);

describe("an embeddings receipt from the route, verified by the library", () => {
  it("matches the request and answer it was made over: paid (float and base64) and prepaid", async () => {
    for (const call of [paidFloat, paidBase64]) {
      const verdict = await verifyReceipt({
        receipt: call.receipt,
        prompt: call.request,
        response: call.response,
        operatorKey: operatorKey(),
        rpc: served.stack.devnet.url,
      });
      expect(verdict.checks).toEqual(allChecks);
      expect(verdict.reasons.prompt_hash_ok).toBe("prompt hash matches (embeddings form)");
      expect(verdict.reasons.response_hash_ok).toBe("response hash matches");
    }
    expect(paidBase64.response.data[0]!.embedding).toEqual(expect.any(String));
    expect(prepaid.receipt).not.toHaveProperty("payment");
    expect(
      (
        await verifyReceipt({
          receipt: prepaid.receipt,
          prompt: prepaid.request,
          response: prepaid.response,
          operatorKey: operatorKey(),
        })
      ).checks,
    ).toEqual(allChecks);
  });

  it("says which hash differs for a moved vector value, or another input", async () => {
    const moved = await verifyReceipt({
      receipt: paidFloat.receipt,
      prompt: paidFloat.request,
      response: tamperedAnswer(paidFloat),
      operatorKey: operatorKey(),
      rpc: served.stack.devnet.url,
    });
    expect(moved).toMatchObject({
      ok: false,
      checks: { prompt_hash_ok: true, response_hash_ok: false, service_signature_ok: true },
    });
    expect(moved.reasons.response_hash_ok).toBe("response hash differs from the receipt's response_hash");
    const otherInput = await verifyReceipt({
      receipt: paidFloat.receipt,
      prompt: { ...paidFloat.request, input: ["the first text", "the second text!"] },
      response: paidFloat.response,
      operatorKey: operatorKey(),
      rpc: served.stack.devnet.url,
    });
    expect(otherInput).toMatchObject({ ok: false, checks: { prompt_hash_ok: false, response_hash_ok: true } });
    expect(otherInput.reasons.prompt_hash_ok).toBe("prompt hash differs from the receipt's prompt_hash");
  });
});

describe("an embeddings receipt from the route, verified by `signet verify`", () => {
  let n = 0;
  const file = (value: unknown) => {
    const f = path.join(scratch, `${n++}.json`);
    writeFileSync(f, typeof value === "string" ? value : JSON.stringify(value));
    return f;
  };
  const verifyArgs = (call: Call, response: unknown, receipt: unknown = call.receipt) => [
    "verify",
    "--receipt",
    file(receipt),
    "--prompt",
    file(call.request),
    "--response",
    file(response),
    "--json",
  ];

  it("exits 0 with every check passed, for a paid receipt (its header form) and a prepaid one (the key fetched from the service)", async () => {
    const paid = await runSignet(
      [
        ...verifyArgs(paidBase64, paidBase64.response, paidBase64.receiptHeader),
        "--operator-key",
        operatorKey(),
        "--rpc",
        served.stack.devnet.url,
      ],
      scratch,
    );
    expect(paid.code, paid.stderr).toBe(0);
    expect(JSON.parse(paid.stdout)).toMatchObject({ ok: true, checks: allChecks });
    const fromService = await runSignet(
      [...verifyArgs(prepaid, prepaid.response), "--endpoint", served.service.url],
      scratch,
    );
    expect(fromService.code, fromService.stderr).toBe(0);
    expect(JSON.parse(fromService.stdout)).toMatchObject({ ok: true, checks: allChecks, operatorKey: operatorKey() });
  });

  it("exits 1 and prints the differing response hash for a moved vector value", async () => {
    const run = await runSignet(
      [
        ...verifyArgs(paidFloat, tamperedAnswer(paidFloat)),
        "--operator-key",
        operatorKey(),
        "--rpc",
        served.stack.devnet.url,
      ],
      scratch,
    );
    expect(run.code, run.stderr).toBe(1);
    const result = JSON.parse(run.stdout) as {
      ok: boolean;
      checks: Record<string, boolean>;
      reasons: Record<string, string>;
    };
    expect(result).toMatchObject({
      ok: false,
      checks: { prompt_hash_ok: true, response_hash_ok: false, service_signature_ok: true, payment_on_chain_ok: true },
    });
    expect(result.reasons.response_hash_ok).toBe("response hash differs from the receipt's response_hash");
  });
});

describe("an embeddings receipt from the route, verified by the hosted verifier", () => {
  type Verdict = {
    ok: boolean;
    checks: Record<string, boolean>;
    network: string | null;
    verifier_signature: string;
  } & Record<string, unknown>;
  async function hostedVerdict(body: unknown): Promise<Verdict> {
    const res = await fetch(url("/api/verify"), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    expect(res.status, text).toBe(200);
    return JSON.parse(text) as Verdict;
  }
  const signedByVerifier = async (verdict: Verdict) => {
    const { pubkey } = (await (await fetch(url("/api/verify/operator-key"))).json()) as { pubkey: string };
    const { verifier_signature: signature, ...rest } = verdict;
    return verifyEd25519(new TextEncoder().encode(canonicalJson(rest)), signature, pubkey);
  };

  it("signs a passing verdict for a paid receipt (checked on the service's own chain RPC) and a prepaid one", async () => {
    for (const call of [paidFloat, paidBase64]) {
      const verdict = await hostedVerdict({ receipt: call.receipt, prompt: call.request, response: call.response });
      expect(verdict).toMatchObject({
        ok: true,
        checks: allChecks,
        network: served.stack.devnet.caip2,
        receipt_signature: call.receipt.service_signature,
      });
      expect(await signedByVerifier(verdict)).toBe(true);
    }
    const verdict = await hostedVerdict({
      receipt: prepaid.receipt,
      prompt: prepaid.request.input,
      response: prepaid.response,
    });
    expect(verdict).toMatchObject({ ok: true, checks: allChecks, network: null });
  });

  it("signs a failing verdict naming the response hash for a moved vector value", async () => {
    const verdict = await hostedVerdict({
      receipt: paidFloat.receipt,
      prompt: paidFloat.request,
      response: tamperedAnswer(paidFloat),
    });
    expect(verdict).toMatchObject({
      ok: false,
      checks: {
        prompt_hash_ok: true,
        response_hash_ok: false,
        service_signature_ok: true,
        payment_on_chain_ok: true,
        payer_matches: true,
      },
    });
    expect(await signedByVerifier(verdict)).toBe(true);
  });
});

describe("the embeddings route in discovery", () => {
  it("is listed in /.well-known/x402 with the other paid routes' offers, its bazaar declaration, and as a prepaid route", async () => {
    const discovery = (await (await fetch(url("/.well-known/x402"))).json()) as {
      paid_resources: {
        resource: string;
        method: string;
        description: string;
        accepts: unknown[];
        extensions: { bazaar?: { info?: { input?: { body?: unknown } } } };
      }[];
      prepaid: Record<string, string>;
    };
    const chat = discovery.paid_resources.find((r) => r.resource === url("/api/v1/chat/completions"))!;
    const listed = discovery.paid_resources.find((r) => r.resource === url("/api/v1/embeddings"));
    expect(listed).toMatchObject({
      method: "POST",
      description: expect.stringMatching(/embeddings/),
      accepts: chat.accepts,
    });
    expect(listed!.accepts.length).toBeGreaterThan(0);
    expect(listed!.extensions.bazaar?.info?.input?.body).toMatchObject({ model: MODEL });
    expect(discovery.prepaid.embeddings).toBe(url("/api/v1/embeddings"));
  });

  it("is an operation of the OpenAPI document, with its request schema and its refusals (stable codes) documented", async () => {
    const doc = (await (await fetch(url("/api/v1/openapi.json"))).json()) as {
      paths: Record<
        string,
        Record<string, { operationId: string; responses: Record<string, { description?: string }> }>
      >;
    };
    const operation = doc.paths["/api/v1/embeddings"]?.post;
    expect(operation?.operationId).toBe("createEmbeddings");
    expect(Object.keys(operation!.responses)).toEqual(
      expect.arrayContaining(["200", "400", "401", "402", "409", "413"]),
    );
    expect(JSON.stringify(operation)).toMatch(/streaming_not_supported/);
    expect(JSON.stringify(operation)).toMatch(/insufficient_credits/);
  });
});
