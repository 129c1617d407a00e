import { describe, expect, it } from "vitest";
import type { VerifyResult } from "../../../server/verify";
import { formatBalanceReport, formatVerifyReport, type CreditsAnswer } from "./format-reports";

const ID = "0b3c6a52-5f0e-4d7e-9a43-2d1f1d6c7e10";
const KEY = "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin";
const passing: VerifyResult = {
  ok: true,
  checks: {
    prompt_hash_ok: true,
    response_hash_ok: true,
    service_signature_ok: true,
    payment_on_chain_ok: true,
    payer_matches: true,
  },
  reasons: {
    prompt_hash_ok: "the prompt hashes to prompt_hash",
    response_hash_ok: "the response hashes to response_hash",
    service_signature_ok: "signed by the operator key",
    payment_on_chain_ok: "transfer of 0.01 USDC found",
    payer_matches: "the payer is the agent",
  },
  operatorKey: KEY,
};

describe("formatVerifyReport()", () => {
  it("prints the verdict, then each check with ✓ or ✗ and its reason, then the operator key", () => {
    expect(formatVerifyReport({ inferenceId: ID, result: passing, log: undefined })).toBe(
      [
        `receipt ${ID}: ok`,
        "  ✓ prompt_hash_ok: the prompt hashes to prompt_hash",
        "  ✓ response_hash_ok: the response hashes to response_hash",
        "  ✓ service_signature_ok: signed by the operator key",
        "  ✓ payment_on_chain_ok: transfer of 0.01 USDC found",
        "  ✓ payer_matches: the payer is the agent",
        `  operator key: ${KEY}`,
        "",
      ].join("\n"),
    );
  });

  it("says NOT OK and marks the failing check with ✗ and the reason it failed", () => {
    const failing: VerifyResult = {
      ...passing,
      ok: false,
      checks: { ...passing.checks, response_hash_ok: false },
      reasons: { ...passing.reasons, response_hash_ok: "the response does not hash to response_hash" },
    };
    const report = formatVerifyReport({ inferenceId: ID, result: failing, log: undefined });
    expect(report.split("\n")[0]).toBe(`receipt ${ID}: NOT OK`);
    expect(report).toContain("  ✗ response_hash_ok: the response does not hash to response_hash\n");
  });

  it("says what a signature-only check left unchecked", () => {
    const report = formatVerifyReport({
      inferenceId: ID,
      result: {
        ok: true,
        checks: { service_signature_ok: true },
        reasons: { service_signature_ok: "signed" },
        operatorKey: KEY,
      },
      log: undefined,
    });
    expect(report).toContain(
      "  ✓ service_signature_ok: signed\n  (signature only: the prompt, the answer and the payment were not checked)\n",
    );
  });

  it("adds the log's verdict, and a receipt not proven in the log is NOT OK although its checks pass", () => {
    const included = formatVerifyReport({
      inferenceId: ID,
      result: passing,
      log: { ok: true, log_index: 4, tree_size: 9, log_key: "signet.test/log+0a1b2c3d+AQ", cosigned_by: ["w1"] },
    });
    expect(included).toContain(
      "  ✓ log: included at index 4 of tree size 9, checkpoint signed by signet.test/log+0a1b2c3d+AQ, cosigned by w1\n",
    );
    const missing = formatVerifyReport({
      inferenceId: ID,
      result: passing,
      log: { ok: false, reason: "not_included" },
    });
    expect(missing.split("\n")[0]).toBe(`receipt ${ID}: NOT OK`);
    expect(missing).toContain("  ✗ log: not proven: not_included\n");
  });

  it("rejects malformed input: a receipt without an inference id is named as such", () => {
    expect(formatVerifyReport({ inferenceId: "", result: passing, log: undefined }).split("\n")[0]).toBe(
      "receipt (no inference id): ok",
    );
  });
});

describe("formatBalanceReport()", () => {
  const answer: CreditsAnswer = {
    agent_pubkey: KEY,
    network: "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1",
    balance_usdc: "0.0899",
    entries: [
      {
        id: "3",
        kind: "capture",
        amount_usdc: "-0.0001",
        payment_id: null,
        inference_id: ID,
        created_at: "2025-01-02T03:04:06.000Z",
      },
      {
        id: "1",
        kind: "grant_credit",
        amount_usdc: "0.09",
        payment_id: null,
        inference_id: null,
        created_at: "2025-01-02T03:04:05.000Z",
      },
    ],
  };

  it("prints the balance on its network, then the entries newest first with signed, aligned amounts", () => {
    expect(formatBalanceReport(answer, () => "Solana devnet")).toBe(
      [
        `agent ${KEY} on Solana devnet (solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1)`,
        "balance: 0.0899 USDC",
        "recent ledger entries (2, newest first):",
        `  2025-01-02T03:04:06.000Z  capture       -0.0001 USDC  inference ${ID}`,
        "  2025-01-02T03:04:05.000Z  grant_credit    +0.09 USDC",
        "",
      ].join("\n"),
    );
  });

  it("says so when the agent has no entries, and names an unknown network by its id", () => {
    expect(formatBalanceReport({ ...answer, network: "eip155:1", balance_usdc: "0", entries: [] })).toBe(
      `agent ${KEY} on eip155:1\nbalance: 0 USDC\nno ledger entries yet\n`,
    );
  });

  it("rejects malformed input: an answer without an entries list reads as no entries", () => {
    expect(formatBalanceReport({ ...answer, entries: undefined as unknown as CreditsAnswer["entries"] })).toContain(
      "no ledger entries yet",
    );
  });
});
