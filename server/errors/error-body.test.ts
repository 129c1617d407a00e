import { describe, expect, it } from "vitest";
import { serviceError } from "./error-body";

describe("serviceError()", () => {
  it("reads the code, message and details of an error body in OpenAI's shape", () => {
    const body = {
      error: {
        message: "no credit",
        type: "payment_required_error",
        param: null,
        code: "insufficient_credits",
        balance_usdc: "0",
      },
      request_id: "req-1",
    };
    expect(serviceError(body)).toEqual({ code: "insufficient_credits", message: "no credit", fields: body.error });
  });

  it("reads a paid route's 402, whose error fields sit beside x402 v1's challenge", () => {
    const body = {
      message: "payment required",
      type: "payment_required_error",
      param: null,
      code: "payment_required",
      reason: "payment_expired",
      request_id: "req-2",
      x402Version: 1,
      accepts: [{ scheme: "exact" }],
    };
    expect(serviceError(body)).toEqual({
      code: "payment_required",
      message: "payment required",
      fields: {
        message: "payment required",
        type: "payment_required_error",
        param: null,
        code: "payment_required",
        reason: "payment_expired",
      },
    });
  });

  it("rejects malformed input: a body that is not an error body reads as no code", () => {
    for (const body of [
      null,
      "text",
      {},
      { error: "payment_required", message: "old shape" },
      { error: ["x"] },
      { error: { code: 7 } },
      { code: "payment_required", message: "no x402Version" },
      { x402Version: 1, error: "insufficient_funds", code: "payment_required" },
    ]) {
      expect(serviceError(body)).toMatchObject({ code: "", message: "" });
    }
  });
});
