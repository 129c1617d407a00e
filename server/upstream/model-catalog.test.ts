import { describe, expect, it } from "vitest";
import { answerLocally, countTokens } from "./local-model";
import { completionCap, costFromTokens, findModel, LOCAL_MODEL_ID, usdCostToUnits, worstCaseCostUnits } from "./model-catalog";

const local = findModel(LOCAL_MODEL_ID)!;

describe("usdCostToUnits()", () => {
  it.each([
    [0.000045, 45n],
    [0.01, 10_000n],
    [1e-7, 1n], // a sub-unit cost rounds up to one unit
    [0.0000451, 46n],
    [0, 0n],
  ])("turns %d USD into %s units without float drift", (cost, units) => {
    expect(usdCostToUnits(cost)).toBe(units);
  });

  it.each([[-1], [Number.NaN], [Number.POSITIVE_INFINITY], ["0.1"], [null], [undefined]])("rejects malformed input %j", (cost) => {
    expect(usdCostToUnits(cost)).toBeNull();
  });
});

describe("worstCaseCostUnits()", () => {
  it("bounds the actual cost of a call from above", () => {
    const messages = [{ role: "user", content: "an ordinary question about ledgers, receipts and 😀" }];
    const answer = answerLocally(messages, completionCap(local));
    expect(worstCaseCostUnits(local, messages)).toBeGreaterThanOrEqual(costFromTokens(local, answer.usage));
  });

  it("grows with the completion cap, which is bounded by the model's", () => {
    const messages = [{ role: "user", content: "x" }];
    expect(worstCaseCostUnits(local, messages, 10)).toBeLessThan(worstCaseCostUnits(local, messages, 200));
    expect(worstCaseCostUnits(local, messages, 10_000)).toBe(worstCaseCostUnits(local, messages, local.maxTokens));
  });
});

describe("answerLocally()", () => {
  const messages = [{ role: "user", content: "What is a receipt?" }];

  it("is deterministic and depends on the prompt", () => {
    expect(answerLocally(messages, 256)).toEqual(answerLocally(messages, 256));
    expect(answerLocally([{ role: "user", content: "Something else" }], 256).content).not.toBe(answerLocally(messages, 256).content);
  });

  it("says it is a built-in test model, not an LLM", () => {
    expect(answerLocally(messages, 256).content).toMatch(/built-in deterministic test model, not an LLM/);
  });

  it("respects the completion cap and reports consistent usage", () => {
    const answer = answerLocally(messages, 5);
    expect(answer.usage.completion_tokens).toBeLessThanOrEqual(5);
    expect(answer.usage.completion_tokens).toBe(countTokens(answer.content));
    expect(answer.usage.total_tokens).toBe(answer.usage.prompt_tokens + answer.usage.completion_tokens);
  });
});
