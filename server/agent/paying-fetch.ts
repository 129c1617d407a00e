// The agent side, for the CLI and the tests: a stock @x402/fetch client paying with a Solana keypair through the
// official exact SVM client scheme, or with an EVM key through the exact EVM scheme (EIP-3009): default spend
// controls, nothing of ours in between, but for the one opt-in x402 asks of a network whose USDC its default assets
// do not list (Polygon Amoy's, Avalanche Fuji's). A payment id (x402 payment-identifier) is added the way the extension's own
// client example does: a hook before the payment is created.
import "server-only";
import { readFileSync } from "node:fs";
import { createKeyPairSignerFromBytes, type KeyPairSigner } from "@solana/kit";
import { x402Client } from "@x402/core/client";
import type { PaymentRequirements } from "@x402/core/types";
import { wrapFetchWithPayment } from "@x402/fetch";
import { ExactSvmScheme } from "@x402/svm/exact/client";
import { DEFAULT_ASSETS } from "@x402/evm";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { appendPaymentIdentifierToExtensions } from "@x402/extensions/payment-identifier";
import type { PrivateKeyAccount } from "viem/accounts";
import { parseSecretKey, type Ed25519Keypair } from "../keys/parse-secret-key";
import { SHIPPED_NETWORKS, type NetworkRegistry } from "../verify";

/** A kit signer for an Ed25519 keypair. */
export function signerFromKeypair(keypair: Ed25519Keypair): Promise<KeyPairSigner> {
  return createKeyPairSignerFromBytes(new Uint8Array([...keypair.seed, ...keypair.publicKey]));
}

/** Reads a Solana CLI keypair file (or base58 secret) into a keypair. */
export function readKeypairFile(file: string): Ed25519Keypair {
  return parseSecretKey(readFileSync(file, "utf8"));
}

export interface PayingFetchOptions {
  /** The payment id every payment of this client carries (16–128 of `[A-Za-z0-9_-]`; the package throws otherwise). */
  paymentId?: string;
  /**
   * Asked before each payment is created, with the requirements the client chose: a refusal aborts it (the stock
   * client's own hook), so nothing is signed and the fetch rejects with the reason.
   */
  beforePayment?: (requirements: PaymentRequirements) => Promise<void | { abort: true; reason: string }>;
  /** Where an EVM network's USDC is read from (default: this release's networks). */
  networks?: NetworkRegistry;
}

/**
 * The cap on one payment in a USDC x402 does not list as a default asset, in atomic units: 1 USDC, the stock client's
 * own default cap ("$1") on the assets it knows.
 */
const LISTED_USDC_MAX_UNITS_PER_PAYMENT = "1000000";

/** `fetch` that answers 402 challenges by paying with `signer`, on the Solana networks given (CAIP-2 → RPC URL). */
export function createPayingFetch(
  signer: KeyPairSigner,
  rpcUrlByCaip2: Record<string, string>,
  baseFetch: typeof fetch = fetch,
  options: PayingFetchOptions = {},
): typeof fetch {
  const client = new x402Client();
  for (const [caip2, rpcUrl] of Object.entries(rpcUrlByCaip2)) {
    client.register(caip2 as never, new ExactSvmScheme(signer, { rpcUrl }));
  }
  return wrapFetchWithPayment(baseFetch, withPaymentId(withBeforePayment(client, options), options)) as typeof fetch;
}

/** `fetch` that answers 402 challenges by signing EIP-3009 authorizations with `account`, on the EVM networks given. */
export function createEvmPayingFetch(
  account: PrivateKeyAccount,
  caip2s: string[],
  baseFetch: typeof fetch = fetch,
  options: PayingFetchOptions = {},
): typeof fetch {
  const client = new x402Client();
  for (const caip2 of caip2s) client.register(caip2 as never, new ExactEvmScheme(account));
  // The stock client pays only in x402's default assets unless told of others: each network's USDC (its row's) that
  // @x402/evm does not list is named, capped as the defaults are.
  const networks = options.networks ?? SHIPPED_NETWORKS;
  const allowedAssets = caip2s.flatMap((caip2) => {
    const usdc = networks.byCaip2(caip2)?.usdcAsset;
    const listed = (DEFAULT_ASSETS as Record<string, readonly { asset: string }[] | undefined>)[caip2]?.some(
      (a) => a.asset.toLowerCase() === usdc?.toLowerCase(),
    );
    return usdc === undefined || listed
      ? []
      : [
          {
            network: caip2 as `${string}:${string}`,
            asset: usdc,
            maxAmountPerPayment: LISTED_USDC_MAX_UNITS_PER_PAYMENT,
          },
        ];
  });
  if (allowedAssets.length > 0) client.setSpendControls({ allowedAssets });
  return wrapFetchWithPayment(baseFetch, withPaymentId(withBeforePayment(client, options), options)) as typeof fetch;
}

function withBeforePayment(client: x402Client, { beforePayment }: PayingFetchOptions): x402Client {
  if (beforePayment === undefined) return client;
  return client.onBeforePaymentCreation(({ selectedRequirements }) => beforePayment(selectedRequirements));
}

/** Adds the payment id to each payment's extensions (only where the service declared payment-identifier). */
export function withPaymentId(client: x402Client, { paymentId }: PayingFetchOptions): x402Client {
  if (paymentId === undefined) return client;
  return client.onBeforePaymentCreation(async ({ paymentRequired }) => {
    appendPaymentIdentifierToExtensions((paymentRequired.extensions ??= {}), paymentId);
  });
}
