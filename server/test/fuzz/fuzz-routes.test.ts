// Property-based fuzzing, with fast-check, against the real route handlers, PostgreSQL and the local chain.
// More than 10,000 malformed bodies, headers, base64, base58, payment payloads and receipts go to every public route
// and to the verifier (RUNS adds up to more than 10,000; each test checks it sent its own share, so any test passes
// alone). Asserted throughout:
// - no 500 ever (the only 5xx allowed are the documented refusals `mainnet_disabled` and `network_not_supported`);
// - every refusal is JSON with a stable `error` code;
// - no unhandled rejection (checked after every test);
// - no ledger, balance, settled-payment or logged-call row changes: a served payment's header, however mutated, is
//   at most answered again with that call's stored answer, never served twice;
// - the verifier never says `ok: true` for a mutated receipt.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import fc from "fast-check";
import { decodePaymentSignatureHeader, encodePaymentSignatureHeader } from "@x402/core/http";
import bs58 from "bs58";
import { canonicalJson, parseReceiptText, verifyReceipt } from "../../verify";
import { operatorKeypair } from "../support/env";
import { ERROR_STATUS } from "../../errors";
import { serviceError } from "../../errors/error-body";
import { buildPaymentHeader, challengeOf, startPaidStack, type PaidStack } from "../support/paid-stack";
import { newNonce, signRequestHeaders } from "../../agent/sign-request";
import { generateKeypair } from "../../keys/parse-secret-key";

const RUNS = {
  chat: 2_300,
  paidHeaders: 1_500,
  v1Headers: 600,
  responses: 800,
  inference: 1_100,
  embeddings: 800,
  credits: 800,
  grants: 800,
  lookups: 600,
  hostedVerify: 800,
  receipts: 1_500,
};
const BASE = "http://signet.test";
const ALLOWED_5XX = new Set(["mainnet_disabled", "network_not_supported"]);

let stack: PaidStack;
let routes: Record<string, (req: Request) => Promise<Response>>;
let realHeader: string;
let realReceipt: Record<string, unknown>;
let realPrompt: unknown;
let realResponse: unknown;
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);
/** Inputs sent by the running test: reset before each test, so no test counts on another having run. */
let sent = 0;

async function moneySnapshot() {
  const p = stack.tdb.prisma;
  return JSON.stringify(
    {
      ledger: await p.ledgerEntry.findMany({ orderBy: { id: "asc" } }),
      balances: await p.balance.findMany({ orderBy: [{ agentPubkey: "asc" }, { network: "asc" }] }),
      settled: await p.payment.findMany({
        where: { status: { not: "failed" } },
        orderBy: { id: "asc" },
        select: { id: true, status: true, txSignature: true, units: true },
      }),
      calls: await p.inferenceLog.findMany({ orderBy: { id: "asc" }, select: { id: true, status: true } }),
    },
    (_k, v: unknown) => (typeof v === "bigint" ? v.toString() : v),
  );
}

// @x402/svm console.errors every undecodable transaction; thousands of them would bury the report. Only those lines
// are dropped.
const consoleError = console.error;

