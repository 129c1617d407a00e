// The upstream facade's embeddings (createUpstream().embed()) against the fake provider, a local HTTP server speaking
// OpenAI's and OpenRouter's protocol; and the building blocks of the embeddings route chained as the route will chain
// them: parse the request, embed, write the body, hash.
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { systemClock } from "../../clock";
import { embeddingsRequestSchema, type EmbeddingsRequest } from "../../schemas/embeddings-request-schema";
import { embeddingsResponseBody, embeddingsResponseSchema } from "../../schemas/embeddings-response-body";
import { parseWith } from "../../http/parse-with";
import {
  createUpstream,
  findEmbeddingModel,
  LOCAL_EMBEDDING_MODEL_ID,
  UpstreamError,
  worstCaseEmbeddingCostUnits,
  type EmbeddingCatalogModel,
  type EmbeddingRequest,
  type Embeddings,
} from "../../upstream";
import {
  embeddingInputsOf,
  embeddingsPromptHash,
  embeddingsResponseHash,
  float32VectorOf,
  promptHashCandidates,
  responseHash,
} from "../../verify";
import {
  embeddingsAnswer,
  failureAnswer,
  startFakeProvider,
  type FakeProvider,
  type ProviderAnswer,
  type ProviderRequest,
} from "../support/fake-provider";

const MODEL = "openai/text-embedding-3-small";
const VECTORS = [
  [0.1, -0.2, 0.3],
  [0.4, 0.5, -0.6],
];
const nodeSha256 = () => createHash("sha256");

let answer: (req: ProviderRequest) => ProviderAnswer | Promise<ProviderAnswer> = () => {
  throw new Error("no answer set");
};
const seen: ProviderRequest[] = [];
let provider: FakeProvider;

beforeAll(async () => {
  provider = await startFakeProvider((req) => {
    seen.push(req);
    return answer(req);
  });
});
afterAll(() => provider.close());

const upstream = (timeoutMs = 1_000) =>
  createUpstream({
    baseUrl: provider.url,
    apiKey: "sk-test",
    timeoutMs,
    providerName: "openrouter",
    clock: systemClock,
  });
const keyless = () =>
  createUpstream({ baseUrl: "http://127.0.0.1:1", timeoutMs: 100, providerName: "openrouter", clock: systemClock });
const req: EmbeddingRequest = { model: MODEL, input: ["first text", "second text"], dimensions: 3 };
const failure = async (promise: Promise<unknown>) =>
  (await promise.then(
    () => null,
    (e: unknown) => e,
  )) as UpstreamError;

