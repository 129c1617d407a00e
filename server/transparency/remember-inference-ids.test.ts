import { describe, expect, it } from "vitest";
import {
  decodeRemembered,
  encodeRemembered,
  findRepeatedInferences,
  inferenceFingerprint,
  rememberInferences,
  type RememberedIds,
} from "./remember-inference-ids";

const nothing: RememberedIds = { size: 0, fingerprints: new Uint8Array(0) };
const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`;
/** Entries [from, from + ids.length) with these inference ids. */
const round = (from: number, ids: readonly string[]) => ids.map((inferenceId, i) => ({ index: from + i, inferenceId }));

describe("findRepeatedInferences()", () => {
  it("reports an inference logged again in a later round, naming the entry it was first logged at", () => {
    const afterFirst = rememberInferences(nothing, [id(0), id(1), id(2)]);
    expect(findRepeatedInferences(afterFirst, round(3, [id(3), id(1)]))).toEqual([
      { index: 4, inferenceId: id(1), firstIndex: 1 },
    ]);
  });

  it("reports it many rounds later, through the window the state file keeps", () => {
    let remembered = rememberInferences(nothing, [id(0), id(1)]);
    for (let r = 1; r <= 5; r++) {
      remembered = decodeRemembered(
        encodeRemembered(rememberInferences(remembered, [id(10 * r), id(10 * r + 1)])),
        remembered.size + 2,
      )!;
    }
    expect(remembered.size).toBe(12);
    expect(findRepeatedInferences(remembered, round(12, [id(0)]))).toEqual([
      { index: 12, inferenceId: id(0), firstIndex: 0 },
    ]);
  });

  it("reports a repeat within one round, and every copy of one against the first", () => {
    const remembered = rememberInferences(nothing, [id(0)]);
    expect(findRepeatedInferences(remembered, round(1, [id(1), id(1), id(0), id(0)]))).toEqual([
      { index: 2, inferenceId: id(1), firstIndex: 1 },
      { index: 3, inferenceId: id(0), firstIndex: 0 },
      { index: 4, inferenceId: id(0), firstIndex: 0 },
    ]);
  });

  it("reports nothing for inferences each logged once", () => {
    expect(findRepeatedInferences(rememberInferences(nothing, [id(0), id(1)]), round(2, [id(2), id(3)]))).toEqual([]);
    expect(findRepeatedInferences(nothing, [])).toEqual([]);
  });
});

describe("rememberInferences()", () => {
  it("keeps the latest `limit` entries: a repeat of an entry older than the window goes unseen", () => {
    const remembered = rememberInferences(rememberInferences(nothing, [id(0), id(1), id(2)], 4), [id(3), id(4)], 4);
    expect(remembered.size).toBe(5);
    expect(remembered.fingerprints.length).toBe(4 * 16);
    expect(findRepeatedInferences(remembered, round(5, [id(0)]))).toEqual([]);
    expect(findRepeatedInferences(remembered, round(5, [id(1), id(4)]))).toEqual([
      { index: 5, inferenceId: id(1), firstIndex: 1 },
      { index: 6, inferenceId: id(4), firstIndex: 4 },
    ]);
  });

  it("keeps only the end of a first round longer than the window", () => {
    const remembered = rememberInferences(nothing, [id(0), id(1), id(2)], 2);
    expect(findRepeatedInferences(remembered, round(3, [id(0), id(1)]))).toEqual([
      { index: 4, inferenceId: id(1), firstIndex: 1 },
    ]);
  });

  it("rejects malformed input: a window that is not a whole number of entries", () => {
    expect(() => rememberInferences(nothing, [id(0)], -1)).toThrow(RangeError);
    expect(() => rememberInferences(nothing, [id(0)], 1.5)).toThrow(RangeError);
  });
});

describe("decodeRemembered()", () => {
  it("reads a state that keeps no ids (written before they were kept) as remembering none", () => {
    expect(decodeRemembered(undefined, 7)).toEqual({ size: 7, fingerprints: new Uint8Array(0) });
  });

  it("rejects malformed input: not base64, not whole fingerprints, more of them than entries, not a string", () => {
    const two = encodeRemembered(rememberInferences(nothing, [id(0), id(1)]));
    expect(decodeRemembered(two, 2)?.fingerprints).toEqual(
      new Uint8Array([...inferenceFingerprint(id(0)), ...inferenceFingerprint(id(1))]),
    );
    expect(decodeRemembered(two, 1)).toBeNull();
    expect(decodeRemembered("not base64!", 9)).toBeNull();
    expect(decodeRemembered(Buffer.alloc(15).toString("base64"), 9)).toBeNull();
    expect(decodeRemembered(42, 9)).toBeNull();
  });
});
