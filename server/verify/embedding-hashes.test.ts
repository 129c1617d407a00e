import { describe, expect, it } from "vitest";
import {
  embeddingInputsOf,
  embeddingsPromptHash,
  embeddingsResponseHash,
  embeddingVectorsOf,
  float32VectorFromBase64,
  float32VectorOf,
  float32VectorToBase64,
} from "./embedding-hashes";
import { sha256Hex } from "./hashes";

/** Two vectors whose JSON numbers are not float32 values (0.1, 1e-7) and hold -0: their canonical text, by hand. */
const FLOATS = [
  [0.1, -0.5],
  [1e-7, -0],
];
const FLOATS_CANONICAL = "[[0.10000000149011612,-0.5],[1.0000000116860974e-7,0]]";
/** The same float32 values as OpenAI's base64 (little-endian), written out by hand. */
const BASE64 = ["zczMPQAAAL8=", "lb/WMwAAAIA="];

const floatBody = (vectors: unknown[]) => ({
  object: "list",
  data: vectors.map((embedding, index) => ({ object: "embedding", index, embedding })),
  model: "m",
  usage: { prompt_tokens: 2, total_tokens: 2 },
});

describe("embeddingInputsOf()", () => {
  it.each([
    ["a text, as a list of that one text", "hi", ["hi"]],
    ["texts, as they are", ["a", "b"], ["a", "b"]],
    ["token ids, as a list of that one list", [1, 2], [[1, 2]]],
    ["lists of token ids, as they are", [[1], [2, 3]], [[1], [2, 3]]],
    ["an empty text, which is still a text", "", [""]],
  ])("reads %s", (_label, input, inputs) => {
    expect(embeddingInputsOf(input)).toEqual(inputs);
  });

  it.each([
    [[]],
    [[[]]],
    [["a", 1]],
    [[1, "a"]],
    [[1.5]],
    [[-1]],
    [[[1], "a"]],
    [[[1], []]],
    [null],
    [42],
    [{ input: "hi" }],
    [undefined],
  ])("rejects malformed input %j", (input) => {
    expect(embeddingInputsOf(input)).toBeNull();
  });
});

describe("embeddingsPromptHash()", () => {
  it("hashes the canonical JSON of the inputs as a list, so a text and a list of that text hash alike", () => {
    expect(embeddingsPromptHash("hi")).toBe(sha256Hex('["hi"]'));
    expect(embeddingsPromptHash(["hi"])).toBe(sha256Hex('["hi"]'));
    expect(embeddingsPromptHash(["a", 'q"\u2028'])).toBe(sha256Hex('["a","q\\"\u2028"]'));
  });

  it('keeps token ids apart from texts: [1] is one token list, [[1]] too, and neither is the text "1"', () => {
    expect(embeddingsPromptHash([1, 2])).toBe(sha256Hex("[[1,2]]"));
    expect(embeddingsPromptHash([[1, 2]])).toBe(sha256Hex("[[1,2]]"));
    expect(embeddingsPromptHash([[1], [2]])).toBe(sha256Hex("[[1],[2]]"));
    expect(embeddingsPromptHash("1")).not.toBe(embeddingsPromptHash([1]));
  });

  it("uses the hash it is given", () => {
    expect(embeddingsPromptHash("hi", (text) => `hashed:${text}`)).toBe('hashed:["hi"]');
  });

  it.each([[[]], [{}], [7], [["a", 1]]])("rejects malformed input %j with null", (input) => {
    expect(embeddingsPromptHash(input)).toBeNull();
  });
});

describe("float32VectorOf()", () => {
  it("rounds each number to the nearest float32", () => {
    expect(Array.from(float32VectorOf([0.1, 1e-7, 0.123456789])!)).toEqual([
      0.10000000149011612, 1.0000000116860974e-7, 0.12345679104328156,
    ]);
  });

  it.each([[[]], [["0.1"]], [[Number.NaN]], [[Number.POSITIVE_INFINITY]], [[1e39]], [[null]]])(
    "rejects malformed input %j",
    (values) => {
      expect(float32VectorOf(values)).toBeNull();
    },
  );
});

describe("float32VectorFromBase64() and float32VectorToBase64()", () => {
  it("read and write four little-endian bytes per value, as OpenAI's base64 does", () => {
    expect(float32VectorToBase64(new Float32Array([1, -2]))).toBe("AACAPwAAAMA=");
    expect(Array.from(float32VectorFromBase64("AACAPwAAAMA=")!)).toEqual([1, -2]);
    const vector = float32VectorOf([0.1, -0.5, 1e-7, 3.4028234663852886e38])!;
    expect(float32VectorFromBase64(float32VectorToBase64(vector))).toEqual(vector);
  });

  it.each([
    ["empty", ""],
    ["not base64", "not base64!"],
    ["not canonical (bits past the end)", "AACAPwAAAMB="],
    ["three bytes, not a whole value", "AACA"],
    ["a NaN", "AADAfw=="],
    ["an infinity", "AACAfw=="],
    ["URL-safe base64", "zczMPQAAAL8_"],
  ])("rejects malformed input: %s", (_label, text) => {
    expect(float32VectorFromBase64(text)).toBeNull();
  });
});