describe("createUpstream().embed() against an OpenAI-compatible provider", () => {
  it("POSTs {base}/embeddings with the key and the request as sent, and reads a float answer priced with the reported cost", async () => {
    answer = () => embeddingsAnswer(MODEL, VECTORS, { prompt_tokens: 7, cost: 0.00000014 });
    const before = seen.length;
    const e = await upstream().embed({ ...req, encoding_format: "float", user: "user-1" });
    expect(seen.slice(before).map(({ path, authorization, body }) => ({ path, authorization, body }))).toEqual([
      {
        path: "/api/v1/embeddings",
        authorization: "Bearer sk-test",
        body: {
          model: MODEL,
          input: ["first text", "second text"],
          dimensions: 3,
          encoding_format: "float",
          user: "user-1",
        },
      },
    ]);
    // 0.00000014 USD is 0.14 units: rounded up to one.
    expect(e).toMatchObject({
      model: MODEL,
      usage: { prompt_tokens: 7, total_tokens: 7 },
      costUnits: 1n,
      upstream: "openrouter",
    });
    expect(e.vectors).toEqual(VECTORS.map((v) => float32VectorOf(v)));
  });

  it("reads a base64 answer as the same float32 values, so both encodings give one response hash", async () => {
    answer = () => embeddingsAnswer(MODEL, VECTORS, { prompt_tokens: 7 }, "base64");
    const fromBase64 = await upstream().embed({ ...req, encoding_format: "base64" });
    expect(seen.at(-1)?.body).toMatchObject({ encoding_format: "base64" });
    answer = () => embeddingsAnswer(MODEL, VECTORS, { prompt_tokens: 7 });
    const fromFloats = await upstream().embed(req);
    expect(fromBase64.vectors).toEqual(fromFloats.vectors);
    expect(embeddingsResponseHash(fromBase64.vectors)).toBe(embeddingsResponseHash(fromFloats.vectors));
  });

  it("prices by input tokens × the catalogue price without a reported cost, and sends only the fields given", async () => {
    answer = () => embeddingsAnswer(MODEL, VECTORS.slice(0, 1), { prompt_tokens: 1_000 });
    const e = await upstream().embed({ model: MODEL, input: "one text" });
    expect(seen.at(-1)?.body).toEqual({ model: MODEL, input: "one text" });
    // 1,000 tokens × 20,000 units per 1M tokens = 20 units.
    expect(e.costUnits).toBe(20n);
  });

  it("passes token ids to the provider as sent", async () => {
    answer = () => embeddingsAnswer(MODEL, VECTORS, { prompt_tokens: 3 });
    await upstream().embed({ model: MODEL, input: [[1, 2], [3]] });
    expect(seen.at(-1)?.body.input).toEqual([[1, 2], [3]]);
  });

  it.each([
    [401, { status: 401, json: { error: { message: "bad key sk-secret" } } }],
    [429, { status: 429, json: { error: { message: "slow down" } } }],
    [500, failureAnswer],
  ] as const)(
    "turns HTTP %s into UpstreamError(http_error) without leaking the provider's body or our key",
    async (status, answered) => {
      answer = () => answered;
      const err = await failure(upstream().embed(req));
      expect(err).toBeInstanceOf(UpstreamError);
      expect(err).toMatchObject({ reason: "http_error", status });
      expect(err.message).not.toMatch(/sk-secret|sk-test|boom/);
    },
  );

  const ok = embeddingsAnswer(MODEL, VECTORS, { prompt_tokens: 7 }).json as {
    data: { index: number; embedding: unknown }[];
    usage: unknown;
  };
  it.each([
    ["an answer that is not an object", [ok]],
    ["no data", { ...ok, data: undefined }],
    ["fewer vectors than inputs", { ...ok, data: ok.data.slice(0, 1) }],
    ["an index twice", { ...ok, data: [ok.data[0], { ...ok.data[1], index: 0 }] }],
    ["vectors of two lengths", { ...ok, data: [ok.data[0], { ...ok.data[1], embedding: [0.1, 0.2] }] }],
    ["a value that is not a number", { ...ok, data: [ok.data[0], { ...ok.data[1], embedding: [0.1, "0.2", 0.3] }] }],
    ["a value past float32", { ...ok, data: [ok.data[0], { ...ok.data[1], embedding: [0.1, 1e39, 0.3] }] }],
    ["a NaN in base64", { ...ok, data: [ok.data[0], { ...ok.data[1], embedding: "AADAfwAAAAAAAAAA" }] }],
    ["no usage", { ...ok, usage: undefined }],
    ["a fractional token count", { ...ok, usage: { prompt_tokens: 1.5, total_tokens: 1.5 } }],
  ])("turns a malformed answer into UpstreamError(bad_response): %s", async (_label, json) => {
    answer = () => ({ status: 200, json });
    expect(await failure(upstream().embed(req))).toMatchObject({ reason: "bad_response" });
  });

  it("turns vectors of another length than the dimensions asked for into UpstreamError(bad_response)", async () => {
    answer = () => embeddingsAnswer(MODEL, VECTORS, { prompt_tokens: 7 });
    expect(await failure(upstream().embed({ ...req, dimensions: 4 }))).toMatchObject({ reason: "bad_response" });
  });

  it("times out a provider that hangs, and aborts when the caller aborts", async () => {
    answer = () => new Promise<ProviderAnswer>(() => undefined);
    expect(await failure(upstream(300).embed(req))).toMatchObject({ reason: "timeout" });
    // The caller aborts once the provider holds its request.
    const controller = new AbortController();
    answer = () => {
      controller.abort();
      return new Promise<ProviderAnswer>(() => undefined);
    };
    expect(await failure(upstream(10_000).embed(req, { signal: controller.signal }))).toMatchObject({
      reason: "aborted",
    });
  });

  it("refuses a remote model without a key, an unknown model and a chat model, without calling anyone", async () => {
    const before = seen.length;
    expect(await failure(keyless().embed(req))).toMatchObject({ reason: "model_unavailable" });
    expect(await failure(upstream().embed({ ...req, model: "acme/none" }))).toMatchObject({
      reason: "model_unavailable",
    });
    expect(await failure(upstream().embed({ ...req, model: "openai/gpt-4o-mini" }))).toMatchObject({
      reason: "model_unavailable",
    });
    expect(seen.length).toBe(before);
    expect(
      keyless()
        .embeddingModels()
        .map((m) => m.id),
    ).toEqual([LOCAL_EMBEDDING_MODEL_ID]);
    expect(upstream().offeredEmbeddingModel(MODEL)?.defaultDimensions).toBe(1536);
  });

  it("refuses misuse: an input no request holds, dimensions past the model's largest", async () => {
    await expect(upstream().embed({ ...req, input: [] })).rejects.toThrow(TypeError);
    await expect(upstream().embed({ ...req, dimensions: 1537 })).rejects.toThrow(TypeError);
  });

  it("serves local/hash-embed-1 offline: its default dimension, or the one asked for, at a nominal cost", async () => {
    const e = await keyless().embed({ model: LOCAL_EMBEDDING_MODEL_ID, input: ["a", "b"] });
    expect(e.vectors.map((v) => v.length)).toEqual([256, 256]);
    expect(e).toMatchObject({
      model: LOCAL_EMBEDDING_MODEL_ID,
      upstream: "local",
      usage: { prompt_tokens: 2, total_tokens: 2 },
    });
    expect(e.costUnits).toBeGreaterThan(0n);
    expect(
      (await keyless().embed({ model: LOCAL_EMBEDDING_MODEL_ID, input: "a", dimensions: 8 })).vectors[0],
    ).toHaveLength(8);
  });
});