beforeAll(async () => {
  process.on("unhandledRejection", onUnhandled);
  console.error = (...args: unknown[]) => {
    if (typeof args[0] === "string" && args[0].startsWith("Error decoding transaction")) return;
    consoleError(...args);
  };
  stack = await startPaidStack({ env: { X402_FLAT_PRICE_USDC: "0.001", PREPAID_RATE_LIMIT_PER_MINUTE: "1000000" } });
  const chat = (await import("@/app/api/v1/chat/completions/route")).POST;
  const inference = (await import("@/app/api/v1/inference/route")).POST;
  const responses = (await import("@/app/api/v1/responses/route")).POST;
  const embeddings = (await import("@/app/api/v1/embeddings/route")).POST;
  const credits = (await import("@/app/api/v1/credits/route")).POST;
  const creditsOf = (await import("@/app/api/v1/credits/[pubkey]/route")).GET;
  const grantChallenge = (await import("@/app/api/v1/grants/challenge/route")).GET;
  const grants = (await import("@/app/api/v1/grants/route")).POST;
  const receipt = (await import("@/app/api/v1/receipts/[id]/route")).GET;
  const verify = (await import("@/app/api/verify/route")).POST;
  const models = (await import("@/app/api/v1/models/route")).GET;
  const lastSegment = (req: Request) => decodeURIComponent(new URL(req.url).pathname.split("/").pop() ?? "");
  routes = {
    chat: (req) => chat(req, {}),
    inference: (req) => inference(req, {}),
    responses: (req) => responses(req, {}),
    embeddings: (req) => embeddings(req, {}),
    credits: (req) => credits(req, {}),
    creditsOf: (req) => creditsOf(req, { params: Promise.resolve({ pubkey: lastSegment(req) }) }),
    grantChallenge: (req) => grantChallenge(req, {}),
    grants: (req) => grants(req, {}),
    receipt: (req) => receipt(req, { params: Promise.resolve({ id: lastSegment(req) }) }),
    verify: (req) => verify(req, {}),
    models: (req) => models(req, {}),
  };

  // One real served call: its header, receipt, prompt and response are the seeds for mutation.
  const agent = await stack.newAgent();
  const messages = [{ role: "user", content: "fuzz seed" }];
  const chatBody = { model: "local/echo-1", messages };
  realHeader = await buildPaymentHeader(
    agent,
    await challengeOf(await stack.chat({ body: chatBody })),
    stack.devnet.url,
  );
  const res = await stack.chat({ body: chatBody, headers: { "X-Payment": realHeader } });
  expect(res.status).toBe(200);
  const parsed = parseReceiptText(res.headers.get("x-service-receipt")!);
  if (!parsed.ok) throw new Error("no receipt");
  realReceipt = parsed.receipt;
  realPrompt = messages;
  realResponse = await res.json();
});

afterAll(async () => {
  process.off("unhandledRejection", onUnhandled);
  console.error = consoleError;
  await stack?.close();
});

beforeEach(() => {
  sent = 0;
});
afterEach(() => {
  expect(unhandled).toEqual([]);
});

/** Sends one request and checks the answer's shape; returns the status. */
async function send(route: string, req: Request): Promise<number> {
  return (await sendForAnswer(route, req)).status;
}

/** Sends one request and checks the answer's shape; returns the status, whether it was a stored answer, and the body. */
async function sendForAnswer(
  route: string,
  req: Request,
): Promise<{ status: number; replayed: string | null; text: string }> {
  sent++;
  const res = await routes[route]!(req);
  const text = await res.text();
  if (res.status >= 500 || res.status >= 400) {
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new Error(`${route} answered ${res.status} with a body that is not JSON: ${text.slice(0, 200)}`);
    }
    // OpenAI's shape (flat beside x402 v1's challenge on a 402): a stable code, beside a message and a type.
    const { code, message, fields } = serviceError(body);
    if (!Object.hasOwn(ERROR_STATUS, code))
      throw new Error(`${route} answered ${res.status} without a stable code: ${text.slice(0, 200)}`);
    if (!message || typeof fields.type !== "string")
      throw new Error(`${route} answered ${res.status} without OpenAI's error message and type: ${text.slice(0, 200)}`);
    if (res.status >= 500 && !ALLOWED_5XX.has(code))
      throw new Error(`${route} answered ${res.status} ${code}: ${text.slice(0, 300)}`);
    if (/\bat \S+ \(|node_modules|\.ts:\d+/.test(text))
      throw new Error(`${route} leaked a stack trace: ${text.slice(0, 300)}`);
  }
  return { status: res.status, replayed: res.headers.get("x-answer-replayed"), text };
}

const post = (path: string, body: BodyInit | null, headers: Record<string, string> = {}) =>
  new Request(`${BASE}${path}`, { method: "POST", body, headers: { "content-type": "application/json", ...headers } });

