import { describe, expect, it } from "vitest";
import { generateKeypair } from "../keys/parse-secret-key";
import { buildReceipt } from "../receipts/build-receipt";
import { signReceipt } from "../receipts/sign-receipt";
import type { Receipt } from "../receipts/receipt-types";
import { VerifierFetchError, type FetchLike } from "./json-rpc";
import { VerifyInputError } from "./verify-receipt";
import {
  AGENT,
  PAY_TO,
  recordedTransaction,
  TX_SIGNATURE,
  type RecordedTxOptions,
} from "./fixtures/recorded-transaction";
import { VERIFIERS } from "./fixtures/verifiers";

const operator = generateKeypair();
const messages = [{ role: "user", content: 'Say hi 😀 \u2028 "q" \\' }];
const response = { choices: [{ index: 0, message: { role: "assistant", content: "Hello!" }, finish_reason: "stop" }] };
const DEVNET = "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1";

function paidReceipt(overrides: Partial<Receipt> = {}): Receipt {
  const unsigned = buildReceipt({
    agentPubkey: AGENT,
    upstream: "local",
    model: "local/echo-1",
    costUnits: 45n,
    prompt: { messages },
    responseText: "Hello!",
    timestampMs: 1_763_000_000_000,
    inferenceId: "3b0c8a5e-2f4e-4a43-9d0e-0a4c2c6f9f11",
    pointsTotal: 1,
    payment: { amountUnits: 10_000n, txSignature: TX_SIGNATURE, network: DEVNET, payTo: PAY_TO },
  });
  return { ...signReceipt(unsigned, operator), ...overrides };
}

/** A fetch that answers getTransaction with a recorded answer; anything else is a test bug and throws. */
function recordedRpc(opts: RecordedTxOptions | null): FetchLike {
  return async (_url, init) => {
    const body = JSON.parse(String(init?.body)) as { method: string; params: unknown[] };
    if (body.method !== "getTransaction") throw new Error(`unexpected RPC method ${body.method}`);
    return Response.json({ jsonrpc: "2.0", id: 1, result: opts === null ? null : recordedTransaction(opts) });
  };
}

const mustNotFetch: FetchLike = () => {
  throw new Error("fetch must not be called");
};

const pinned = { operatorKey: operator.publicKeyBase58, rpc: "http://rpc.invalid" };

