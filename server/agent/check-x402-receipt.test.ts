import { describe, expect, it } from "vitest";
import type { SignedReceipt } from "@x402/extensions/offer-receipt";
import { checkX402Receipt } from "./check-x402-receipt";

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
const jws = (header: unknown, payload: unknown = { version: 1 }) => ({ format: "jws", signature: `${b64(header)}.${b64(payload)}.${"A".repeat(86)}` }) as SignedReceipt;

describe("checkX402Receipt()", () => {
  it("rejects malformed input: a receipt in another format, or whose header cannot be read", async () => {
    expect(await checkX402Receipt({ format: "eip712", payload: {}, signature: "0x00" } as unknown as SignedReceipt, "https://signet.example.com")).toMatchObject({ ok: false, reason: "not_jws" });
    expect(await checkX402Receipt({ format: "jws", signature: "not-a-jws" } as SignedReceipt, "https://signet.example.com")).toMatchObject({ ok: false, reason: "unreadable" });
  });

  it("refuses a receipt signed by a key of another domain before resolving anything: any key verifies its own signature", async () => {
    const check = await checkX402Receipt(jws({ alg: "EdDSA", kid: "did:web:evil.example#operator-key" }), "https://signet.example.com");
    expect(check).toMatchObject({ ok: false, reason: "foreign_key" });
    expect(await checkX402Receipt(jws({ alg: "EdDSA" }), "https://signet.example.com")).toMatchObject({ ok: false, reason: "foreign_key" });
    // A DID that merely starts with the service's host is another domain.
    expect(await checkX402Receipt(jws({ alg: "EdDSA", kid: "did:web:signet.example.com.evil.example#k" }), "https://signet.example.com")).toMatchObject({ ok: false, reason: "foreign_key" });
  });
});
