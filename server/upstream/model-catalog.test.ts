import { describe, expect, it } from "vitest";
import { answerLocally, countTokens } from "./local-model";
import { embedLocally } from "./local-embedding-model";
import {
  completionCap,
  costFromTokens,
  embeddingCostFromTokens,
  findEmbeddingModel,
  findModel,
  LOCAL_EMBEDDING_MODEL_ID,
  LOCAL_MODEL_ID,
  usdCostToUnits,
  worstCaseCostUnits,
  worstCaseEmbeddingCostUnits,
} from "./model-catalog";

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

  it.each([[-1], [Number.NaN], [Number.POSITIVE_INFINITY], ["0.1"], [null], [undefined]])(
    "rejects malformed input %j",
    (cost) => {
      expect(usdCostToUnits(cost)).toBeNull();
    },
  );
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
    expect(answerLocally([{ role: "user", content: "Something else" }], 256).content).not.toBe(
      answerLocally(messages, 256).content,
    );
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

describe("the embedding models", () => {
  const hashEmbed = findEmbeddingModel(LOCAL_EMBEDDING_MODEL_ID)!;

  it("are apart from the chat models: neither catalogue finds the other's", () => {
    expect(findModel(LOCAL_EMBEDDING_MODEL_ID)).toBeNull();
    expect(findEmbeddingModel(LOCAL_MODEL_ID)).toBeNull();
    expect(findEmbeddingModel("acme/none")).toBeNull();
  });

  it("label the built-in one plainly as not semantic", () => {
    expect(hashEmbed).toMatchObject({ provider: "local", defaultDimensions: 256 });
    expect(hashEmbed.label).toMatch(/NOT semantic/);
  });

  it("price input tokens only, rounded up, and bound a call's cost from above before it runs", () => {
    expect(embeddingCostFromTokens(hashEmbed, { prompt_tokens: 1 })).toBe(1n);
    expect(embeddingCostFromTokens(hashEmbed, { prompt_tokens: 20 })).toBe(2n);
    const inputs = ["an ordinary sentence about ledgers and 😀", " ", [1, 2, 3]];
    expect(worstCaseEmbeddingCostUnits(hashEmbed, inputs)).toBeGreaterThanOrEqual(
      embeddingCostFromTokens(hashEmbed, embedLocally(inputs, 4).usage),
    );
    // 1,000,000 bytes of text: at least a million tokens at 100,000 units per million.
    expect(worstCaseEmbeddingCostUnits(hashEmbed, ["x".repeat(1_000_000)])).toBe(100_000n);
  });
});
