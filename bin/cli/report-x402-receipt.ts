// Prints a paid answer's x402 signed receipt (offer-receipt extension) for the CLI, after checking it: the JWS
// signature against the key its did:web `kid` names (the DID document fetched from the service's domain), that key
// being the service's own (a retired one only for a receipt issued before its retirement), and the receipt being for
// the service's resource. Shared by `signet chat` and `signet topup`.
import type { SignedReceipt } from "@x402/extensions/offer-receipt";
import { isValidPaymentId } from "@x402/extensions/payment-identifier";
import { checkX402Receipt } from "../../server/agent/check-x402-receipt";
import { formatUnixMs } from "../../server/verify";
import { UsageError } from "./cli-support";

/** Prints the check on stderr; true when the receipt verified. */
export async function reportX402Receipt(receipt: SignedReceipt | undefined | null, endpoint: string): Promise<boolean> {
  if (!receipt) {
    process.stderr.write("x402 receipt: none in the answer\n");
    return false;
  }
  const check = await checkX402Receipt(receipt, endpoint);
  if (!check.ok) {
    process.stderr.write(`x402 receipt: NOT OK (${check.reason}): ${check.detail}\n`);
    return false;
  }
  const p = check.payload;
  const retired =
    check.retiredAt === null ? "" : ` (a retired key, before its retirement at ${formatUnixMs(check.retiredAt)})`;
  process.stderr.write(`x402 receipt: ok, JWS by ${check.kid}${retired}, verified against its did:web document\n`);
  process.stderr.write(
    `  payer ${p.payer}, network ${p.network}, resource ${p.resourceUrl}, issued ${new Date(p.issuedAt * 1000).toISOString()}${p.transaction ? `, tx ${p.transaction}` : ""}\n`,
  );
  return true;
}

/** The `--payment-id` value, checked as the service will (16–128 of `[A-Za-z0-9_-]`). */
export function paymentIdOption(value: string | undefined): string | undefined {
  if (value !== undefined && !isValidPaymentId(value))
    throw new UsageError("--payment-id must be 16-128 characters of A-Z, a-z, 0-9, _ and -");
  return value;
}