// Generators.
const anyJson = fc.jsonValue({ maxDepth: 4 });
const junkText = fc.oneof(
  fc.string({ maxLength: 300 }),
  fc.string({ unit: "binary", maxLength: 200 }),
  fc.constantFrom("", "{", "null", "[]", '{"a":', "\u0000", "𝄞".repeat(50)),
);
const base64ish = fc.oneof(
  fc.base64String({ maxLength: 400 }),
  fc.string({ maxLength: 200 }),
  anyJson.map((j) => Buffer.from(JSON.stringify(j)).toString("base64")),
);
const base58ish = fc.oneof(
  fc.uint8Array({ minLength: 0, maxLength: 70 }).map((b) => bs58.encode(b)),
  fc.string({
    unit: fc.constantFrom(..."123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz0OIl+/"),
    maxLength: 90,
  }),
);
const network = fc.oneof(
  fc.constantFrom("devnet", "mainnet", "base", "base-sepolia", "solana", "eip155:1", "", "DEVNET"),
  fc.string({ maxLength: 20 }),
);
const message = fc.record(
  {
    role: fc.oneof(fc.constantFrom("user", "system", "assistant", "tool"), fc.string({ maxLength: 10 })),
    content: fc.oneof(fc.string({ maxLength: 200 }), anyJson),
  },
  { requiredKeys: [] },
);
const chatBody = fc.record(
  {
    model: fc.oneof(fc.constantFrom("local/echo-1", "gpt-4", ""), fc.string({ maxLength: 40 }), anyJson),
    messages: fc.oneof(fc.array(message, { maxLength: 5 }), anyJson),
    network,
    max_tokens: fc.oneof(fc.integer(), fc.double(), fc.string({ maxLength: 5 })),
    temperature: fc.oneof(fc.double(), fc.string({ maxLength: 5 })),
    stream: fc.oneof(fc.boolean(), anyJson),
    extra: anyJson,
  },
  { requiredKeys: [] },
);

// URLs the verifier may be pointed at: a closed local port (refused at once) or not a URL. Never the internet: there
// is none here, and a hanging address would only measure timeouts.
const closedOrMalformedUrl = fc.oneof(
  fc.constantFrom("http://127.0.0.1:9", "ftp://x", "file:///etc/passwd", "http://user:pw@127.0.0.1:9/"),
  fc.string({ maxLength: 50 }),
);

