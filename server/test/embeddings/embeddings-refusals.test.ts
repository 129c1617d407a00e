// The embeddings route's refusals on PostgreSQL and the local chain, each with its stable code and nothing moved (no
// ledger entry, balance, hold, payment or logged call changes): from prepaid credit, too little credit, a budget
// (`max_cost_usdc`) under the inputs' worst case, a replayed nonce and a bad signature; paid, an input past its limits,
// `dimensions` out of range and an unknown `encoding_format`, refused before any payment is taken, even with a valid
// payment header beside them. Never a 500.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POST as embeddingsRoute } from "@/app/api/v1/embeddings/route";
import { newNonce, signRequestHeaders } from "../../agent/sign-request";
import { MAX_EMBEDDING_INPUT_CHARS, MAX_EMBEDDINGS_BODY_BYTES } from "../../schemas/embeddings-request-schema";
import { generateKeypair, type Ed25519Keypair } from "../../keys/parse-secret-key";
import { buildPaymentHeader, challengeOf, startPaidStack, type PaidStack } from "../support/paid-stack";

const ORIGIN = "http://signet.test";
const URL_ = `${ORIGIN}/api/v1/embeddings`;
const MODEL = "local/hash-embed-1";

let stack: PaidStack;

beforeAll(async () => {
  stack = await startPaidStack({ env: { X402_FLAT_PRICE_USDC: "0.001", PREPAID_RATE_LIMIT_PER_MINUTE: "100000" } });
}, 120_000);
afterAll(async () => stack?.close());

/** Every row that money or a served call moves, as text. */
async function moneySnapshot(): Promise<string> {
  const p = stack.tdb.prisma;
  return JSON.stringify(
    {
      ledger: await p.ledgerEntry.findMany({ orderBy: { id: "asc" } }),
      balances: await p.balance.findMany({ orderBy: [{ agentPubkey: "asc" }, { network: "asc" }] }),
      holds: await p.creditHold.findMany({ orderBy: { id: "asc" } }),
      payments: await p.payment.findMany({ orderBy: { id: "asc" }, select: { id: true, status: true, units: true } }),
      calls: await p.inferenceLog.findMany({ orderBy: { id: "asc" }, select: { id: true, status: true } }),
    },
    (_k, v: unknown) => (typeof v === "bigint" ? v.toString() : v),
  );
}

/** Answers `res` as the refusal `code` with `status`, in OpenAI's error shape; returns the error object. */
async function expectRefusal(res: Response, status: number, code: string): Promise<Record<string, unknown>> {
  const text = await res.text();
  expect(res.status, text).toBe(status);
  const body = JSON.parse(text) as { error: Record<string, unknown> };
  expect(body.error).toMatchObject({ code, message: expect.any(String), type: expect.any(String) });
  return body.error;
}

const post = (body: string, headers: Record<string, string> = {}) =>
  embeddingsRoute(
    new Request(URL_, { method: "POST", headers: { "content-type": "application/json", ...headers }, body }),
    {},
  );

/** The exact bytes of a signed request and its headers, signed by `kp` for `url`. */
function signed(
  kp: Ed25519Keypair,
  body: Record<string, unknown>,
  url = URL_,
): { text: string; headers: Record<string, string> } {
  const text = JSON.stringify({ nonce: newNonce(), timestamp: Date.now(), ...body });
  return { text, headers: signRequestHeaders(kp, "POST", url, text) };
}

async function creditedKey(units: bigint): Promise<Ed25519Keypair> {
  const kp = generateKeypair();
  await stack.credit(kp.publicKeyBase58, units);
  return kp;
}

