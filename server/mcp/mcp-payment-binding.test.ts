import { describe, expect, it } from "vitest";
import {
  carriesResultType,
  MCP_META,
  paymentBindingOf,
  paymentRequiredResult,
  refusalResult,
  X402_MCP_EXTENSION,
} from "./mcp-payment-binding";

const advertising = { [MCP_META.clientCapabilities]: { extensions: { [X402_MCP_EXTENSION]: {} } } };
const required = { x402Version: 2, accepts: [{ scheme: "exact" }], resource: { url: "u" }, error: "payment_required" };

describe("paymentBindingOf()", () => {
  it("is the extension binding only when the request advertises org.x402/payment as an object", () => {
    expect(paymentBindingOf(advertising)).toBe("extension");
    for (const meta of [
      undefined,
      {},
      { [MCP_META.clientCapabilities]: {} },
      { [MCP_META.clientCapabilities]: { extensions: {} } },
      { [MCP_META.clientCapabilities]: { extensions: { [X402_MCP_EXTENSION]: true } } },
      { [MCP_META.clientCapabilities]: { extensions: [X402_MCP_EXTENSION] } },
      { [MCP_META.clientCapabilities]: "extensions" },
    ]) {
      expect(paymentBindingOf(meta as never)).toBe("tool-result");
    }
  });
});

describe("carriesResultType()", () => {
  it("from MCP 2026-07-28 on, and with the extension binding; not before, nor for a version that is no date", () => {
    const at = (v: unknown) => carriesResultType({ [MCP_META.protocolVersion]: v });
    expect([
      at("2026-07-28"),
      at("2027-01-01"),
      at("2025-11-25"),
      at("2026-07-27"),
      at("latest"),
      at(20260728),
    ]).toEqual([true, true, false, false, false, false]);
    expect(carriesResultType(advertising)).toBe(true);
    expect(carriesResultType(undefined)).toBe(false);
  });
});

describe("paymentRequiredResult()", () => {
  it("tool-result binding: isError, the PaymentRequired in structuredContent and as JSON in content[0].text", () => {
    expect(paymentRequiredResult(undefined, required)).toEqual({
      isError: true,
      structuredContent: required,
      content: [{ type: "text", text: JSON.stringify(required) }],
    });
    expect(paymentRequiredResult({ [MCP_META.protocolVersion]: "2026-07-28" }, required)).toMatchObject({
      resultType: "complete",
      isError: true,
    });
  });

  it("extension binding: resultType payment_required with paymentRequired, not an error result", () => {
    expect(paymentRequiredResult(advertising, required)).toEqual({
      resultType: "payment_required",
      paymentRequired: required,
      content: [],
    });
  });
});

describe("refusalResult()", () => {
  it("an error result with the stable code first in its text and the whole error in structuredContent", () => {
    const error = { code: "payment_request_mismatch", message: "another request", type: "invalid_request_error" };
    expect(refusalResult(undefined, error)).toEqual({
      isError: true,
      structuredContent: { error },
      content: [{ type: "text", text: "payment_request_mismatch: another request" }],
    });
  });
});