// Each test sends its runs one after another; on a loaded 2-core machine the longest takes over two minutes, and a
// timed-out test's runs would go on into the next test's count. The timeout is a guard against a hang, not a goal.
describe("fuzzing every route", { timeout: 360_000 }, () => {
  it(`chat: ${RUNS.chat} malformed bodies and payment headers`, async () => {
    const before = await moneySnapshot();
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          chatBody.map((b) => JSON.stringify(b)),
          junkText,
        ),
        fc.option(base64ish, { nil: undefined }),
        fc.constantFrom("X-Payment", "PAYMENT-SIGNATURE"),
        async (body, header, name) => {
          await send("chat", post("/api/v1/chat/completions", body, header === undefined ? {} : { [name]: header }));
        },
      ),
      { numRuns: RUNS.chat },
    );
    expect(sent).toBe(RUNS.chat);
    expect(await moneySnapshot()).toBe(before);
  });

  it(`chat: ${RUNS.paidHeaders} mutations of a real, already served payment header and payload`, async () => {
    const before = await moneySnapshot();
    const payload = decodePaymentSignatureHeader(realHeader) as unknown as Record<string, unknown>;
    const body = JSON.stringify({ model: "local/echo-1", messages: [{ role: "user", content: "fuzz seed" }] });
    const mutatedPayload = fc.oneof(
      // Same transaction, other bytes around it: a replay in disguise.
      anyJson.map((extra) => ({ ...payload, extra })),
      // One field of the payload replaced.
      fc
        .tuple(fc.constantFrom("x402Version", "accepted", "payload", "resource"), anyJson)
        .map(([k, v]) => ({ ...payload, [k]: v })),
      // One field of the accepted requirement replaced.
      fc
        .tuple(fc.constantFrom("scheme", "network", "amount", "asset", "payTo", "maxTimeoutSeconds", "extra"), anyJson)
        .map(([k, v]) => ({ ...payload, accepted: { ...(payload.accepted as object), [k]: v } })),
      // The signed transaction with one byte flipped, or replaced.
      fc.tuple(fc.nat(), fc.integer({ min: 1, max: 255 })).map(([at, xor]) => {
        const tx = Buffer.from((payload.payload as { transaction: string }).transaction, "base64");
        tx[at % tx.length]! ^= xor;
        return { ...payload, payload: { transaction: tx.toString("base64") } };
      }),
      base64ish.map((t) => ({ ...payload, payload: { transaction: t } })),
    );
    await fc.assert(
      fc.asyncProperty(mutatedPayload, async (p) => {
        let header: string;
        try {
          header = encodePaymentSignatureHeader(p as never);
        } catch {
          header = Buffer.from(JSON.stringify(p)).toString("base64");
        }
        const answer = await sendForAnswer("chat", post("/api/v1/chat/completions", body, { "X-Payment": header }));
        // The same payment with the same body may only get the served call's stored answer, never a new call.
        if (answer.status === 200) {
          expect(answer.replayed).toBe("true");
          expect((JSON.parse(answer.text) as { id: string }).id).toBe((realResponse as { id: string }).id);
        }
      }),
      { numRuns: RUNS.paidHeaders },
    );
    expect(sent).toBe(RUNS.paidHeaders);
    expect(await moneySnapshot()).toBe(before);
  });

  it(`chat: ${RUNS.v1Headers} x402 v1 payloads, the real served transaction among them`, async () => {
    const before = await moneySnapshot();
    const real = decodePaymentSignatureHeader(realHeader) as unknown as { payload: { transaction: string } };
    const body = JSON.stringify({ model: "local/echo-1", messages: [{ role: "user", content: "fuzz seed" }] });
    const v1Network = fc.oneof(
      fc.constantFrom("solana-devnet", "solana", "base-sepolia", "base", "solana-testnet", "avalanche", ""),
      fc.string({ maxLength: 20 }),
      anyJson,
    );
    const v1Inner = fc.oneof(
      fc.constant(real.payload),
      fc.tuple(fc.nat(), fc.integer({ min: 1, max: 255 })).map(([at, xor]) => {
        const tx = Buffer.from(real.payload.transaction, "base64");
        tx[at % tx.length]! ^= xor;
        return { transaction: tx.toString("base64") };
      }),
      fc.record({ signature: fc.string({ maxLength: 140 }), authorization: anyJson }, { requiredKeys: [] }),
      anyJson,
    );
    const v1Payload = fc.record(
      {
        x402Version: fc.oneof(fc.constant(1), anyJson),
        scheme: fc.oneof(fc.constant("exact"), fc.string({ maxLength: 10 }), anyJson),
        network: v1Network,
        payload: v1Inner,
      },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(v1Payload, fc.constantFrom("X-PAYMENT", "PAYMENT-SIGNATURE"), async (p, name) => {
        const answer = await sendForAnswer(
          "chat",
          post("/api/v1/chat/completions", body, { [name]: Buffer.from(JSON.stringify(p)).toString("base64") }),
        );
        // The served transaction in v1's form is the same payment: at most its stored answer, never a new call.
        if (answer.status === 200) {
          expect(answer.replayed).toBe("true");
          expect((JSON.parse(answer.text) as { id: string }).id).toBe((realResponse as { id: string }).id);
        }
      }),
      { numRuns: RUNS.v1Headers },
    );
    expect(sent).toBe(RUNS.v1Headers);
    expect(await moneySnapshot()).toBe(before);
  });

  it(`responses: ${RUNS.responses} malformed Responses API bodies, payment headers and signatures`, async () => {
    const before = await moneySnapshot();
    const inputItem = fc.record(
      {
        role: fc.oneof(fc.constantFrom("user", "system", "developer", "assistant"), fc.string({ maxLength: 10 })),
        content: fc.oneof(fc.string({ maxLength: 100 }), anyJson),
        type: fc.oneof(fc.constant("message"), fc.string({ maxLength: 10 })),
      },
      { requiredKeys: [] },
    );
    const responsesBody = fc.record(
      {
        model: fc.oneof(fc.constantFrom("local/echo-1", ""), fc.string({ maxLength: 40 }), anyJson),
        input: fc.oneof(fc.string({ maxLength: 200 }), fc.array(inputItem, { maxLength: 4 }), anyJson),
        instructions: fc.oneof(fc.string({ maxLength: 100 }), anyJson),
        stream: fc.oneof(fc.boolean(), anyJson),
        store: fc.oneof(fc.boolean(), anyJson),
        previous_response_id: fc.oneof(fc.string({ maxLength: 40 }), anyJson),
        max_output_tokens: fc.oneof(fc.integer(), fc.double(), anyJson),
        text: anyJson,
        tools: anyJson,
        network,
        nonce: fc.oneof(fc.string({ maxLength: 70 }), anyJson),
        timestamp: fc.oneof(fc.integer(), anyJson),
      },
      { requiredKeys: [] },
    );
    const auth = fc.oneof(
      fc.constant({}),
      fc
        .option(base64ish, { nil: undefined })
        .map((h): Record<string, string> => (h === undefined ? {} : { "PAYMENT-SIGNATURE": h })),
      fc.tuple(base58ish, base58ish).map(([k, s]) => ({ "X-Agent-Pubkey": k, "X-Agent-Signature": s })),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          responsesBody.map((b) => JSON.stringify(b)),
          junkText,
        ),
        auth,
        async (body, headers) => {
          await send("responses", post("/api/v1/responses", body, headers));
        },
      ),
      { numRuns: RUNS.responses },
    );
    expect(sent).toBe(RUNS.responses);
    expect(await moneySnapshot()).toBe(before);
  });

  it(`inference: ${RUNS.inference} malformed signed requests`, async () => {
    const before = await moneySnapshot();
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          chatBody.map((b) => JSON.stringify({ ...b, prompt: "x", nonce: "n".repeat(20), timestamp: Date.now() })),
          junkText,
        ),
        base58ish,
        base58ish,
        async (body, pubkey, signature) => {
          await send(
            "inference",
            post("/api/v1/inference", body, { "X-Agent-Pubkey": pubkey, "X-Agent-Signature": signature }),
          );
        },
      ),
      { numRuns: RUNS.inference },
    );
    expect(sent).toBe(RUNS.inference);
    expect(await moneySnapshot()).toBe(before);
  });

  it(`embeddings: ${RUNS.embeddings} malformed bodies, payment headers and signed requests`, async () => {
    const before = await moneySnapshot();
    const tokenIds = fc.array(fc.oneof(fc.nat(), fc.integer(), fc.double()), { maxLength: 8 });
    const embeddingsBody = fc.record(
      {
        model: fc.oneof(
          fc.constantFrom("local/hash-embed-1", "openai/text-embedding-3-small", "local/echo-1", ""),
          fc.string({ maxLength: 40 }),
          anyJson,
        ),
        input: fc.oneof(
          fc.string({ unit: "binary", maxLength: 200 }),
          fc.array(fc.string({ unit: "binary", maxLength: 40 }), { maxLength: 5 }),
          tokenIds,
          fc.array(tokenIds, { maxLength: 4 }),
          anyJson,
        ),
        encoding_format: fc.oneof(fc.constantFrom("float", "base64", "int8", ""), anyJson),
        dimensions: fc.oneof(fc.integer({ min: -5, max: 20_000 }), fc.double(), anyJson),
        user: fc.oneof(fc.string({ maxLength: 300 }), anyJson),
        network,
        stream: fc.oneof(fc.boolean(), anyJson),
        nonce: fc.oneof(fc.string({ maxLength: 70 }), anyJson),
        timestamp: fc.oneof(fc.integer(), anyJson),
        max_cost_usdc: fc.oneof(fc.double(), fc.string({ maxLength: 12 }), anyJson),
      },
      { requiredKeys: [] },
    );
    // Valid requests, alone or with some fields fuzzed, so that the payment and the credit check are reached too.
    const validBody = fc.record(
      {
        model: fc.constant("local/hash-embed-1"),
        input: fc.oneof(
          fc.string({ unit: "binary", minLength: 1, maxLength: 200 }),
          fc.array(fc.string({ unit: "binary", minLength: 1, maxLength: 40 }), { minLength: 1, maxLength: 5 }),
          fc.array(fc.nat({ max: 100_000 }), { minLength: 1, maxLength: 8 }),
        ),
        encoding_format: fc.constantFrom("float", "base64"),
        dimensions: fc.integer({ min: 1, max: 3_072 }),
      },
      { requiredKeys: ["model", "input"] },
    );
    const anyBody = fc.oneof(
      embeddingsBody,
      validBody,
      fc.tuple(validBody, embeddingsBody).map(([valid, fuzzed]) => ({ ...valid, ...fuzzed })),
    );
    // A key with no credit: its correctly signed requests reach parsing and admission, and can only be refused.
    const uncredited = generateKeypair();
    const url = `${BASE}/api/v1/embeddings`;
    const codes = new Set<string>();
    const auth = fc.oneof(
      fc.constant({ kind: "none" as const }),
      fc
        .tuple(base64ish, fc.constantFrom("X-Payment", "PAYMENT-SIGNATURE"))
        .map(([header, name]) => ({ kind: "paid" as const, header, name })),
      fc.tuple(base58ish, base58ish).map(([pubkey, signature]) => ({ kind: "forged" as const, pubkey, signature })),
      fc.boolean().map((fresh) => ({ kind: "signed" as const, fresh })),
    );
    await fc.assert(
      fc.asyncProperty(fc.oneof(anyBody, junkText), auth, async (generated, a) => {
        // A signed request with fresh replay fields gets past the window and the nonce to the credit check.
        const body =
          typeof generated === "string"
            ? generated
            : JSON.stringify(
                a.kind === "signed" && a.fresh ? { ...generated, nonce: newNonce(), timestamp: Date.now() } : generated,
              );
        const headers: Record<string, string> =
          a.kind === "paid"
            ? { [a.name]: a.header }
            : a.kind === "forged"
              ? { "X-Agent-Pubkey": a.pubkey, "X-Agent-Signature": a.signature }
              : a.kind === "signed"
                ? signRequestHeaders(uncredited, "POST", url, body)
                : {};
        const answer = await sendForAnswer("embeddings", post("/api/v1/embeddings", body, headers));
        expect(answer.status).toBeGreaterThanOrEqual(400);
        codes.add(serviceError(JSON.parse(answer.text)).code);
      }),
      { numRuns: RUNS.embeddings },
    );
    expect(sent).toBe(RUNS.embeddings);
    // The fuzzed requests reached each gate: the body's parse, the payment, the signature and the credit check.
    expect([...codes]).toEqual(
      expect.arrayContaining(["invalid_request", "payment_required", "invalid_signature", "insufficient_credits"]),
    );
    expect(await moneySnapshot()).toBe(before);
  });

  it(`credits: ${RUNS.credits} malformed top-ups`, async () => {
    const before = await moneySnapshot();
    const topUp = fc.record(
      {
        amount_usdc: fc.oneof(fc.double(), fc.string({ maxLength: 12 }), anyJson),
        network,
        agent_pubkey: base58ish,
        more: anyJson,
      },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          topUp.map((b) => JSON.stringify(b)),
          junkText,
        ),
        fc.option(base64ish, { nil: undefined }),
        async (body, header) => {
          await send("credits", post("/api/v1/credits", body, header === undefined ? {} : { "X-Payment": header }));
        },
      ),
      { numRuns: RUNS.credits },
    );
    expect(sent).toBe(RUNS.credits);
    expect(await moneySnapshot()).toBe(before);
  });

  it(`grants: ${RUNS.grants} malformed challenges and claims`, async () => {
    const before = await moneySnapshot();
    const claim = fc.record(
      { agent_pubkey: base58ish, challenge: fc.oneof(fc.string({ maxLength: 300 }), anyJson), signature: base58ish },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          claim.map((b) => JSON.stringify(b)),
          junkText,
        ),
        base58ish,
        async (body, pubkey) => {
          await send(
            "grantChallenge",
            new Request(`${BASE}/api/v1/grants/challenge?agent_pubkey=${encodeURIComponent(pubkey)}`),
          );
          await send("grants", post("/api/v1/grants", body));
        },
      ),
      { numRuns: RUNS.grants / 2 },
    );
    expect(sent).toBe(RUNS.grants);
    expect(await moneySnapshot()).toBe(before);
  });

  it(`lookups: ${RUNS.lookups} malformed ids, keys and query strings`, async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(base58ish, fc.string({ maxLength: 200 })),
        fc.string({ maxLength: 40 }),
        async (id, query) => {
          const seg = encodeURIComponent(id);
          await send("receipt", new Request(`${BASE}/api/v1/receipts/${seg}`));
          await send(
            "creditsOf",
            new Request(`${BASE}/api/v1/credits/${seg}?network=${encodeURIComponent(query)}`, {
              headers: { "X-Agent-Signature": id },
            }),
          );
          await send("models", new Request(`${BASE}/api/v1/models?${encodeURIComponent(query)}`));
        },
      ),
      { numRuns: RUNS.lookups / 3 },
    );
    expect(sent).toBe(RUNS.lookups);
  });

  it(`hosted verifier: ${RUNS.hostedVerify} malformed verify requests`, async () => {
    const request = fc.record(
      {
        receipt: fc.oneof(anyJson, base64ish),
        prompt: anyJson,
        response: anyJson,
        endpoint: closedOrMalformedUrl,
        rpc: closedOrMalformedUrl,
        operator_key: base58ish,
      },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          request.map((b) => JSON.stringify(b)),
          junkText,
        ),
        async (body) => {
          await send("verify", post("/api/verify", body));
        },
      ),
      { numRuns: RUNS.hostedVerify },
    );
    expect(sent).toBe(RUNS.hostedVerify);
  });
});