describe("embeddingVectorsOf()", () => {
  it("reads a float body, a base64 body, a mixed one, and items in any order by their index", () => {
    const expected = FLOATS.map((v) => float32VectorOf(v));
    expect(embeddingVectorsOf(floatBody(FLOATS))).toEqual(expected);
    expect(embeddingVectorsOf(floatBody(BASE64))).toEqual(expected);
    expect(embeddingVectorsOf(floatBody([FLOATS[0], BASE64[1]]))).toEqual(expected);
    const body = floatBody(FLOATS);
    expect(embeddingVectorsOf({ ...body, data: [...body.data].reverse() })).toEqual(expected);
  });

  it("reads a list of vectors (embedMany's) and one vector (embed's)", () => {
    expect(embeddingVectorsOf(FLOATS)).toEqual(FLOATS.map((v) => float32VectorOf(v)));
    expect(embeddingVectorsOf([0.1, -0.5])).toEqual([float32VectorOf([0.1, -0.5])]);
  });

  it.each([
    ["no data", { object: "list" }],
    ["empty data", floatBody([])],
    ["an index missing", { data: [{ index: 1, embedding: [1] }] }],
    [
      "an index twice",
      {
        data: [
          { index: 0, embedding: [1] },
          { index: 0, embedding: [2] },
        ],
      },
    ],
    ["a fractional index", { data: [{ index: 0.5, embedding: [1] }] }],
    ["no index", { data: [{ embedding: [1] }] }],
    ["an embedding that is neither", floatBody([{ values: [1] }])],
    ["a bad base64 embedding", floatBody(["AACA"])],
    ["an empty vector", floatBody([[]])],
    ["a value past float32", floatBody([[1e39]])],
    ["an empty list", []],
    ["a list with an empty vector", [[1], []]],
    ["a list mixing numbers and vectors", [1, [2]]],
    ["text", "0.1,0.2"],
    ["a chat completion", { choices: [{ message: { content: "hi" } }] }],
  ])("rejects malformed input: %s", (_label, response) => {
    expect(embeddingVectorsOf(response)).toBeNull();
  });
});

describe("embeddingsResponseHash()", () => {
  it("hashes the canonical JSON of the float32 values, written as JSON.stringify writes numbers (-0 as 0)", () => {
    expect(embeddingsResponseHash(FLOATS.map((v) => float32VectorOf(v)!))).toBe(sha256Hex(FLOATS_CANONICAL));
  });

  it("gives a float answer and a base64 answer of the same vectors one hash, whatever decimal wrote each float32", () => {
    const fromFloats = embeddingsResponseHash(embeddingVectorsOf(floatBody(FLOATS))!);
    expect(embeddingsResponseHash(embeddingVectorsOf(floatBody(BASE64))!)).toBe(fromFloats);
    // The float32 values written out in full read back as themselves.
    expect(
      embeddingsResponseHash(
        embeddingVectorsOf(
          floatBody([
            [0.10000000149011612, -0.5],
            [1.0000000116860974e-7, 0],
          ]),
        )!,
      ),
    ).toBe(fromFloats);
  });

  it("changes when one value moves by one float32 step", () => {
    const vectors = FLOATS.map((v) => float32VectorOf(v)!);
    const moved = vectors.map((v) => v.slice());
    moved[0]![0] = 0.10000000894069672; // the next float32 above 0.1's
    expect(embeddingsResponseHash(moved)).not.toBe(embeddingsResponseHash(vectors));
  });

  it("uses the incremental hash it is given", () => {
    let fed = "";
    const hash = embeddingsResponseHash([new Float32Array([1, 2])], () => ({
      update: (bytes: Uint8Array) => (fed += new TextDecoder().decode(bytes)),
      digest: () => new Uint8Array([0xab]),
    }));
    expect([fed, hash]).toEqual(["[[1,2]]", "ab"]);
  });

  it.each([
    ["no vectors", []],
    ["an empty vector", [new Float32Array(0)]],
    ["a NaN", [new Float32Array([Number.NaN])]],
  ])("rejects malformed input: %s", (_label, vectors) => {
    expect(() => embeddingsResponseHash(vectors)).toThrow(TypeError);
  });
});
