// A property of the whole paid path: whatever a model answers, each call is one payment, one upstream call, one
// receipt and one charge. fast-check makes answers from the whole UTF-16 range (U+0000, lone surrogates, U+2028/2029,
// BOMs, escapes that only look like escapes, very long strings); a scripted provider (a real HTTP server speaking
// OpenAI's protocol) answers them, a stream in pieces cut anywhere, a surrogate pair included; each goes through paid
// chat and paid Responses, plain and streamed, on Solana and on Base, and through the prepaid route. After each call:
// exactly one upstream call, one receipt, which verifies against what the client read, a repeat of a paid call gets the
// same answer and receipts, moving nothing; at the end, no payment is left with its upstream called and its call
// unrecorded, the ledger matches the receipts, and reconcile finds no drift. `npm test` runs a few batches; set
// SIGNET_CONTENT_RUNS for more, and SIGNET_CONTENT_SEED to replay a run (each run prints its seed). `signet verify`
// itself checks a handful of the worst contents. Embeddings inputs of the same contents (texts, alone or listed, on the
// built-in model, answered in float or base64, paid on Solana or from credit) are embedded once, charged once, and
// their receipt's hashes verify against the request and the answer.
import { randomUUID } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POST as embeddingsRoute } from "@/app/api/v1/embeddings/route";
import { newNonce, signRequestHeaders } from "../../agent/sign-request";
import { generateKeypair } from "../../keys/parse-secret-key";
import { reconcile } from "../../reconcile/reconcile";
import { routeRuntime } from "../../runtime/route-edge";
import { parseReceiptText, verifyReceipt } from "../../verify";
import { operatorKeypair, testKnob } from "../support/env";
import { authorizationHeader } from "../support/eip3009-header";
import {
  startFakeProvider,
  type FakeProvider,
  type ProviderAnswer,
  type StreamedProviderAnswer,
} from "../support/fake-provider";
import { buildPaymentHeader, challengeOf, startPaidStack, type PaidStack } from "../support/paid-stack";
import {
  paidBody,
  readAnswer,
  routeFetch,
  ROUTE_PATHS,
  SERVICE_ORIGIN,
  signedCall,
  type ReadAnswer,
} from "../support/route-calls";
import { runSignet } from "../support/signet-cli";

const MODEL = "openai/gpt-4o-mini";
/** Calls a run sends side by side: each is its own payer, as concurrent agents are. */
const BATCH = 4;
/** Runs in `npm test` (a bounded number of calls under a minute); SIGNET_CONTENT_RUNS asks for more. */
const RUNS = testKnob("SIGNET_CONTENT_RUNS", 12);
const SEED = testKnob("SIGNET_CONTENT_SEED", Date.now() % 2_147_483_647);

/** Every way a call is paid and read. */
const PATHS = [
  { route: "chat", pay: "solana", stream: false },
  { route: "chat", pay: "solana", stream: true },
  { route: "chat", pay: "base", stream: false },
  { route: "chat", pay: "base", stream: true },
  { route: "responses", pay: "solana", stream: false },
  { route: "responses", pay: "solana", stream: true },
  { route: "responses", pay: "base", stream: false },
  { route: "responses", pay: "base", stream: true },
  { route: "inference", pay: "prepaid", stream: false },
  { route: "inference", pay: "prepaid", stream: true },
  { route: "responses", pay: "prepaid", stream: false },
  { route: "responses", pay: "prepaid", stream: true },
] as const;
type CallPath = (typeof PATHS)[number];

/** Pieces that break text where decoders and encoders break: escapes, separators, a BOM, surrogates alone and paired. */
const NASTY = [
  "\u0000",
  "\ud800",
  "\udbff",
  "\udc00",
  "\udfff",
  "\ud83d\ude00",
  "\u2028",
  "\u2029",
  "\ufeff",
  "\ufffe",
  "\uffff",
  "\u0085",
  "\\u0000",
  "\\ud800",
  '\\"',
  '"',
  "\\",
  "\n",
  "\r\n",
  "\t",
  "é",
  "</script>",
  "data: [DONE]\n\n",
  " ",
];

