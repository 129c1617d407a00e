import { describe, expect, it } from "vitest";
import {
  decodePaymentRequiredHeader,
  decodePaymentResponseHeader,
  encodePaymentResponseHeader,
  encodePaymentSignatureHeader,
} from "@x402/core/http";
import type { PaymentPayload } from "@x402/core/types";
import { SHIPPED_NETWORKS } from "../verify";
import {
  challengeHeaders,
  decodePaymentHeader,
  MAX_PAYMENT_HEADER_BYTES,
  readPaymentHeader,
  settlementHeaders,
} from "./payment-headers";

const payload: PaymentPayload = {
  x402Version: 2,
  accepted: {
    scheme: "exact",
    network: "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1",
    asset: "4zMM",
    amount: "1000",
    payTo: "x",
    maxTimeoutSeconds: 60,
    extra: {},
  },
  payload: { transaction: "AQID" },
};

describe("readPaymentHeader()", () => {
  it("reads X-Payment and x402 v2's PAYMENT-SIGNATURE", () => {
    expect(readPaymentHeader(new Headers({ "X-Payment": "abc" }))).toBe("abc");
    expect(readPaymentHeader(new Headers({ "PAYMENT-SIGNATURE": "def" }))).toBe("def");
    expect(readPaymentHeader(new Headers({ "X-Payment": "  " }))).toBeNull();
    expect(readPaymentHeader(new Headers())).toBeNull();
  });
});

describe("decodePaymentHeader()", () => {
  it("round-trips the stock encoding", () => {
    expect(decodePaymentHeader(encodePaymentSignatureHeader(payload), SHIPPED_NETWORKS)).toEqual({ ok: true, payload });
  });

  it.each([
    ["not base64", "%%%"],
    ["base64 of non-JSON", Buffer.from("hello").toString("base64")],
    ["JSON null", Buffer.from("null").toString("base64")],
    ["no accepted", Buffer.from(JSON.stringify({ x402Version: 2, payload: {} })).toString("base64")],
    ["array payload", Buffer.from(JSON.stringify({ ...payload, payload: [] })).toString("base64")],
  ])("rejects malformed input: %s", (_label, value) => {
    expect(decodePaymentHeader(value, SHIPPED_NETWORKS)).toMatchObject({ ok: false });
  });

  it("rejects other protocol versions and oversized headers", () => {
    expect(
      decodePaymentHeader(
        Buffer.from(JSON.stringify({ ...payload, x402Version: 3 })).toString("base64"),
        SHIPPED_NETWORKS,
      ),
    ).toEqual({ ok: false, reason: "unsupported_version" });
    expect(decodePaymentHeader("A".repeat(MAX_PAYMENT_HEADER_BYTES + 1), SHIPPED_NETWORKS)).toEqual({
      ok: false,
      reason: "too_large",
    });
  });

  it("reads an x402 v1 payment into the service's form: its scheme, the CAIP-2 network and that network's USDC", () => {
    const v1 = { x402Version: 1, scheme: "exact", network: "solana-devnet", payload: payload.payload };
    const decoded = decodePaymentHeader(Buffer.from(JSON.stringify(v1)).toString("base64"), SHIPPED_NETWORKS);
    expect(decoded).toEqual({
      ok: true,
      payload: {
        x402Version: 1,
        accepted: {
          scheme: "exact",
          network: "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1",
          asset: "4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU",
        },
        payload: payload.payload,
      },
    });
  });

  it.each([
    ["a network the service does not take", { network: "ethereum" }],
    ["a v2 network name", { network: "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1" }],
    ["no scheme", { scheme: undefined }],
    ["a payload that is not an object", { payload: "tx" }],
  ])("refuses a v1 payment with %s as malformed", (_label, change) => {
    const v1 = { x402Version: 1, scheme: "exact", network: "solana-devnet", payload: payload.payload, ...change };
    expect(decodePaymentHeader(Buffer.from(JSON.stringify(v1)).toString("base64"), SHIPPED_NETWORKS)).toEqual({
      ok: false,
      reason: "malformed",
    });
  });
});

describe("challengeHeaders() / settlementHeaders()", () => {
  it("carries the same challenge in both header spellings", () => {
    const required = { x402Version: 2, resource: { url: "http://x/y" }, accepts: [payload.accepted] };
    const headers = challengeHeaders(required);
    expect(headers["X-Payment-Required"]).toBe(headers["PAYMENT-REQUIRED"]);
    expect(decodePaymentRequiredHeader(headers["PAYMENT-REQUIRED"]!)).toEqual(required);
  });

  it("gives the seed's X-Payment-Required what paying needs only: no extensions, no error text, no per-challenge blockhash", () => {
    const solana = {
      ...payload.accepted,
      extra: { feePayer: "F", paymentFlow: "upfront", recentBlockhash: "B", lastValidBlockHeight: "9" },
    };
    const required = {
      x402Version: 2,
      error: "payment_required",
      resource: { url: "http://x/y", description: "d", mimeType: "application/json" },
      accepts: [solana],
      extensions: { bazaar: { info: {}, schema: {} } },
    };
    const headers = challengeHeaders(required);
    expect(decodePaymentRequiredHeader(headers["PAYMENT-REQUIRED"]!)).toEqual(required);
    expect(decodePaymentRequiredHeader(headers["X-Payment-Required"]!)).toEqual({
      x402Version: 2,
      resource: { url: "http://x/y" },
      accepts: [{ ...payload.accepted, extra: { feePayer: "F", paymentFlow: "upfront" } }],
    });
  });

  it("encodes { success, transaction, network, payer } in both settlement headers", () => {
    const headers = settlementHeaders({ transaction: "sig", network: "solana:x", payer: "p" });
    expect(headers["X-Payment-Response"]).toBe(headers["PAYMENT-RESPONSE"]);
    expect(decodePaymentResponseHeader(headers["PAYMENT-RESPONSE"]!)).toEqual({
      success: true,
      transaction: "sig",
      network: "solana:x",
      payer: "p",
    });
    expect(headers["PAYMENT-RESPONSE"]).toBe(
      encodePaymentResponseHeader({ success: true, transaction: "sig", network: "solana:x", payer: "p" }),
    );
  });

  it("carries the settlement's extensions (a signed receipt) in PAYMENT-RESPONSE, and the plain settlement in X-Payment-Response", () => {
    const extensions = { "offer-receipt": { info: { receipt: { format: "jws", signature: "a.b.c" } } } };
    const headers = settlementHeaders({ transaction: "sig", network: "solana:x", payer: "p", extensions });
    expect(headers["X-Payment-Response"]).toBe(
      settlementHeaders({ transaction: "sig", network: "solana:x", payer: "p" })["PAYMENT-RESPONSE"],
    );
    // Byte for byte what the stock encoder writes.
    expect(headers["PAYMENT-RESPONSE"]).toBe(
      encodePaymentResponseHeader({ success: true, transaction: "sig", network: "solana:x", payer: "p", extensions }),
    );
    expect(decodePaymentResponseHeader(headers["PAYMENT-RESPONSE"]!)).toEqual({
      success: true,
      transaction: "sig",
      network: "solana:x",
      payer: "p",
      extensions,
    });
  });
});
