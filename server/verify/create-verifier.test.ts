import bs58 from "bs58";
import { describe, expect, it } from "vitest";
import { generateKeypair } from "../keys/parse-secret-key";
import { signDocument, signReceipt } from "../receipts/sign-receipt";
import * as lib from "./index";
import { createVerifier, nobleVerifier } from "./create-verifier";
import { verifyEd25519Noble, type Ed25519Backend } from "./ed25519";
import type { FetchLike } from "./json-rpc";
import { receiptSigningBytes } from "./verify-receipt";

const operator = generateKeypair();
const prompt = [{ role: "user", content: "hi" }];
const response = "Hello!";

/** A prepaid receipt (no payment block), so a full verification needs no network. */
function prepaidReceipt(): Record<string, unknown> {
  const unsigned = {
    v: 2,
    agent_pubkey: operator.publicKeyBase58,
    prompt_hash: lib.promptHashOfMessages(prompt),
    response_hash: lib.sha256Hex(response),
    timestamp: 1_763_000_000_000,
  };
  return signReceipt(unsigned as never, operator) as unknown as Record<string, unknown>;
}

const mustNotFetch: FetchLike = () => {
  throw new Error("fetch must not be called");
};

const mustNotBeCalled: Ed25519Backend = () => {
  throw new Error("the Ed25519 backend must not be called for input that is not a well-formed signature and key");
};

describe("createVerifier()", () => {
  it("verifies a valid receipt with a strict backend (control for the tests below)", async () => {
    const verifier = createVerifier({ ed25519: verifyEd25519Noble });
    const result = await verifier.verifyReceipt({
      receipt: prepaidReceipt(),
      prompt,
      response,
      operatorKey: operator.publicKeyBase58,
      fetch: mustNotFetch,
    });
    expect(result.ok).toBe(true);
  });

  it("uses the injected backend: one that rejects everything rejects a valid receipt, signature and verdict", async () => {
    const verifier = createVerifier({ ed25519: () => false });
    const receipt = prepaidReceipt();
    const full = await verifier.verifyReceipt({
      receipt,
      prompt,
      response,
      operatorKey: operator.publicKeyBase58,
      fetch: mustNotFetch,
    });
    expect(full.checks).toMatchObject({ prompt_hash_ok: true, response_hash_ok: true, service_signature_ok: false });
    expect(full.ok).toBe(false);
    expect((await verifier.verifySignatureOnly({ receipt, operatorKey: operator.publicKeyBase58 })).ok).toBe(false);
    const explorer = await verifier.verifyForExplorer({
      receipt,
      prompt: undefined,
      response: undefined,
      operatorKey: operator.publicKeyBase58,
      rpcByNetwork: {},
    });
    expect(explorer).toMatchObject({ mode: "signature-only", ok: false });
    const verdict = signDocument({ v: 1, ok: true }, "verifier_signature", operator);
    expect(verifier.verifyVerdictSignature(verdict, operator.publicKeyBase58)).toBe(false);
    expect(nobleVerifier.verifyVerdictSignature(verdict, operator.publicKeyBase58)).toBe(true);
  });

  it("hands the backend the decoded signature, the exact signed bytes and the decoded key", async () => {
    const calls: [Uint8Array, Uint8Array, Uint8Array][] = [];
    const verifier = createVerifier({
      ed25519: (signature, message, publicKey) => (calls.push([signature, message, publicKey]), true),
    });
    const receipt = prepaidReceipt();
    expect((await verifier.verifySignatureOnly({ receipt, operatorKey: operator.publicKeyBase58 })).ok).toBe(true);
    expect(calls).toEqual([
      [
        bs58.decode(receipt.service_signature as string),
        receiptSigningBytes(receipt),
        bs58.decode(operator.publicKeyBase58),
      ],
    ]);
  });

  it("never calls the backend for a malformed signature, key or unsignable document", async () => {
    const verifier = createVerifier({ ed25519: mustNotBeCalled });
    const receipt = prepaidReceipt();
    const key = operator.publicKeyBase58;
    for (const service_signature of [undefined, 42, "", "0OIl", "3".repeat(20), "3".repeat(200)]) {
      const result = await verifier.verifyReceipt({
        receipt: { ...receipt, service_signature },
        prompt,
        response,
        operatorKey: key,
        fetch: mustNotFetch,
      });
      expect(result.checks.service_signature_ok).toBe(false);
      expect(result.checks.prompt_hash_ok).toBe(true);
    }
    // A field canonical JSON refuses cannot have been signed.
    expect(
      (await verifier.verifySignatureOnly({ receipt: { ...receipt, extra: Number.NaN }, operatorKey: key })).ok,
    ).toBe(false);
    expect(verifier.verifyVerdictSignature({ v: 1, ok: true }, key)).toBe(false);
    expect(
      verifier.verifyVerdictSignature(
        { v: 1, verifier_signature: receipt.service_signature, at: Number.POSITIVE_INFINITY },
        key,
      ),
    ).toBe(false);
    expect(verifier.verifyEd25519(new Uint8Array([1]), receipt.service_signature, "not a key")).toBe(false);
    expect(
      verifier.verifyEd25519(new Uint8Array([1]), receipt.service_signature, bs58.encode(new Uint8Array(31))),
    ).toBe(false);
    // Reading the explorer's boxes is not verification.
    expect(lib.readExplorerInput(JSON.stringify(receipt)).kind).toBe("receipt");
  });

  it.each([[undefined], [null], ["noble"], [{}]])("rejects malformed input: ed25519 %j", (ed25519) => {
    expect(() => createVerifier({ ed25519: ed25519 as never })).toThrow(TypeError);
  });
});

describe("nobleVerifier", () => {
  it("is what the library's plain exports run, and cannot be changed", () => {
    expect(lib.nobleVerifier).toBe(nobleVerifier);
    expect(Object.isFrozen(nobleVerifier)).toBe(true);
    expect(lib.verifyReceipt).toBe(nobleVerifier.verifyReceipt);
    expect(lib.verifySignatureOnly).toBe(nobleVerifier.verifySignatureOnly);
    expect(lib.verifyForExplorer).toBe(nobleVerifier.verifyForExplorer);
    expect(lib.verifyVerdictSignature).toBe(nobleVerifier.verifyVerdictSignature);
    expect(lib.verifyEd25519).toBe(nobleVerifier.verifyEd25519);
  });

  it("keeps no mutable backend: the library exports nothing that swaps it", () => {
    expect(Object.keys(lib).filter((name) => /^use[A-Z]|^install|^set[A-Z]/.test(name))).toEqual([]);
  });
});