const contentArb: fc.Arbitrary<string> = fc.oneof(
  { weight: 5, arbitrary: fc.string({ unit: "binary", maxLength: 400 }) },
  {
    weight: 4,
    arbitrary: fc
      .array(fc.oneof(fc.constantFrom(...NASTY), fc.string({ unit: "binary", maxLength: 3 })), { maxLength: 80 })
      .map((parts) => parts.join("")),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(
        fc.constantFrom("a", "\u0000", "\ud800", "\ud83d\ude00", "\u2028"),
        fc.integer({ min: 20_000, max: 300_000 }),
      )
      .map(([unit, n]) => unit.repeat(n)),
  },
);
const caseArb = fc.record({
  path: fc.constantFrom(...PATHS),
  content: contentArb,
  cuts: fc.array(fc.nat(), { maxLength: 8 }),
});
type Case = { path: CallPath; content: string; cuts: number[] };

/** What the provider answers to each call's marker (the question it is asked), and how often it was asked. */
const scripts = new Map<string, { content: string; cuts: number[]; calls: number }>();
let provider: FakeProvider;
let stack: PaidStack;
const routes = routeFetch();
let checked = 0;
const seen = new Map<string, number>();

beforeAll(async () => {
  provider = await startFakeProvider(({ body }) => {
    const messages = body.messages as { role: string; content: unknown }[];
    const marker = String(messages.at(-1)?.content);
    const script = scripts.get(marker);
    if (!script) throw new Error(`no script for ${marker.slice(0, 60)}`);
    script.calls++;
    return body.stream ? streamedAnswer(script) : plainAnswer(script.content);
  });
  stack = await startPaidStack({
    evm: true,
    env: {
      X402_FLAT_PRICE_USDC: "0.01",
      UPSTREAM_API_KEY: "sk-test",
      SERVICE_TESTNET_PROVIDER_MODELS: "true",
      UPSTREAM_BASE_URL: provider.url,
      UPSTREAM_PROVIDER_NAME: "openrouter",
      PREPAID_RATE_LIMIT_PER_MINUTE: "1000000",
    },
  });
});
afterAll(async () => {
  await stack?.close();
  await provider?.close();
});

const USAGE = { prompt_tokens: 20, completion_tokens: 40, total_tokens: 60, cost: 0.00005 };

function plainAnswer(content: string): ProviderAnswer {
  return {
    status: 200,
    json: {
      id: "gen-any",
      model: MODEL,
      choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }],
      usage: USAGE,
    },
  };
}

/** The answer streamed as OpenAI streams it, its text cut at the script's code-unit offsets (a surrogate pair too). */
function streamedAnswer(script: { content: string; cuts: number[] }): StreamedProviderAnswer {
  const chunk = (delta: unknown, finish: string | null = null) => ({
    id: "gen-any",
    object: "chat.completion.chunk",
    created: 1,
    model: MODEL,
    choices: [{ index: 0, delta, finish_reason: finish }],
  });
  const at = [...new Set(script.cuts.map((c) => (script.content.length === 0 ? 0 : c % script.content.length)))].sort(
    (a, b) => a - b,
  );
  const pieces = [0, ...at, script.content.length]
    .slice(1)
    .map((end, i, ends) => script.content.slice(i === 0 ? 0 : ends[i - 1], end));
  return {
    status: 200,
    events: [
      chunk({ role: "assistant", content: "" }),
      ...pieces.filter((p) => p !== "").map((p) => chunk({ content: p })),
      chunk({}, "stop"),
      { id: "gen-any", choices: [], usage: USAGE },
      "[DONE]",
    ],
  };
}

