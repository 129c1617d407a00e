import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { keptAnswerText, readKeptAnswer } from "./kept-answer";

describe("keptAnswerText() and readKeptAnswer()", () => {
  it("give back the body and the receipt first answered, whatever string the body holds", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), (content) => {
        const body = { id: "chatcmpl-1", choices: [{ message: { content } }] };
        const routeReceipt = {
          extensions: { "offer-receipt": { info: { receipt: { format: "jws", signature: "x.y.z" } } } },
          receipt: { format: "jws" as const, signature: "x.y.z" },
        };
        const text = keptAnswerText({ body, routeReceipt });
        // Text PostgreSQL can hold: no U+0000 and well-formed UTF-16 (escapes stand in for both).
        expect(text.includes("\u0000")).toBe(false);
        expect(text.isWellFormed()).toBe(true);
        expect(readKeptAnswer(text)).toEqual({ body, routeReceipt });
      }),
    );
  });

  it("reads an answer kept with no receipt (kept before receipts were)", () => {
    expect(readKeptAnswer('{"body":{"id":"chatcmpl-1"},"x402_receipt":null}')).toEqual({
      body: { id: "chatcmpl-1" },
      routeReceipt: null,
    });
  });

  it("rejects malformed input", () => {
    for (const text of [null, "", "{", "null", "[]", '{"x402_receipt":null}', '{"body":"text"}', '{"body":null}'])
      expect(readKeptAnswer(text)).toBeNull();
  });
});