describe.each(VERIFIERS)("verifyReceipt() with %s", (_backend, { verifyReceipt, verifySignatureOnly }) => {
  it("passes all five checks for a paid receipt whose transfer is on chain", async () => {
    const result = await verifyReceipt({
      receipt: paidReceipt(),
      prompt: messages,
      response,
      ...pinned,
      fetch: recordedRpc({}),
    });
    expect(result.checks).toEqual({
      prompt_hash_ok: true,
      response_hash_ok: true,
      service_signature_ok: true,
      payment_on_chain_ok: true,
      payer_matches: true,
    });
    expect(result.ok).toBe(true);
    expect(result.reasons.payment_on_chain_ok).toMatch(
      /^transfer of 0\.01 USDC to 8wFS\w+ found in tx 5gMv…8sZP at slot 412345678$/,
    );
    expect(result.reasons.payer_matches).toBe(`payer ${AGENT} signed and paid`);
  });

  it("rejects a receipt whose transfer went to another mint", async () => {
    const result = await verifyReceipt({
      receipt: paidReceipt(),
      prompt: messages,
      response,
      ...pinned,
      fetch: recordedRpc({ mint: "So11111111111111111111111111111111111111112" }),
    });
    expect(result.checks.payment_on_chain_ok).toBe(false);
    expect(result.checks.payer_matches).toBe(false);
    expect(result.ok).toBe(false);
  });

  it("rejects a transfer to another owner", async () => {
    const result = await verifyReceipt({
      receipt: paidReceipt(),
      prompt: messages,
      response,
      ...pinned,
      fetch: recordedRpc({ payToOwner: AGENT.replace("A", "B") }),
    });
    expect(result.checks.payment_on_chain_ok).toBe(false);
  });

  it("rejects a transfer of another amount", async () => {
    const result = await verifyReceipt({
      receipt: paidReceipt(),
      prompt: messages,
      response,
      ...pinned,
      fetch: recordedRpc({ amount: 9_999n }),
    });
    expect(result.checks.payment_on_chain_ok).toBe(false);
    expect(result.checks.payer_matches).toBe(false);
  });

  it("says the payer does not match when the agent did not sign, even though the money arrived", async () => {
    const result = await verifyReceipt({
      receipt: paidReceipt(),
      prompt: messages,
      response,
      ...pinned,
      fetch: recordedRpc({ agentSigns: false }),
    });
    expect(result.checks.payment_on_chain_ok).toBe(true);
    expect(result.checks.payer_matches).toBe(false);
  });

  it("says the payer does not match when another wallet's account paid", async () => {
    const result = await verifyReceipt({
      receipt: paidReceipt(),
      prompt: messages,
      response,
      ...pinned,
      fetch: recordedRpc({ payerOwner: PAY_TO }),
    });
    expect(result.checks.payment_on_chain_ok).toBe(true);
    expect(result.checks.payer_matches).toBe(false);
  });

  it("rejects a failed or missing transaction", async () => {
    const failed = await verifyReceipt({
      receipt: paidReceipt(),
      prompt: messages,
      response,
      ...pinned,
      fetch: recordedRpc({ err: { InstructionError: [0, "Custom"] } }),
    });
    expect(failed.checks.payment_on_chain_ok).toBe(false);
    const missing = await verifyReceipt({
      receipt: paidReceipt(),
      prompt: messages,
      response,
      ...pinned,
      fetch: recordedRpc(null),
    });
    expect(missing.checks.payment_on_chain_ok).toBe(false);
    expect(missing.reasons.payment_on_chain_ok).toMatch(/not found/);
  });

  it("rejects a tampered payment block (the signature breaks even if the chain agrees)", async () => {
    const receipt = paidReceipt();
    const tampered = { ...receipt, payment: { ...receipt.payment!, amount_usdc: 0.02 } };
    const result = await verifyReceipt({
      receipt: tampered,
      prompt: messages,
      response,
      ...pinned,
      fetch: recordedRpc({ amount: 20_000n }),
    });
    expect(result.checks.service_signature_ok).toBe(false);
    expect(result.checks.payment_on_chain_ok).toBe(true);
    expect(result.ok).toBe(false);
  });

  it("rejects fields added after signing", async () => {
    const result = await verifyReceipt({
      receipt: { ...paidReceipt(), bonus: 1 },
      prompt: messages,
      response,
      ...pinned,
      fetch: recordedRpc({}),
    });
    expect(result.checks.service_signature_ok).toBe(false);
  });

  it("rejects a signature made by another key", async () => {
    const other = generateKeypair();
    const { service_signature: _s, ...unsigned } = paidReceipt();
    const forged = signReceipt(unsigned, other);
    const result = await verifyReceipt({
      receipt: forged,
      prompt: messages,
      response,
      ...pinned,
      fetch: recordedRpc({}),
    });
    expect(result.checks.service_signature_ok).toBe(false);
  });

  it.each([["not base58 (0OIl)"], ["0OIl0OIl"], [""], [42], ["3".repeat(87)]])(
    "rejects a service_signature that is not a base58 64-byte signature: %j",
    async (sig) => {
      const result = await verifyReceipt({
        receipt: { ...paidReceipt(), service_signature: sig },
        prompt: messages,
        response,
        ...pinned,
        fetch: recordedRpc({}),
      });
      expect(result.checks.service_signature_ok).toBe(false);
    },
  );

  it("checks the signature over whatever fields an older receipt carries", async () => {
    const legacyShape = {
      v: 2,
      agent_pubkey: AGENT,
      provider: "openrouter:fast",
      balance_remaining: 0.5,
      prompt_hash: "x",
      response_hash: "y",
      timestamp: 1,
    };
    const signed = signReceipt(legacyShape as never, operator);
    const result = await verifySignatureOnly({ receipt: signed, operatorKey: operator.publicKeyBase58 });
    expect(result.ok).toBe(true);
  });

  it("fails the hashes for another prompt or another response", async () => {
    const result = await verifyReceipt({
      receipt: paidReceipt(),
      prompt: [{ role: "user", content: "other" }],
      response: "Hello?",
      ...pinned,
      fetch: recordedRpc({}),
    });
    expect(result.checks.prompt_hash_ok).toBe(false);
    expect(result.checks.response_hash_ok).toBe(false);
    expect(result.checks.service_signature_ok).toBe(true);
  });

  it("treats both payment checks as vacuously true for a prepaid receipt, without touching the network", async () => {
    const { payment: _p, service_signature: _s, ...unsigned } = paidReceipt();
    const prepaid = signReceipt(unsigned, operator);
    const result = await verifyReceipt({
      receipt: prepaid,
      prompt: messages,
      response,
      ...pinned,
      fetch: mustNotFetch,
    });
    expect(result.ok).toBe(true);
  });

  it("reports both payment checks false in offline mode, without touching the network", async () => {
    const result = await verifyReceipt({
      receipt: paidReceipt(),
      prompt: messages,
      response,
      ...pinned,
      offline: true,
      fetch: mustNotFetch,
    });
    expect(result.checks.payment_on_chain_ok).toBe(false);
    expect(result.checks.payer_matches).toBe(false);
    expect(result.checks.service_signature_ok).toBe(true);
  });

  it("reports an unknown payment network as failed checks", async () => {
    const { service_signature: _s, ...unsigned } = paidReceipt();
    const odd = signReceipt({ ...unsigned, payment: { ...unsigned.payment!, network: "solana:unknown" } }, operator);
    const result = await verifyReceipt({ receipt: odd, prompt: messages, response, ...pinned, fetch: mustNotFetch });
    expect(result.checks.payment_on_chain_ok).toBe(false);
    expect(result.reasons.payment_on_chain_ok).toMatch(/unsupported payment network/);
  });

  it("throws (not false) when the RPC is down, after one retry", async () => {
    let calls = 0;
    const down: FetchLike = async () => {
      calls++;
      throw new TypeError("fetch failed");
    };
    await expect(
      verifyReceipt({ receipt: paidReceipt(), prompt: messages, response, ...pinned, fetch: down }),
    ).rejects.toBeInstanceOf(VerifierFetchError);
    expect(calls).toBe(2);
  });

  it("throws a timeout error when the RPC hangs", async () => {
    const hang: FetchLike = (_url, init) =>
      new Promise((_, reject) =>
        init?.signal?.addEventListener("abort", () => reject(new DOMException("aborted", "AbortError"))),
      );
    const started = Date.now();
    const err = await verifyReceipt({
      receipt: paidReceipt(),
      prompt: messages,
      response,
      ...pinned,
      fetch: hang,
      attemptTimeoutMs: 100,
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(VerifierFetchError);
    expect((err as VerifierFetchError).reason).toBe("rpc_timeout");
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it("fetches the operator key from the endpoint when none is pinned", async () => {
    const urls: string[] = [];
    const service: FetchLike = async (url) => {
      urls.push(url);
      if (url === "https://signet.example/api/v1/operator-key") {
        return Response.json({ pubkey: operator.publicKeyBase58, algorithm: "ed25519", encoding: "base58" });
      }
      throw new Error(`unexpected fetch ${url}`);
    };
    const result = await verifySignatureOnly({
      receipt: paidReceipt(),
      endpoint: "https://signet.example/",
      fetch: service,
    });
    expect(result.ok).toBe(true);
    expect(urls).toEqual(["https://signet.example/api/v1/operator-key"]);
  });

  it("throws when the operator-key fetch fails or returns no key", async () => {
    const notFound: FetchLike = async () => new Response("nope", { status: 404 });
    await expect(
      verifySignatureOnly({ receipt: paidReceipt(), endpoint: "https://x.example", fetch: notFound }),
    ).rejects.toMatchObject({
      reason: "operator_key_unavailable",
    });
    const garbage: FetchLike = async () => Response.json({ pubkey: "nope" });
    await expect(
      verifySignatureOnly({ receipt: paidReceipt(), endpoint: "https://x.example", fetch: garbage }),
    ).rejects.toBeInstanceOf(VerifierFetchError);
  });

  it.each([[null], ["receipt"], [[1, 2]], [42]])("rejects malformed input: receipt %j", async (receipt) => {
    await expect(
      verifyReceipt({ receipt, prompt: messages, response, ...pinned, fetch: mustNotFetch }),
    ).rejects.toBeInstanceOf(VerifyInputError);
  });

  describe("across an operator key rotation", () => {
    const retiredKey = generateKeypair();
    /** paidReceipt() signed by `key` at `timestamp`. */
    const signedBy = (key: typeof operator, timestamp: number) => {
      const { service_signature: _s, ...unsigned } = paidReceipt();
      return signReceipt({ ...unsigned, timestamp }, key);
    };
    const RETIRED_AT = 1_763_000_000_000;
    const rotated = {
      pubkey: operator.publicKeyBase58,
      retired: [{ pubkey: retiredKey.publicKeyBase58, retired_at: RETIRED_AT }],
    };
    const resource = { algorithm: "ed25519", encoding: "base58", ...rotated };
    const serving =
      (body: unknown): FetchLike =>
      async (url) => {
        if (url === "https://signet.example/api/v1/operator-key") return Response.json(body);
        throw new Error(`unexpected fetch ${url}`);
      };

    it("accepts a receipt a retired key signed before its retirement, from the pinned keys or the endpoint's", async () => {
      const receipt = signedBy(retiredKey, RETIRED_AT - 1);
      const pinnedSet = await verifySignatureOnly({ receipt, operatorKeys: rotated });
      expect(pinnedSet).toMatchObject({ ok: true, operatorKey: retiredKey.publicKeyBase58 });
      expect(pinnedSet.reasons.service_signature_ok).toBe(
        `signature made by retired operator key ${retiredKey.publicKeyBase58.slice(0, 4)}… before its retirement at 2025-11-13T02:13:20.000Z`,
      );
      const fetched = await verifyReceipt({
        receipt,
        prompt: messages,
        response,
        endpoint: "https://signet.example",
        offline: true,
        fetch: serving(resource),
      });
      expect(fetched.checks.service_signature_ok).toBe(true);
      expect(fetched.operatorKey).toBe(retiredKey.publicKeyBase58);
    });

    it("refuses a receipt a retired key signed at or after its retirement, saying why", async () => {
      const result = await verifySignatureOnly({
        receipt: signedBy(retiredKey, RETIRED_AT),
        endpoint: "https://signet.example",
        fetch: serving(resource),
      });
      expect(result.ok).toBe(false);
      expect(result.reasons.service_signature_ok).toBe(
        `signature made by operator key ${retiredKey.publicKeyBase58.slice(0, 4)}…, retired at 2025-11-13T02:13:20.000Z: the receipt's timestamp 2025-11-13T02:13:20.000Z is not before its retirement`,
      );
    });

    it("accepts the current key's receipts whenever they were signed, and a pinned key alone keeps refusing the retired one", async () => {
      expect(
        (await verifySignatureOnly({ receipt: signedBy(operator, RETIRED_AT - 10), operatorKeys: rotated }))
          .operatorKey,
      ).toBe(operator.publicKeyBase58);
      const pinnedAlone = await verifySignatureOnly({
        receipt: signedBy(retiredKey, RETIRED_AT - 1),
        operatorKey: operator.publicKeyBase58,
      });
      expect(pinnedAlone.ok).toBe(false);
      expect(pinnedAlone.reasons.service_signature_ok).toBe(
        `signature is not valid for operator key ${operator.publicKeyBase58.slice(0, 4)}…`,
      );
      const neither = await verifySignatureOnly({
        receipt: signedBy(generateKeypair(), RETIRED_AT - 1),
        operatorKeys: rotated,
      });
      expect(neither.reasons.service_signature_ok).toBe(
        `signature is not valid for operator key ${operator.publicKeyBase58.slice(0, 4)}… nor for any of its retired keys`,
      );
    });

    it("rejects malformed input: both a pinned key and pinned keys, malformed pinned keys, a malformed retired list served", async () => {
      const receipt = signedBy(operator, RETIRED_AT);
      await expect(
        verifySignatureOnly({ receipt, operatorKey: operator.publicKeyBase58, operatorKeys: rotated }),
      ).rejects.toBeInstanceOf(VerifyInputError);
      await expect(
        verifySignatureOnly({
          receipt,
          operatorKeys: { pubkey: operator.publicKeyBase58, retired: [{ pubkey: "abc", retired_at: 1 }] },
        }),
      ).rejects.toBeInstanceOf(VerifyInputError);
      await expect(
        verifySignatureOnly({
          receipt,
          endpoint: "https://signet.example",
          fetch: serving({ ...resource, retired: [{ pubkey: retiredKey.publicKeyBase58 }] }),
        }),
      ).rejects.toMatchObject({
        reason: "operator_key_unavailable",
      });
    });
  });

  it("rejects a malformed pinned key and a missing key source", async () => {
    await expect(verifySignatureOnly({ receipt: paidReceipt(), operatorKey: "abc" })).rejects.toBeInstanceOf(
      VerifyInputError,
    );
    await expect(verifySignatureOnly({ receipt: paidReceipt() })).rejects.toBeInstanceOf(VerifyInputError);
  });
});