const post = (route: "chat" | "responses", body: unknown, headers: Record<string, string> = {}) =>
  routes.fetch(`${SERVICE_ORIGIN}${ROUTE_PATHS[route]}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });

/** EVM agents are funded one at a time: anvil's minting account takes one transaction per nonce. */
let evmFunding: Promise<unknown> = Promise.resolve();
function fundedEvmAgent(): ReturnType<PaidStack["newEvmAgent"]> {
  const agent = evmFunding.then(() => stack.newEvmAgent(1_000_000n));
  evmFunding = agent.catch(() => undefined);
  return agent;
}

/** A fresh payer's payment header for `body`'s challenge, on Solana or Base. */
async function paymentHeader(
  route: "chat" | "responses",
  body: Record<string, unknown>,
  pay: "solana" | "base",
): Promise<string> {
  const challenge = await challengeOf(await post(route, body));
  if (pay === "base") return authorizationHeader(await fundedEvmAgent(), challenge);
  return buildPaymentHeader(await stack.newAgent(1_000_000n), challenge, stack.devnet.faultFreeUrl);
}

const allChecks = {
  prompt_hash_ok: true,
  response_hash_ok: true,
  service_signature_ok: true,
  payment_on_chain_ok: true,
  payer_matches: true,
};

/** One call of the case, its repeat when paid, and every per-call invariant; returns what the client read and asked. */
async function runCase(c: Case): Promise<{ answer: ReadAnswer; prompt: unknown }> {
  const { path: p, content } = c;
  const marker = `any-content ${randomUUID()}`;
  scripts.set(marker, { content, cuts: c.cuts, calls: 0 });
  const expected = content.toWellFormed();
  let first: ReadAnswer;
  let prompt: unknown;
  if (p.pay === "prepaid") {
    const kp = generateKeypair();
    await stack.credit(kp.publicKeyBase58, 1_000_000n);
    const call = signedCall(kp, p.route as "inference" | "responses", marker, { stream: p.stream, model: MODEL });
    prompt = p.route === "responses" ? call.body : call.body.messages;
    first = await readAnswer(await routes.fetch(call.request), p.route, p.stream);
    const holds = await stack.tdb.prisma.creditHold.findMany({ where: { agentPubkey: kp.publicKeyBase58 } });
    expect(holds.map((h) => h.status)).toEqual(["captured"]);
    expect(
      (await stack.tdb.prisma.balance.findFirstOrThrow({ where: { agentPubkey: kp.publicKeyBase58 } })).units,
    ).toBe(1_000_000n - holds[0]!.chargedUnits!);
  } else {
    const route = p.route as "chat" | "responses";
    const body = paidBody(route, marker, {
      stream: p.stream,
      model: MODEL,
      ...(p.pay === "base" ? { network: "base-sepolia" } : {}),
    });
    prompt = route === "responses" ? body : body.messages;
    const header = await paymentHeader(route, body, p.pay);
    first = await readAnswer(await post(route, body, { "PAYMENT-SIGNATURE": header }), route, p.stream);
    // A settlement whose confirmation outlasts the wait (a loaded machine, a slow block) is 502 settlement_pending:
    // a client sends the same request again after retry_after, and that request is the one served.
    for (let retries = 0; first.error?.code === "settlement_pending" && retries < 5; retries++) {
      await new Promise((r) => setTimeout(r, Number(first.error!.retry_after ?? 1) * 1_000));
      first = await readAnswer(await post(route, body, { "PAYMENT-SIGNATURE": header }), route, p.stream);
    }
    expect(first.error).toBeNull();
    const repeat = await readAnswer(await post(route, body, { "PAYMENT-SIGNATURE": header }), route, p.stream);
    expect({
      status: repeat.status,
      replayed: repeat.replayed,
      text: repeat.text,
      receipt: repeat.receipt,
      x402: repeat.x402,
    }).toEqual({ status: 200, replayed: true, text: first.text, receipt: first.receipt, x402: first.x402 });
    const payment = await stack.tdb.prisma.payment.findFirstOrThrow({
      where: { txSignature: first.receipt!.payment!.tx_signature },
    });
    expect(payment.status).toBe("served");
    expect(await stack.tdb.prisma.inferenceLog.count({ where: { paymentId: payment.id } })).toBe(1);
  }
  expect(first.error).toBeNull();
  expect(first.status).toBe(200);
  expect(first.text).toBe(expected);
  expect(scripts.get(marker)!.calls).toBe(1);
  const logged = await stack.tdb.prisma.inferenceLog.findMany({ where: { id: String(first.receipt!.inference_id) } });
  expect(logged.map((l) => l.receipt !== null)).toEqual([true]);
  const rpc = p.pay === "base" ? stack.baseSepolia!.url : stack.devnet.url;
  const verdict = await verifyReceipt({
    receipt: first.receipt!,
    prompt,
    response: first.response,
    operatorKey: operatorKeypair().publicKeyBase58,
    rpc,
  });
  expect(verdict.checks).toEqual(allChecks);
  scripts.delete(marker);
  checked++;
  const key = `${p.route} ${p.pay}${p.stream ? " stream" : ""}`;
  seen.set(key, (seen.get(key) ?? 0) + 1);
  return { answer: first, prompt };
}

/** Embeddings runs in `npm test` (each a batch of BATCH calls); SIGNET_EMBEDDINGS_CONTENT_RUNS asks for more. */
const EMBEDDINGS_RUNS = testKnob("SIGNET_EMBEDDINGS_CONTENT_RUNS", 6);
/**
 * The longest text an embeddings case sends: a NUL or a lone surrogate is 6 bytes of JSON, so three of these stay under
 * the route's body cap (256,000 bytes), which a longer input would meet first as a 413.
 */
const EMBEDDINGS_INPUT_CHARS = 8_000;
const embeddingsCaseArb = fc.record({
  pay: fc.constantFrom("solana" as const, "prepaid" as const),
  contents: fc.array(contentArb, { minLength: 1, maxLength: 3 }),
  listed: fc.boolean(),
  base64: fc.boolean(),
});
type EmbeddingsCase = typeof embeddingsCaseArb extends fc.Arbitrary<infer T> ? T : never;
const EMBEDDINGS_URL = `${SERVICE_ORIGIN}/api/v1/embeddings`;
const postEmbeddings = (text: string, headers: Record<string, string> = {}) =>
  embeddingsRoute(
    new Request(EMBEDDINGS_URL, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: text,
    }),
    {},
  );
let embeddingsChecked = 0;

/** One embeddings call of the case (and its repeat when paid): one charge, one receipt, which verifies. */
async function runEmbeddingsCase(c: EmbeddingsCase): Promise<void> {
  // An input is a non-empty text; cut anywhere, a surrogate pair may become a lone surrogate, which is content too.
  const texts = c.contents.map((t) => (t === "" ? "\u0000" : t).slice(0, EMBEDDINGS_INPUT_CHARS));
  const input = texts.length === 1 && !c.listed ? texts[0]! : texts;
  let request: Record<string, unknown> = {
    model: "local/hash-embed-1",
    input,
    ...(c.base64 ? { encoding_format: "base64" } : {}),
  };
  let res: Response;
  if (c.pay === "prepaid") {
    const kp = generateKeypair();
    await stack.credit(kp.publicKeyBase58, 1_000_000n);
    request = { ...request, nonce: newNonce(), timestamp: Date.now() };
    const text = JSON.stringify(request);
    res = await postEmbeddings(text, signRequestHeaders(kp, "POST", EMBEDDINGS_URL, text));
    const holds = await stack.tdb.prisma.creditHold.findMany({ where: { agentPubkey: kp.publicKeyBase58 } });
    expect(holds.map((h) => h.status)).toEqual(["captured"]);
  } else {
    const text = JSON.stringify(request);
    const header = await buildPaymentHeader(
      await stack.newAgent(1_000_000n),
      await challengeOf(await postEmbeddings(text)),
      stack.devnet.faultFreeUrl,
    );
    res = await postEmbeddings(text, { "PAYMENT-SIGNATURE": header });
    // As for chat: a settlement outlasting the wait is 502 settlement_pending, and the same request is served later.
    for (let retries = 0; res.status === 502 && retries < 5; retries++) {
      const pending = (await res.clone().json()) as { error: { code: string; retry_after?: number } };
      if (pending.error.code !== "settlement_pending") break;
      await new Promise((r) => setTimeout(r, Number(pending.error.retry_after ?? 1) * 1_000));
      res = await postEmbeddings(text, { "PAYMENT-SIGNATURE": header });
    }
    const repeat = await postEmbeddings(text, { "PAYMENT-SIGNATURE": header });
    expect(repeat.status).toBe(200);
    expect(repeat.headers.get("x-answer-replayed")).toBe("true");
    expect(parseReceiptText(repeat.headers.get("x-service-receipt") ?? "")).toEqual(
      parseReceiptText(res.headers.get("x-service-receipt") ?? ""),
    );
    expect(await repeat.text()).toBe(await res.clone().text());
  }
  const answerText = await res.text();
  expect(res.status, answerText.slice(0, 300)).toBe(200);
  const answer = JSON.parse(answerText) as { data: { index: number; embedding: unknown }[] };
  expect(answer.data.map((d) => d.index)).toEqual(texts.map((_, i) => i));
  const parsed = parseReceiptText(res.headers.get("x-service-receipt")!);
  if (!parsed.ok) throw new Error("the answer carries no receipt");
  const logged = await stack.tdb.prisma.inferenceLog.findMany({ where: { id: String(parsed.receipt.inference_id) } });
  expect(logged.map((l) => l.receipt !== null)).toEqual([true]);
  const rpc = stack.devnet.url;
  const operatorKey = operatorKeypair().publicKeyBase58;
  expect(
    (await verifyReceipt({ receipt: parsed.receipt, prompt: request, response: answer, operatorKey, rpc })).checks,
  ).toEqual(allChecks);
  // The input alone is the same prompt; the vectors alone (decoded from base64 too) the same response.
  expect(
    (await verifyReceipt({ receipt: parsed.receipt, prompt: input, response: answer, operatorKey, rpc })).checks
      .prompt_hash_ok,
  ).toBe(true);
  embeddingsChecked++;
}

describe("the paid path over any content", () => {
  it(
    "serves every answer once, with one receipt that verifies against what the client read",
    async () => {
      console.log(
        `any-content property: seed ${SEED}, ${RUNS} runs of ${BATCH} calls (replay: SIGNET_CONTENT_SEED=${SEED} SIGNET_CONTENT_RUNS=${RUNS})`,
      );
      await fc.assert(
        fc.asyncProperty(fc.array(caseArb, { minLength: BATCH, maxLength: BATCH }), async (batch) => {
          await Promise.all(batch.map(runCase));
        }),
        { numRuns: RUNS, seed: SEED, endOnFailure: true },
      );
      const db = stack.tdb.prisma;
      // No payment is left with its upstream called and its call unrecorded, nor any hold open.
      expect(
        await db.payment.count({ where: { status: { in: ["settled", "serving", "unserved", "claimed", "pending"] } } }),
      ).toBe(0);
      expect(await db.creditHold.count({ where: { status: "held" } })).toBe(0);
      const reports = await reconcile(await routeRuntime());
      expect(reports.flatMap((r) => r.mismatches)).toEqual([]);
      console.log(
        `any-content property: ${checked} calls checked (${[...seen].map(([k, n]) => `${k}: ${n}`).join(", ")}); reconcile: no drift`,
      );
      expect(checked).toBe(RUNS * BATCH);
    },
    Math.max(300_000, RUNS * BATCH * 3_000),
  );

  it(
    "embeds inputs of any content once per call, with one receipt that verifies against the request and the answer",
    async () => {
      console.log(
        `any-content embeddings: seed ${SEED}, ${EMBEDDINGS_RUNS} runs of ${BATCH} calls (replay: SIGNET_CONTENT_SEED=${SEED} SIGNET_EMBEDDINGS_CONTENT_RUNS=${EMBEDDINGS_RUNS})`,
      );
      const db = stack.tdb.prisma;
      const callsBefore = await db.inferenceLog.count();
      await fc.assert(
        fc.asyncProperty(fc.array(embeddingsCaseArb, { minLength: BATCH, maxLength: BATCH }), async (batch) => {
          await Promise.all(batch.map(runEmbeddingsCase));
        }),
        { numRuns: EMBEDDINGS_RUNS, seed: SEED, endOnFailure: true },
      );
      expect(embeddingsChecked).toBe(EMBEDDINGS_RUNS * BATCH);
      // One logged call per call (a paid repeat is its stored answer), no payment left half-served, no hold left open.
      expect(await db.inferenceLog.count()).toBe(callsBefore + EMBEDDINGS_RUNS * BATCH);
      expect(
        await db.payment.count({ where: { status: { in: ["settled", "serving", "unserved", "claimed", "pending"] } } }),
      ).toBe(0);
      expect(await db.creditHold.count({ where: { status: "held" } })).toBe(0);
      const reports = await reconcile(await routeRuntime());
      expect(reports.flatMap((r) => r.mismatches)).toEqual([]);
    },
    Math.max(300_000, EMBEDDINGS_RUNS * BATCH * 3_000),
  );

  it("`signet verify` passes each receipt of the worst contents against what the client read", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "signet-any-content-"));
    const worst = [
      "x\u0000y",
      "\ud800 alone \udfff",
      "\u2028\u2029\ufeff",
      "\\u0000 and \\ud800 are text",
      "\ud83d\ude00".repeat(3000),
    ];
    for (const [i, content] of worst.entries()) {
      for (const p of [PATHS[0], PATHS[1], PATHS[5], PATHS[9]]) {
        const { answer, prompt } = await runCase({ path: p, content, cuts: [1, 3, 7] });
        const files = {
          receipt: path.join(dir, `${i}-r.json`),
          prompt: path.join(dir, `${i}-p.json`),
          response: path.join(dir, `${i}-a.json`),
        };
        writeFileSync(files.receipt, JSON.stringify(answer.receipt));
        writeFileSync(files.response, JSON.stringify(answer.response));
        writeFileSync(files.prompt, JSON.stringify(prompt));
        const run = await runSignet(
          [
            "verify",
            "--receipt",
            files.receipt,
            "--prompt",
            files.prompt,
            "--response",
            files.response,
            "--operator-key",
            operatorKeypair().publicKeyBase58,
            "--rpc",
            stack.devnet.url,
            "--json",
          ],
          dir,
        );
        expect(run.code, run.stderr || run.stdout).toBe(0);
        expect(JSON.parse(run.stdout)).toMatchObject({ ok: true, checks: allChecks });
      }
    }
  }, 300_000);
});