describe("a served payment in other bytes", () => {
  it("is the served payment itself: the same request gets its stored answer, another request is refused, and nothing moves", async () => {
    const before = await moneySnapshot();
    const payload = decodePaymentSignatureHeader(realHeader) as unknown as Record<string, unknown>;
    const seedBody = { model: "local/echo-1", messages: [{ role: "user", content: "fuzz seed" }] };
    const otherBody = { model: "local/echo-1", messages: [{ role: "user", content: "another prompt" }] };
    // Outside `payload.payload` the idempotency key does not change: a plain repeat. Inside it, other bytes around the
    // same signed transaction keep the same key too (its message).
    const outer = encodePaymentSignatureHeader({ ...payload, extensions: { note: "other bytes" } } as never);
    const rewrapped = encodePaymentSignatureHeader({
      ...payload,
      payload: { ...(payload.payload as object), note: "same transaction, other bytes" },
    } as never);
    for (const header of [outer, rewrapped]) {
      const again = await stack.chat({ body: seedBody, headers: { "X-Payment": header } });
      expect(again.status).toBe(200);
      expect(again.headers.get("x-answer-replayed")).toBe("true");
      expect(await again.json()).toEqual(realResponse);
      const parsed = parseReceiptText(again.headers.get("x-service-receipt")!);
      expect(parsed.ok && parsed.receipt).toEqual(realReceipt);
      const other = await stack.chat({ body: otherBody, headers: { "X-Payment": header } });
      expect(other.status).toBe(409);
      expect(await other.json()).toMatchObject({ error: { code: "payment_request_mismatch" } });
    }
    expect(await moneySnapshot()).toBe(before);
  });
});