describe("prepaid embeddings refusals", () => {
  it("refuses too little credit for the inputs' worst case with 402 insufficient_credits and the balance, taking nothing", async () => {
    const kp = await creditedKey(1n);
    const before = await moneySnapshot();
    const { text, headers } = signed(kp, { model: MODEL, input: "x".repeat(1_000) });
    const error = await expectRefusal(await post(text, headers), 402, "insufficient_credits");
    expect(error).toMatchObject({ balance_usdc: "0.000001" });
    expect(await moneySnapshot()).toBe(before);
  });

  it("refuses a max_cost_usdc under the inputs' worst case with 400 invalid_request naming it, taking nothing", async () => {
    const kp = await creditedKey(1_000_000n);
    const before = await moneySnapshot();
    const { text, headers } = signed(kp, { model: MODEL, input: "x".repeat(1_000), max_cost_usdc: 0.000001 });
    const error = await expectRefusal(await post(text, headers), 400, "invalid_request");
    expect(error).toMatchObject({ param: "max_cost_usdc" });
    expect(error.message).toMatch(/^max_cost_usdc is too low/);
    expect(await moneySnapshot()).toBe(before);
    // The same inputs under a budget that covers them are served.
    const covered = signed(kp, { model: MODEL, input: "x".repeat(1_000), max_cost_usdc: 0.01 });
    expect((await post(covered.text, covered.headers)).status).toBe(200);
  });

  it("refuses the same signed request again with 409 nonce_replay: one call served, one charge", async () => {
    const kp = await creditedKey(1_000_000n);
    const { text, headers } = signed(kp, { model: MODEL, input: ["once", "only"] });
    expect((await post(text, headers)).status).toBe(200);
    const afterFirst = await moneySnapshot();
    await expectRefusal(await post(text, headers), 409, "nonce_replay");
    expect(await moneySnapshot()).toBe(afterFirst);
    expect(await stack.tdb.prisma.creditHold.count({ where: { agentPubkey: kp.publicKeyBase58 } })).toBe(1);
  });

  it("refuses a signature over other bytes, for another path, or by another key with 401 invalid_signature, taking nothing", async () => {
    const kp = await creditedKey(1_000_000n);
    const before = await moneySnapshot();
    const { text, headers } = signed(kp, { model: MODEL, input: "signed" });
    const otherBytes = { ...headers, ...signRequestHeaders(kp, "POST", URL_, `${text} `) };
    const otherPath = signRequestHeaders(kp, "POST", `${ORIGIN}/api/v1/inference`, text);
    const otherKey = {
      ...signRequestHeaders(generateKeypair(), "POST", URL_, text),
      "X-Agent-Pubkey": kp.publicKeyBase58,
    };
    for (const h of [otherBytes, otherPath, otherKey])
      await expectRefusal(await post(text, h), 401, "invalid_signature");
    await expectRefusal(await post(text, { "X-Agent-Pubkey": kp.publicKeyBase58 }), 401, "missing_auth_headers");
    expect(await moneySnapshot()).toBe(before);
  });

  it("refuses a signed request without its replay fields with 400 invalid_request naming the field", async () => {
    const kp = await creditedKey(1_000_000n);
    const before = await moneySnapshot();
    const text = JSON.stringify({ model: MODEL, input: "no nonce", timestamp: Date.now() });
    const error = await expectRefusal(
      await post(text, signRequestHeaders(kp, "POST", URL_, text)),
      400,
      "invalid_request",
    );
    expect(error).toMatchObject({ param: "nonce" });
    expect(await moneySnapshot()).toBe(before);
  });
});

describe("paid embeddings refusals, before any payment", () => {
  /** A valid payment header for a valid embeddings request: sent beside a refused body, it must never be taken. */
  let paymentHeader: string;
  beforeAll(async () => {
    const agent = await stack.newAgent();
    const challenge = await challengeOf(await post(JSON.stringify({ model: MODEL, input: "valid" })));
    paymentHeader = await buildPaymentHeader(agent, challenge, stack.devnet.url);
  });

  it.each([
    ["an input past the longest text", { input: "x".repeat(MAX_EMBEDDING_INPUT_CHARS + 1) }, "input"],
    ["dimensions of 0", { input: "hi", dimensions: 0 }, "dimensions"],
    ["dimensions past the model's vectors", { input: "hi", dimensions: 3_073 }, "dimensions"],
    ["fractional dimensions", { input: "hi", dimensions: 1.5 }, "dimensions"],
    ["dimensions as a string", { input: "hi", dimensions: "64" }, "dimensions"],
    ["an unknown encoding_format", { input: "hi", encoding_format: "int8" }, "encoding_format"],
    ["an encoding_format that is not a string", { input: "hi", encoding_format: 1 }, "encoding_format"],
  ])(
    "refuses %s with 400 invalid_request naming it, with or without a payment header, taking nothing",
    async (_label, fields, param) => {
      const before = await moneySnapshot();
      const body = JSON.stringify({ model: MODEL, ...fields });
      const headerSets: Record<string, string>[] = [
        {},
        { "PAYMENT-SIGNATURE": paymentHeader },
        { "X-PAYMENT": paymentHeader },
      ];
      for (const headers of headerSets) {
        const error = await expectRefusal(await post(body, headers), 400, "invalid_request");
        expect(error).toMatchObject({ param });
      }
      expect(await moneySnapshot()).toBe(before);
    },
  );

  it("refuses a body past the route's cap with 413 payload_too_large, taking nothing", async () => {
    const before = await moneySnapshot();
    const body = JSON.stringify({ model: MODEL, input: ["x".repeat(MAX_EMBEDDINGS_BODY_BYTES)] });
    await expectRefusal(await post(body, { "PAYMENT-SIGNATURE": paymentHeader }), 413, "payload_too_large");
    expect(await moneySnapshot()).toBe(before);
  });

  it("still takes the payment header for the request it was made for (the refusals above did not spend it)", async () => {
    const res = await post(JSON.stringify({ model: MODEL, input: "valid" }), { "PAYMENT-SIGNATURE": paymentHeader });
    expect(res.status, await res.clone().text()).toBe(200);
    expect(res.headers.get("x-answer-replayed")).toBeNull();
  });
});