describe("the embeddings route's building blocks, chained as the route will chain them", () => {
  it.each(["float", "base64"] as const)(
    "parse → gate → embed → %s body → hashes: a verifier recomputes both hashes from the request and the body",
    async (encoding) => {
      answer = () => embeddingsAnswer(MODEL, VECTORS, { prompt_tokens: 7 }, encoding);
      const body: EmbeddingsRequest = parseWith(embeddingsRequestSchema, {
        model: MODEL,
        input: ["first text", "second text"],
        dimensions: 3,
        encoding_format: encoding,
        user: null,
      });
      // The model gate's facts: the model is an embedding model, and its worst case fits under a flat price (0.01 USDC).
      const model: EmbeddingCatalogModel | null = findEmbeddingModel(body.model);
      expect(worstCaseEmbeddingCostUnits(model!, embeddingInputsOf(body.input)!)).toBeLessThanOrEqual(10_000n);
      const e: Embeddings = await upstream().embed({
        model: body.model,
        input: body.input,
        ...(body.dimensions != null ? { dimensions: body.dimensions } : {}),
        ...(body.encoding_format != null ? { encoding_format: body.encoding_format } : {}),
        ...(body.user != null ? { user: body.user } : {}),
      });
      const answerBody = embeddingsResponseBody(e, body.encoding_format ?? "float");
      expect(embeddingsResponseSchema.parse(answerBody)).toEqual(answerBody);
      const promptHash = embeddingsPromptHash(body.input, (text) => createHash("sha256").update(text).digest("hex"));
      const responseHashSigned = embeddingsResponseHash(e.vectors, nodeSha256);
      // What a verifier does with the request body and the answer body as a client got them (through JSON).
      const [sentRequest, sentAnswer] = [
        JSON.parse(JSON.stringify(body)) as unknown,
        JSON.parse(JSON.stringify(answerBody)) as unknown,
      ];
      expect(promptHashCandidates(sentRequest).filter((c) => c.hash === promptHash)).toEqual([
        { form: "embeddings", hash: promptHash },
      ]);
      expect(responseHash(sentAnswer)).toBe(responseHashSigned);
    },
  );
});