describe("fuzzing the verifier", () => {
  it(`never says ok for ${RUNS.receipts} mutated receipts of a real paid call`, async () => {
    const operatorKey = operatorKeypair().publicKeyBase58;
    const original = canonicalJson(realReceipt);
    const honest = await verifyReceipt({
      receipt: realReceipt,
      prompt: realPrompt,
      response: realResponse,
      operatorKey,
      rpc: stack.devnet.url,
    });
    expect(honest.ok).toBe(true);
    const fields = Object.keys(realReceipt);
    const mutation = fc.oneof(
      fc.tuple(fc.constantFrom(...fields), anyJson).map(([k, v]) => ({ ...realReceipt, [k]: v })),
      fc
        .constantFrom(...fields)
        .map((k) => Object.fromEntries(Object.entries(realReceipt).filter(([key]) => key !== k))),
      fc.tuple(fc.string({ minLength: 1, maxLength: 12 }), anyJson).map(([k, v]) => ({ ...realReceipt, [k]: v })),
      fc
        .tuple(fc.constantFrom("tx_signature", "pay_to", "network", "amount_usdc", "scheme"), anyJson)
        .map(([k, v]) => ({ ...realReceipt, payment: { ...(realReceipt.payment as object), [k]: v } })),
      fc
        .tuple(fc.nat(), fc.constantFrom(..."123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"))
        .map(([at, c]) => {
          const sig = String(realReceipt.service_signature);
          const i = at % sig.length;
          return { ...realReceipt, service_signature: `${sig.slice(0, i)}${c}${sig.slice(i + 1)}` };
        }),
    );
    await fc.assert(
      fc.asyncProperty(mutation, async (mutated) => {
        let text: string;
        try {
          text = canonicalJson(mutated);
        } catch {
          text = "";
        }
        fc.pre(text !== original);
        sent++;
        const verdict = await verifyReceipt({
          receipt: mutated,
          prompt: realPrompt,
          response: realResponse,
          operatorKey,
          rpc: stack.devnet.url,
        }).catch((err: unknown) => {
          // Bad input may be refused with an error; it must never be a pass.
          if (err instanceof Error && /VerifyInputError|VerifierFetchError/.test(err.name)) return { ok: false };
          throw err;
        });
        expect(verdict.ok).toBe(false);
      }),
      { numRuns: RUNS.receipts },
    );
    expect(sent).toBe(RUNS.receipts);
  });

  it("plans more than 10,000 inputs in all, each test sending its share, with no unhandled rejection", () => {
    expect(Object.values(RUNS).reduce((sum, runs) => sum + runs, 0)).toBeGreaterThanOrEqual(10_000);
    expect(unhandled).toEqual([]);
  });
});
