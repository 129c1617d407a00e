import type { PaymentPayload, PaymentRequirements, SchemeNetworkFacilitator } from "@x402/core/types";
import { ExactEvmScheme } from "@x402/evm/exact/facilitator";
import type { FacilitatorEvmSigner } from "@x402/evm";
import { describe, expect, it } from "vitest";
import { evmPayloadRefusal } from "./accept-eip3009-only";
import { refuseBeforeVerify } from "./refuse-before-verify";

const FACILITATOR = "0x9e6a07813c81b1755b18a0b3c70790c0c1fc6263";
const AGENT = "0xeed9922d09cb845a9a9df08f97d95834dc7cdfb3";
const requirements: PaymentRequirements = {
  scheme: "exact",
  network: "eip155:84532",
  amount: "1000",
  asset: "0x036CbD53842c5426634e7929541eC2318f3dCF7e",
  payTo: FACILITATOR,
  maxTimeoutSeconds: 120,
  extra: { name: "USDC", version: "2" },
};
const pay = (inner: Record<string, unknown>): PaymentPayload => ({
  x402Version: 2,
  accepted: requirements,
  payload: inner,
});
const permit2 = pay({
  signature: `0x${"11".repeat(65)}`,
  permit2Authorization: {
    from: AGENT,
    permitted: { token: requirements.asset, amount: "1000" },
    spender: "0x4020615294c913F045dc10f0a5cdEbd86c280001",
    nonce: "1",
    deadline: "9999999999",
    witness: { to: FACILITATOR, validAfter: "0" },
  },
});
const eip3009 = pay({
  signature: `0x${"22".repeat(65)}`,
  authorization: {
    from: AGENT,
    to: FACILITATOR,
    value: "1000",
    validAfter: "0",
    validBefore: "9999999999",
    nonce: `0x${"33".repeat(32)}`,
  },
});

/** The stock EVM scheme over a chain that must not be touched: every signer call throws. */
function schemeThatMustNotTouchTheChain(): SchemeNetworkFacilitator {
  const signer = new Proxy({ getAddresses: () => [FACILITATOR] } as Record<string, unknown>, {
    get: (target, key) =>
      key in target
        ? target[key as string]
        : () => {
            throw new Error(`signer.${String(key)} must not be called for a refused payment`);
          },
  }) as unknown as FacilitatorEvmSigner;
  return refuseBeforeVerify(new ExactEvmScheme(signer), evmPayloadRefusal);
}

describe("evmPayloadRefusal()", () => {
  it("passes a plain EIP-3009 authorization", () => {
    expect(evmPayloadRefusal(eip3009)).toBeNull();
  });

  it.each([
    ["a Permit2 payload", permit2.payload],
    [
      "an EIP-3009 payload with a Permit2 authorization beside it",
      {
        ...eip3009.payload,
        permit2Authorization: (permit2.payload as { permit2Authorization: unknown }).permit2Authorization,
      },
    ],
    ["an authorization that is not an object", { signature: "0x", authorization: "yes" }],
    ["an empty payload", {}],
  ])("refuses %s as unsupported_payload", (_label, inner) => {
    expect(evmPayloadRefusal(pay(inner as Record<string, unknown>))).toBe("unsupported_payload");
  });

  it("rejects malformed input: a payload that is not an object", () => {
    expect(evmPayloadRefusal({ ...eip3009, payload: null as never })).toBe("unsupported_payload");
    expect(evmPayloadRefusal({ ...eip3009, payload: [] as never })).toBe("unsupported_payload");
  });
});

describe("the exact EVM scheme as Signet registers it", () => {
  it("refuses a Permit2 payload at verify with unsupported_payload, before the chain is read", async () => {
    expect(await schemeThatMustNotTouchTheChain().verify(permit2, requirements)).toEqual({
      isValid: false,
      invalidReason: "unsupported_payload",
      payer: "",
    });
  });

  it("refuses a Permit2 payload at settle, before anything is sent", async () => {
    expect(await schemeThatMustNotTouchTheChain().settle(permit2, requirements)).toMatchObject({
      success: false,
      errorReason: "unsupported_payload",
      transaction: "",
    });
  });

  it("hands an EIP-3009 payload on to the scheme it wraps, for verify and settle", async () => {
    const seen: string[] = [];
    const inner: SchemeNetworkFacilitator = {
      scheme: "exact",
      caipFamily: "eip155:*",
      getExtra: () => undefined,
      getSigners: () => [FACILITATOR],
      verify: async () => (seen.push("verify"), { isValid: true, payer: AGENT }),
      settle: async () => (
        seen.push("settle"),
        { success: true, transaction: "0xabc", network: requirements.network, payer: AGENT }
      ),
    };
    const guarded = refuseBeforeVerify(inner, evmPayloadRefusal);
    expect(await guarded.verify(eip3009, requirements)).toEqual({ isValid: true, payer: AGENT });
    expect(await guarded.settle(eip3009, requirements)).toMatchObject({ success: true, transaction: "0xabc" });
    expect(seen).toEqual(["verify", "settle"]);
  });
});
