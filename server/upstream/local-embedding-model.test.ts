import { sha256 } from "@noble/hashes/sha2.js";
import { utf8ToBytes } from "@noble/hashes/utils.js";
import { describe, expect, it } from "vitest";
import { embedLocally, hashEmbedding } from "./local-embedding-model";

const dot = (a: Float32Array, b: Float32Array) => a.reduce((sum, value, i) => sum + value * b[i]!, 0);
const norm = (v: Float32Array) => Math.sqrt(dot(v, v));

/** The documented rule, written again from its words with noble's SHA-256: what another language would write. */
function byTheRule(key: string, dimensions: number): number[] {
  const raw: number[] = [];
  for (let block = 0; raw.length < dimensions; block++) {
    const digest = sha256(utf8ToBytes(`local/hash-embed-1\n${key}\n${block}`));
    const view = new DataView(digest.buffer, digest.byteOffset);
    for (let k = 0; k < 8 && raw.length < dimensions; k++) raw.push(view.getUint32(4 * k) / 2 ** 31 - 1);
  }
  const length = Math.sqrt(raw.reduce((sum, v) => sum + v * v, 0));
  return raw.map((v) => Math.fround(v / length));
}

describe("hashEmbedding()", () => {
  it("gives the same input the same vector, on every run and machine (pinned values)", () => {
    expect(Array.from(hashEmbedding("hello", 4))).toEqual([
      -0.15790052711963654, -0.498232364654541, 0.4720560908317566, 0.7099260687828064,
    ]);
    expect(Array.from(hashEmbedding([1, 2, 3], 3))).toEqual([
      0.4262378513813019, -0.5384916067123413, 0.7268755435943604,
    ]);
    expect(hashEmbedding("hello", 256)).toEqual(hashEmbedding("hello", 256));
  });

  it.each([
    ['"hello"', "hello", 4],
    ['"naïve \\\\ \\"q\\" 😀"', 'naïve \\ "q" 😀', 17],
    ["[1,2,3]", [1, 2, 3], 9],
  ] as const)("follows the documented rule for the key %s at %i dimensions", (key, input, dimensions) => {
    expect(Array.from(hashEmbedding(input, dimensions))).toEqual(byTheRule(key, dimensions));
  });

  it("honours dimensions; each vector has unit length, and a shorter one is a longer one's start, normalised again", () => {
    const long = hashEmbedding("a receipt", 3072);
    const short = hashEmbedding("a receipt", 100);
    expect([long.length, short.length, hashEmbedding("a receipt", 1).length]).toEqual([3072, 100, 1]);
    expect(norm(long)).toBeCloseTo(1, 5);
    expect(norm(short)).toBeCloseTo(1, 5);
    const start = long.slice(0, 100);
    for (let i = 0; i < 100; i++) expect(short[i]).toBeCloseTo(start[i]! / norm(start), 6);
  });

  it("is NOT semantic: similar texts get unrelated vectors, and a text differs from the token ids of its digits", () => {
    const cosine = dot(hashEmbedding("The cat sat on the mat.", 256), hashEmbedding("The cat sat on the mat!", 256));
    expect(Math.abs(cosine)).toBeLessThan(0.3);
    expect(hashEmbedding("1", 8)).not.toEqual(hashEmbedding([1], 8));
  });

  it.each([[0], [-1], [1.5], [Number.NaN]])("rejects malformed dimensions %s", (dimensions) => {
    expect(() => hashEmbedding("hi", dimensions)).toThrow(RangeError);
  });
});

describe("embedLocally()", () => {
  it("embeds every input in order, with usage by our own count (at least one token a text, a token list's length)", () => {
    const answer = embedLocally(["two words", " ", [5, 6, 7]], 8);
    expect(answer.vectors).toEqual([hashEmbedding("two words", 8), hashEmbedding(" ", 8), hashEmbedding([5, 6, 7], 8)]);
    expect(answer.usage).toEqual({ prompt_tokens: 2 + 1 + 3, total_tokens: 6 });
  });
});
