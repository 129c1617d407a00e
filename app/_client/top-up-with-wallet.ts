// The browser side of a credit top-up paid from a wallet: ask for the x402 challenge, check it is the one the person
// chose, have the stock x402 SVM client build the payment (the wallet only signs it), send it, and say what happened
// in a sentence with what to do next. Browser-safe.
import { x402Client, x402HTTPClient } from "@x402/core/client";
import { ExactSvmScheme } from "@x402/svm/exact/client";
import { formatUnitsAsUsdc, parseUsdcToUnits } from "@/server/verify";
import { serviceError } from "@/server/errors/error-body";
import { readUsdcAccount } from "./read-usdc-account";
import {
  walletTransactionSigner,
  WalletDidNotSignError,
  type WalletSignTransaction,
} from "./wallet-transaction-signer";

/** One Solana network the page can pay on, as the server page describes it. */
export interface PayNetwork {
  caip2: string;
  /** The request body's `network` value (`devnet`, `mainnet`). */
  name: string;
  label: string;
  usdcAsset: string;
  rpcUrl: string;
  enabled: boolean;
}

type TopUpFailureCode =
  | "invalid_amount"
  | "no_usdc"
  | "insufficient_usdc"
  | "wrong_network"
  | "wallet_rejected"
  | "unexpected_challenge"
  | "payment_refused"
  | "settlement_pending"
  | "service_unavailable"
  | "unknown";

export type TopUpOutcome =
  | { ok: true; amountUsdc: string; balanceUsdc: string; network: string; txSignature: string }
  | { ok: false; code: TopUpFailureCode; sentence: string };

export interface TopUpInput {
  wallet: string;
  signTransaction: WalletSignTransaction;
  network: PayNetwork;
  amountUsdc: string;
  /** The chains the wallet's account says it supports (Wallet Standard `chains`), when it says. */
  walletChains?: readonly string[];
}

/** How many times a `settlement_pending` answer is retried with the same payment before the page says so. */
const PENDING_RETRIES = 6;

/** Pays a top-up of `amountUsdc` on `network` from the connected wallet. Never throws: every failure is an outcome. */
export async function topUpWithWallet(input: TopUpInput): Promise<TopUpOutcome> {
  const { network } = input;
  const units = parseUsdcToUnits(input.amountUsdc.trim());
  if (units === null || units <= 0n)
    return fail("invalid_amount", "Type an amount in USDC, such as 1 or 0.25 (at most 6 decimals).");
  if (!network.enabled)
    return fail(
      "wrong_network",
      `${network.label} is switched off on this service right now. Choose another network, or come back when the operator turns it on.`,
    );
  if (input.walletChains && !walletSupports(input.walletChains, network)) {
    return fail(
      "wrong_network",
      `Your wallet does not offer ${network.label}. Switch your wallet to ${network.label} (or pick a network your wallet offers), then pay again.`,
    );
  }

  let account;
  try {
    account = await readUsdcAccount(network.rpcUrl, input.wallet, network.usdcAsset);
  } catch {
    return fail(
      "service_unavailable",
      `The ${network.label} RPC did not answer, so your USDC balance could not be read. Nothing was paid; try again in a minute.`,
    );
  }
  if (!account.exists) {
    return fail(
      "no_usdc",
      `This wallet has no USDC account on ${network.label}, so it has no USDC to pay with. Get USDC on ${network.label} into this wallet${network.name === "devnet" ? " (a devnet USDC faucet gives it for free)" : ""}, then pay again.`,
    );
  }
  if (account.units < units) {
    return fail(
      "insufficient_usdc",
      `This wallet holds ${formatUnitsAsUsdc(account.units)} USDC on ${network.label}, less than the ${formatUnitsAsUsdc(units)} USDC you chose. Add USDC to the wallet or choose a smaller amount.`,
    );
  }

  const body = JSON.stringify({ amount_usdc: formatUnitsAsUsdc(units), network: network.name });
  const send = (headers: Record<string, string> = {}) =>
    fetch("/api/v1/credits", { method: "POST", headers: { "content-type": "application/json", ...headers }, body });
  const challengeRes = await send().catch(() => null);
  if (!challengeRes)
    return fail(
      "service_unavailable",
      "The service could not be reached. Nothing was paid; check your connection and try again.",
    );
  if (challengeRes.status !== 402) return refusal(challengeRes.status, await readJson(challengeRes), network);

  const client = x402Client.fromConfig({
    schemes: [
      {
        network: network.caip2 as `${string}:${string}`,
        client: new ExactSvmScheme(walletTransactionSigner(input.wallet, input.signTransaction), {
          rpcUrl: network.rpcUrl,
        }),
      },
    ],
    // The person chose this amount: the client refuses to sign for anything more.
    spendControls: { maxAmountPerPayment: `$${formatUnitsAsUsdc(units)}` },
  });
  const http = new x402HTTPClient(client);
  const challengeBody = await readJson(challengeRes);
  let paymentRequired;
  try {
    paymentRequired = http.getPaymentRequiredResponse((name) => challengeRes.headers.get(name), challengeBody);
  } catch {
    return fail(
      "unexpected_challenge",
      "The service's payment request could not be read. Nothing was paid; reload the page and try again.",
    );
  }
  // SECURITY: sign only a transfer of exactly the chosen amount of this network's USDC.
  const offer = paymentRequired.accepts[0];
  if (
    paymentRequired.accepts.length !== 1 ||
    !offer ||
    offer.network !== network.caip2 ||
    offer.asset !== network.usdcAsset ||
    offer.amount !== units.toString()
  ) {
    return fail(
      "unexpected_challenge",
      "The service asked for a payment other than the one you chose, so the page did not ask your wallet to sign. Nothing was paid.",
    );
  }

  let payload;
  try {
    payload = await client.createPaymentPayload(paymentRequired);
  } catch (err) {
    if (isWalletRejection(err))
      return fail(
        "wallet_rejected",
        "You declined the transaction in your wallet, so nothing was paid. Press Pay again and approve it to buy the credit.",
      );
    if (err instanceof WalletDidNotSignError)
      return fail(
        "wallet_rejected",
        "Your wallet returned the transaction without signing it, so nothing was paid. Try again, or use another wallet.",
      );
    return fail("unknown", `The payment could not be prepared (${shortMessage(err)}). Nothing was paid; try again.`);
  }

  const headers = http.encodePaymentSignatureHeader(payload);
  for (let attempt = 0; ; attempt++) {
    const res = await send(headers).catch(() => null);
    if (!res)
      return fail(
        "settlement_pending",
        "The connection dropped after your wallet signed. Reload the page in a minute: if the payment landed, your credit shows in Recent entries.",
      );
    const answer = await readJson(res);
    if (res.ok) {
      return {
        ok: true,
        amountUsdc: String(answer.amount_usdc ?? ""),
        balanceUsdc: String(answer.balance_usdc ?? ""),
        network: String(answer.network ?? network.caip2),
        txSignature: String(answer.tx_signature ?? ""),
      };
    }
    const error = serviceError(answer);
    const retryAfter = Number(error.fields.retry_after ?? res.headers.get("retry-after") ?? 2);
    if ((error.code === "settlement_pending" || error.code === "chain_unavailable") && attempt < PENDING_RETRIES) {
      // The same signed transfer, sent again: the service settles it at most once.
      await new Promise((resolve) => setTimeout(resolve, Math.min(Math.max(retryAfter, 1), 10) * 1000));
      continue;
    }
    return refusal(res.status, answer, network);
  }
}

