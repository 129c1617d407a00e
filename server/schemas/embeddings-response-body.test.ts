import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { embeddingsResponseHash, float32VectorOf, responseHash } from "../verify";
import { embeddingsResponseBody, embeddingsResponseSchema, float32Json } from "./embeddings-response-body";

const answer = {
  model: "local/hash-embed-1",
  vectors: [float32VectorOf([0.1, -0.5, 1e-7, -0])!, float32VectorOf([0.123456789, 0.25, -1, 3.4028234663852886e38])!],
  usage: { prompt_tokens: 6, total_tokens: 6 },
};

/** A body as a client reads it: through JSON. */
const overTheWire = (body: unknown) => JSON.parse(JSON.stringify(body)) as unknown;

describe("float32Json()", () => {
  it.each([
    [0.1, 0.1],
    [1e-7, 1e-7],
    [0.123456789, 0.12345679],
    [-0, 0],
    [1, 1],
    [3.4028234663852886e38, 3.4028235e38],
    // A subnormal holds fewer digits than it is tried with first: not the shortest, but it reads back.
    [1.401298464324817e-45, 1.4013e-45],
  ])("writes the float32 of %d as the short decimal %d", (value, short) => {
    expect(float32Json(Math.fround(value))).toBe(short);
  });

  it("always reads back (as binary64, then rounded to float32) as the value, in at most 9 significant digits", () => {
    const values = new Float32Array(
      new Uint32Array(Array.from({ length: 20_000 }, (_, i) => (Math.imul(i + 1, 2_654_435_761) >>> 0) & 0xff7fffff))
        .buffer,
    );
    for (const value of values) {
      if (!Number.isFinite(value)) continue;
      const short = float32Json(value);
      expect(Math.fround(short)).toBe(value);
      expect(
        short
          .toExponential()
          .replace(/^-?|e.*$/g, "")
          .replace(".", "").length,
      ).toBeLessThanOrEqual(9);
    }
  });
});

describe("embeddingsResponseBody()", () => {
  it("writes OpenAI's shape exactly, with the vectors as short float decimals by default", () => {
    const body = embeddingsResponseBody(answer);
    expect(embeddingsResponseSchema.parse(body)).toEqual(body);
    expect(JSON.stringify(body)).toBe(
      '{"object":"list","data":[{"object":"embedding","index":0,"embedding":[0.1,-0.5,1e-7,0]},{"object":"embedding","index":1,"embedding":[0.12345679,0.25,-1,3.4028235e+38]}],"model":"local/hash-embed-1","usage":{"prompt_tokens":6,"total_tokens":6}}',
    );
  });

  it("writes base64 of little-endian float32 when asked, which decodes to the same values", () => {
    const body = embeddingsResponseBody(answer, "base64");
    expect(embeddingsResponseSchema.parse(body)).toEqual(body);
    expect(body.data.map((d) => d.embedding)).toEqual(["zczMPQAAAL+Vv9YzAAAAgA==", "6tb8PQAAgD4AAIC///9/fw=="]);
  });

  it("gives the float and the base64 body one response hash, the hash of the vectors the service signs", () => {
    const signed = embeddingsResponseHash(answer.vectors);
    expect(responseHash(overTheWire(embeddingsResponseBody(answer, "float")))).toBe(signed);
    expect(responseHash(overTheWire(embeddingsResponseBody(answer, "base64")))).toBe(signed);
  });

  it("is read by the openai SDK as the same float32 values, whether it asked for base64 (its default) or for floats", async () => {
    const asked: unknown[] = [];
    const client = new OpenAI({
      apiKey: "sk-test",
      baseURL: "http://signet.test/api/v1",
      fetch: async (_url: RequestInfo | URL, init?: RequestInit) => {
        const sent = JSON.parse(String(init?.body)) as { encoding_format: "float" | "base64" };
        asked.push(sent.encoding_format);
        return Response.json(embeddingsResponseBody(answer, sent.encoding_format));
      },
    });
    const expected = answer.vectors.map((v) => Array.from(v));
    const byDefault = await client.embeddings.create({ model: answer.model, input: ["a", "b"] });
    const asFloats = await client.embeddings.create({
      model: answer.model,
      input: ["a", "b"],
      encoding_format: "float",
    });
    expect(asked).toEqual(["base64", "float"]);
    expect(byDefault.data.map((d) => d.embedding)).toEqual(expected);
    // JSON writes -0 as 0 (and the hash writes both as 0); base64 keeps the sign bit.
    expect(asFloats.data.map((d) => d.embedding.map(Math.fround))).toEqual(
      expected.map((v) => v.map((x) => (x === 0 ? 0 : x))),
    );
    expect(responseHash(byDefault)).toBe(embeddingsResponseHash(answer.vectors));
  });

  it("has a schema that rejects malformed input: a body of another shape than OpenAI's", () => {
    expect(
      embeddingsResponseSchema.safeParse({ ...embeddingsResponseBody(answer), usage: { prompt_tokens: 6 } }).success,
    ).toBe(false);
    expect(embeddingsResponseSchema.safeParse({ ...embeddingsResponseBody(answer), object: "embedding" }).success).toBe(
      false,
    );
  });
});
