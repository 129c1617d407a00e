import { describe, expect, it } from "vitest";
import { mismatchedFields, mismatchMessage } from "./requirements-mismatch";

const required = {
  scheme: "exact",
  network: "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1",
  amount: "1000",
  asset: "4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU",
  payTo: "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin",
  maxTimeoutSeconds: 60,
  extra: { feePayer: "FeePayer1111111111111111111111111111111111", recentBlockhash: "abc", lastValidBlockHeight: 10 },
};

describe("mismatchedFields", () => {
  it("finds nothing in the challenge itself, or in one carrying an older challenge's blockhash", () => {
    expect(mismatchedFields(required, structuredClone(required))).toEqual([]);
    expect(mismatchedFields(required, { ...required, extra: { ...required.extra, recentBlockhash: "old" } })).toEqual(
      [],
    );
  });

  it("names each core field that differs, one missing or added included", () => {
    const { asset: _asset, ...noAsset } = required;
    expect(mismatchedFields(required, { ...required, amount: "999" })).toEqual(["amount"]);
    expect(mismatchedFields(required, { ...noAsset, payTo: "other" })).toEqual(["asset", "payTo"]);
    expect(mismatchedFields(required, { ...required, extraField: 1 })).toEqual(["extraField"]);
  });

  it("names an extra field the challenge set and the payment changed or left out, and ignores one it only added", () => {
    expect(mismatchedFields(required, { ...required, extra: { feePayer: "attacker" } })).toEqual(["extra.feePayer"]);
    expect(mismatchedFields(required, { ...required, extra: undefined })).toEqual(["extra.feePayer"]);
    expect(mismatchedFields(required, { ...required, extra: { ...required.extra, note: "x" } })).toEqual([]);
  });

  it("compares only the scheme and network an x402 v1 payment names", () => {
    const v1 = { scheme: "exact", network: "solana:other" };
    expect(mismatchedFields(required, v1, { v1: true })).toEqual(["network"]);
    expect(mismatchedFields(required, { scheme: "exact", network: required.network }, { v1: true })).toEqual([]);
  });

  it("says the accepted requirement itself is missing when it is no object", () => {
    expect(mismatchedFields(required, null)).toEqual(["accepted"]);
    expect(mismatchedFields(required, "exact")).toEqual(["accepted"]);
  });
});

describe("mismatchMessage", () => {
  it("names what differs, in one line", () => {
    expect(mismatchMessage(required, { ...required, extra: { feePayer: "x" } })).toBe(
      "the payment does not match the challenge: its extra.feePayer differs",
    );
    expect(mismatchMessage(required, { ...required, amount: "1", network: "solana:x" })).toBe(
      "the payment does not match the challenge: its network, amount differ",
    );
    expect(mismatchMessage(required, required)).toContain("(scheme, network, amount, asset, payee or extra)");
  });
});
