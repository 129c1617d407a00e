import { describe, expect, it } from "vitest";
import { generateKeypair } from "../keys/parse-secret-key";
import { signDocument, signReceipt } from "../receipts/sign-receipt";
import { readExplorerInput, readTextOrJson } from "./explorer";
import { VERIFIERS } from "./fixtures/verifiers";

describe("readExplorerInput()", () => {
  const id = "7e235f9d-78fc-43c5-afea-c469724a69f1";
  it("reads ids, tx signatures and permalinks as something to fetch", () => {
    expect(readExplorerInput(id)).toEqual({ kind: "id", id });
    expect(readExplorerInput(`http://localhost:3000/r/${id}`)).toEqual({ kind: "id", id });
    expect(readExplorerInput(`https://x.example/api/v1/receipts/${id}?a=1`)).toEqual({ kind: "id", id });
    const sig = "5gMvA8YJrkbtBoRZHPwYAyqVqEYPFPq8e7DEFGsB7Wr5jKLNm2pQ9ZYDVTHbV3uXk1nWnpkbX7vRz9aGqFvw8sZP";
    expect(readExplorerInput(sig)).toEqual({ kind: "id", id: sig });
  });

  it("reads receipt JSON and the base64 header form", () => {
    expect(readExplorerInput('{"v":2}')).toEqual({ kind: "receipt", receipt: { v: 2 } });
    expect(readExplorerInput(Buffer.from('{"v":2}').toString("base64"))).toEqual({
      kind: "receipt",
      receipt: { v: 2 },
    });
  });

  it.each([[""], ["hello there"], ["[1,2]"], ["http://x/r/not-an-id"]])("rejects malformed input %j", (text) => {
    expect(readExplorerInput(text).kind).toBe("invalid");
  });
});

describe("readTextOrJson()", () => {
  it("reads JSON, falls back to text, and treats blank as absent", () => {
    expect(readTextOrJson('[{"role":"user","content":"x"}]')).toEqual([{ role: "user", content: "x" }]);
    expect(readTextOrJson("plain words")).toBe("plain words");
    expect(readTextOrJson("  ")).toBeUndefined();
  });
});

describe.each(VERIFIERS)("verifyVerdictSignature() with %s", (_backend, { verifyVerdictSignature }) => {
  it("accepts a verdict signed by the verifier key and rejects a tampered one or another key", () => {
    const key = generateKeypair();
    const verdict = signDocument({ v: 1, ok: true, receipt_signature: "x" }, "verifier_signature", key);
    expect(verifyVerdictSignature(verdict, key.publicKeyBase58)).toBe(true);
    expect(verifyVerdictSignature({ ...verdict, ok: false }, key.publicKeyBase58)).toBe(false);
    expect(verifyVerdictSignature(verdict, generateKeypair().publicKeyBase58)).toBe(false);
    expect(verifyVerdictSignature({ v: 1 }, key.publicKeyBase58)).toBe(false);
  });
});

describe.each(VERIFIERS)("verifyForExplorer() with %s", (_backend, { verifyForExplorer }) => {
  const current = generateKeypair();
  const retired = generateKeypair();
  const RETIRED_AT = 1_763_000_000_000;
  const operatorKeys = {
    pubkey: current.publicKeyBase58,
    retired: [{ pubkey: retired.publicKeyBase58, retired_at: RETIRED_AT }],
  };
  const receipt = (timestamp: number) =>
    signReceipt({ v: 2, prompt_hash: "p", response_hash: "r", timestamp } as never, retired) as unknown as Record<
      string,
      unknown
    >;
  const check = (r: Record<string, unknown>) =>
    verifyForExplorer({ receipt: r, prompt: undefined, response: undefined, operatorKeys, rpcByNetwork: {} });

  it("takes the published keys: a receipt of a retired key verifies before its retirement, not after", async () => {
    expect(await check(receipt(RETIRED_AT - 1))).toMatchObject({
      mode: "signature-only",
      ok: true,
      operatorKey: retired.publicKeyBase58,
    });
    const late = await check(receipt(RETIRED_AT));
    expect(late).toMatchObject({ ok: false, checks: { service_signature_ok: false } });
    expect(late.reasons.service_signature_ok).toMatch(
      /retired at 2025-11-13T02:13:20\.000Z: the receipt's timestamp .* is not before its retirement$/,
    );
  });
});
