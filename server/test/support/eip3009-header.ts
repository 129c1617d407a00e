// EIP-3009 payment headers signed by hand, as a client with its own ideas would: each field can be overridden, so tests
// can send authorizations the stock client never would (another amount, payee, window or a reused nonce).
import { randomBytes } from "node:crypto";
import { encodePaymentSignatureHeader } from "@x402/core/http";
import type { PaymentRequired, PaymentRequirements } from "@x402/core/types";
import { authorizationTypes } from "@x402/evm";
import type { PrivateKeyAccount } from "viem/accounts";

/** Signs an EIP-3009 authorization for the challenge by hand. */
export async function authorizationHeader(
  account: PrivateKeyAccount,
  challenge: PaymentRequired,
  overrides: Partial<{
    to: `0x${string}`;
    value: bigint;
    validAfter: bigint;
    validBefore: bigint;
    nonce: `0x${string}`;
  }> = {},
): Promise<string> {
  const accepted = challenge.accepts[0]! as PaymentRequirements & { extra: { name: string; version: string } };
  const now = BigInt(Math.floor(Date.now() / 1000));
  const authorization = {
    from: account.address,
    to: overrides.to ?? (accepted.payTo as `0x${string}`),
    value: overrides.value ?? BigInt(accepted.amount),
    validAfter: overrides.validAfter ?? now - 600n,
    validBefore: overrides.validBefore ?? now + 120n,
    nonce: overrides.nonce ?? (`0x${randomBytes(32).toString("hex")}` as `0x${string}`),
  };
  const signature = await account.signTypedData({
    domain: {
      name: accepted.extra.name,
      version: accepted.extra.version,
      chainId: Number(accepted.network.split(":")[1]),
      verifyingContract: accepted.asset as `0x${string}`,
    },
    types: authorizationTypes,
    primaryType: "TransferWithAuthorization",
    message: authorization,
  });
  const payload = {
    signature,
    authorization: {
      ...authorization,
      value: authorization.value.toString(),
      validAfter: authorization.validAfter.toString(),
      validBefore: authorization.validBefore.toString(),
    },
  };
  return encodePaymentSignatureHeader({ x402Version: 2, resource: challenge.resource, accepted, payload });
}
