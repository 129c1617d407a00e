import { describe, expect, it } from "vitest";
import { verifyRequestSchema } from "./verify-request-schema";

const KEY = "8MX7BMkwGCmog9VodYeo7YAcZKyyYBuoQybeDMyQFZbS";
const base = {
  receipt: { v: 2, extra: { kept: true } },
  prompt: [{ role: "user", content: "hi" }],
  response: { choices: [] },
};

describe("verifyRequestSchema", () => {
  it("accepts every prompt and response form the library reads, and keeps unknown receipt fields", () => {
    for (const prompt of [
      base.prompt,
      { messages: base.prompt },
      { prompt: "hi" },
      { model: "m", input: "hi" },
      { input: [{ role: "user", content: "hi" }] },
      "hi",
    ]) {
      for (const response of [{ result: "x" }, [{ choices: [] }], { object: "response", output: [] }, "x"]) {
        const parsed = verifyRequestSchema.parse({
          ...base,
          prompt,
          response,
          endpoint: "https://signet.example",
          operatorKey: KEY,
          rpc: "http://127.0.0.1:8899",
        });
        expect(parsed.receipt).toEqual(base.receipt);
      }
    }
  });

  it("accepts an embeddings request body and its `input` alone in each of its forms, as long as the route takes them", () => {
    const longest = Array.from({ length: 8_192 }, (_, i) => i);
    const inputs: unknown[] = [
      ["a", "b"],
      [791, 3691],
      [[791, 3691], [574]],
      longest,
      Array.from({ length: 2_048 }, () => "x"),
    ];
    for (const input of inputs) {
      expect(
        verifyRequestSchema.safeParse({ ...base, prompt: input }).success,
        JSON.stringify(input).slice(0, 40),
      ).toBe(true);
      expect(verifyRequestSchema.safeParse({ ...base, prompt: { model: "local/hash-embed-1", input } }).success).toBe(
        true,
      );
    }
  });

  it.each([
    [{ ...base, prompt: ["a", 1] }, "prompt"],
    [{ ...base, prompt: Array.from({ length: 8_193 }, () => 1) }, "prompt"],
    [{ ...base, receipt: undefined }, "receipt"],
    [{ ...base, receipt: [] }, "receipt"],
    [{ ...base, receipt: { v: 0 } }, "receipt.v"],
    [{ ...base, receipt: { v: "2" } }, "receipt.v"],
    [{ ...base, prompt: 5 }, "prompt"],
    [{ ...base, prompt: { input: 5 } }, "prompt"],
    [{ ...base, response: 5 }, "response"],
    [{ ...base, operatorKey: "nope" }, "operatorKey"],
    [{ ...base, operatorKey: "1".repeat(44) }, "operatorKey"],
    [{ ...base, endpoint: "file:///etc/passwd" }, "endpoint"],
    [{ ...base, endpoint: "javascript:alert(1)" }, "endpoint"],
    [{ ...base, rpc: "ftp://rpc.example" }, "rpc"],
    [{ ...base, rpc: `https://rpc.example/${"x".repeat(2100)}` }, "rpc"],
  ])("rejects malformed input %#, naming %s", (value, field) => {
    const result = verifyRequestSchema.safeParse(value);
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.path.join(".")).toBe(field);
  });
});
