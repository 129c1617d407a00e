import type { PaymentPayload } from "@x402/core/types";
import { describe, expect, it } from "vitest";
import { settlementExpiry } from "./find-landed-settlement";

const payloadOf = (inner: unknown) => ({ x402Version: 2, payload: inner }) as unknown as PaymentPayload;

describe("settlementExpiry()", () => {
  it("reads an EIP-3009 authorization's validBefore as a date", () => {
    expect(settlementExpiry(payloadOf({ authorization: { validBefore: "1800000000" } }))).toEqual({
      blockhash: null,
      validBefore: new Date(1_800_000_000_000),
    });
  });

  it("rejects malformed input: no expiry is read from it", () => {
    for (const inner of [
      {},
      { transaction: 42 },
      { transaction: "not a transaction" },
      { authorization: { validBefore: "soon" } },
      { authorization: { validBefore: 1e30 } },
      { authorization: null },
    ]) {
      expect(settlementExpiry(payloadOf(inner))).toEqual({ blockhash: null, validBefore: null });
    }
  });
});
