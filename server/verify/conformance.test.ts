// The public receipt vectors (vendored in ./vectors/sir-v2) are a test of their own: the library must agree with every
// boolean in every folder, offline. "skip-offline" checks must come out false offline (the vectors' notes say so).
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { receiptSigningBytes, CHECK_NAMES } from "./verify-receipt";
import { promptHashCandidates, responseHash } from "./hashes";
import type { FetchLike } from "./json-rpc";
import { VERIFIERS } from "./fixtures/verifiers";
import { VECTORS_DIR } from "./fixtures/vectors-dir";

const mustNotFetch: FetchLike = () => {
  throw new Error("offline conformance must not touch the network");
};

function readJson(dir: string, file: string): Record<string, unknown> {
  return JSON.parse(readFileSync(path.join(dir, file), "utf8")) as Record<string, unknown>;
}

const folders = existsSync(VECTORS_DIR)
  ? readdirSync(VECTORS_DIR, { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => d.name)
      .sort()
  : [];

describe("conformance vectors (sir-v2)", () => {
  it("finds the vectors folder with at least one vector", () => {
    expect(existsSync(VECTORS_DIR), `missing ${VECTORS_DIR}`).toBe(true);
    expect(folders.length).toBeGreaterThan(0);
  });

  describe.each(folders)("%s", (name) => {
    const dir = path.join(VECTORS_DIR, name);
    const receipt = readJson(dir, "receipt.json");
    const request = readJson(dir, "request.json");
    const response = readJson(dir, "response.json");
    const expected = readJson(dir, "expected.json") as {
      checks: Record<string, boolean | "skip-offline">;
      ok: boolean | string;
      prompt_hash_expected?: string;
      response_hash_expected?: string;
      canonical_payload_hex?: string;
    };
    const operatorKey = readFileSync(path.join(dir, "operator-pubkey.txt"), "utf8").trim();

    it("signs over the expected canonical payload bytes", () => {
      if (expected.canonical_payload_hex === undefined)
        return expect(expected).not.toHaveProperty("canonical_payload_hex");
      expect(Buffer.from(receiptSigningBytes(receipt)).toString("hex")).toBe(expected.canonical_payload_hex);
    });

    it("recomputes the expected prompt and response hashes", () => {
      if (expected.prompt_hash_expected) {
        expect(promptHashCandidates(request).map((c) => c.hash)).toContain(expected.prompt_hash_expected);
      }
      if (expected.response_hash_expected) expect(responseHash(response)).toBe(expected.response_hash_expected);
    });

    it.each(VERIFIERS)("agrees with every expected check, offline, with %s", async (_backend, verifier) => {
      const result = await verifier.verifyReceipt({
        receipt,
        prompt: request,
        response,
        operatorKey,
        offline: true,
        fetch: mustNotFetch,
      });
      for (const check of CHECK_NAMES) {
        const want = expected.checks[check];
        expect(want, `expected.json lacks ${check}`).toBeDefined();
        expect(result.checks[check], check).toBe(want === "skip-offline" ? false : want);
      }
      expect(result.ok).toBe(expected.ok === true);
    });
  });
});