/** Whether the wallet lists `network`'s chain (`solana:devnet`, or the CAIP-2 id). */
function walletSupports(chains: readonly string[], network: PayNetwork): boolean {
  return chains.includes(network.caip2) || chains.includes(`solana:${network.name}`);
}

function isWalletRejection(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  // The adapter wraps what the wallet threw in WalletSignTransactionError; wallets reject with code 4001.
  const code = (err as { error?: { code?: unknown }; code?: unknown }).error?.code ?? (err as { code?: unknown }).code;
  return err.name === "WalletSignTransactionError" || code === 4001 || /reject|declin|denied|cancel/i.test(err.message);
}

/** The sentence for an answer that is not the top-up's success. */
function refusal(status: number, body: Record<string, unknown>, network: PayNetwork): TopUpOutcome {
  const { code, message, fields } = serviceError(body);
  switch (code) {
    case "mainnet_disabled":
      return fail(
        "wrong_network",
        `${network.label} is switched off on this service right now. Nothing was paid; choose devnet, or come back when the operator turns mainnet on.`,
      );
    case "invalid_network":
    case "network_not_supported":
      return fail(
        "wrong_network",
        `This service does not take payments on ${network.label}. Nothing was paid; choose another network.`,
      );
    case "invalid_request":
      return fail("invalid_amount", `The service refused the amount: ${message}.`);
    case "payment_replay":
      return fail(
        "payment_refused",
        "This payment was already used. Nothing more was charged; reload the page to see your balance.",
      );
    case "agent_not_allowed":
      return fail(
        "payment_refused",
        `This wallet is not on the list of payers allowed on ${network.label}. Nothing was paid; use devnet, or ask the operator.`,
      );
    case "rate_limited":
      return fail(
        "payment_refused",
        `Too many payments from this wallet at once. Nothing more was charged; wait ${String(fields.retry_after ?? "a few")} seconds and try again.`,
      );
    case "settlement_pending":
      return fail(
        "settlement_pending",
        "Your payment was sent but the chain has not confirmed it yet. Do not pay again: reload the page in a minute and your credit will show when it lands.",
      );
    case "payment_required":
      if (fields.reason === "insufficient_balance") {
        return fail(
          "insufficient_usdc",
          `The chain says this wallet has too little USDC on ${network.label} for this payment. Nothing was paid; add USDC or choose a smaller amount.`,
        );
      }
      return fail(
        "payment_refused",
        `The service refused the payment (${String(fields.reason ?? "no reason given")}). Nothing was charged; try again.`,
      );
    default:
      if (status >= 500)
        return fail(
          "service_unavailable",
          "The service could not take the payment right now. Nothing was charged; try again in a minute.",
        );
      return fail("unknown", `The service answered ${status}${message ? `: ${message}` : ""}. Nothing was charged.`);
  }
}

function fail(code: TopUpFailureCode, sentence: string): TopUpOutcome {
  return { ok: false, code, sentence };
}

async function readJson(res: Response): Promise<Record<string, unknown>> {
  return ((await res
    .clone()
    .json()
    .catch(() => ({}))) ?? {}) as Record<string, unknown>;
}

function shortMessage(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).slice(0, 160);
}
