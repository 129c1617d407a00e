// Node-side helpers for the browser specs: a fresh agent funded on the e2e local chain pays for a real call.
import { expect, type Page } from "@playwright/test";
import { createKeyPairSignerFromBytes } from "@solana/kit";
import { getAssociatedTokenAddressSync } from "@solana/spl-token";
import { PublicKey } from "@solana/web3.js";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { createEvmPayingFetch, createPayingFetch } from "../server/agent/paying-fetch";
import { fundEvmAccount } from "../devtools/anvil";
import { generateKeypair, type Ed25519Keypair } from "../server/keys/parse-secret-key";
import { readStreamedAnswer } from "../server/upstream/read-sse";
import { USDC_MINT_BY_SOLANA_CLUSTER } from "../server/verify";

export const BASE = "http://localhost:3210";
export const DEVNET_RPC = "http://127.0.0.1:18999";
export const BASE_SEPOLIA_RPC = "http://127.0.0.1:18997";
const DEVNET = "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1";

/** Makes one real paid call on the local chain; returns what a user would paste. */
/** A fresh agent funded with 1 USDC on the e2e local chain pays for one chat call; returns the answer and the agent. */
export async function payForChat(body: Record<string, unknown>): Promise<{ res: Response; agent: Ed25519Keypair }> {
  const kp = generateKeypair();
  const signer = await createKeyPairSignerFromBytes(new Uint8Array([...kp.seed, ...kp.publicKey]));
  const fund = await fetch(DEVNET_RPC, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "localnet_fund",
      params: [signer.address, { usdcUnits: "1000000" }],
    }),
  });
  if (!fund.ok) throw new Error("funding failed");
  const res = await createPayingFetch(signer, { [DEVNET]: DEVNET_RPC })(`${BASE}/api/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model: "local/echo-1", ...body }),
  });
  return { res, agent: kp };
}

export async function makePaidCall(prompt: string) {
  const messages = [{ role: "user", content: prompt }];
  const { res } = await payForChat({ messages });
  if (res.status !== 200) throw new Error(`paid call answered ${res.status}`);
  const response = (await res.json()) as { choices: { message: { content: string } }[] };
  const receiptHeader = res.headers.get("x-service-receipt")!;
  const receipt = JSON.parse(Buffer.from(receiptHeader, "base64").toString()) as {
    inference_id: string;
    payment: { network: string };
  };
  return { messages, response, receiptHeader, receipt };
}

/** A fresh agent funded on the e2e local chain pays for one embeddings call; returns the request, answer and receipt, as pasted. */
export async function makePaidEmbeddingsCall(request: Record<string, unknown>) {
  const kp = generateKeypair();
  const signer = await createKeyPairSignerFromBytes(new Uint8Array([...kp.seed, ...kp.publicKey]));
  await fundDevnetUsdc(signer.address, 1_000_000n);
  const res = await createPayingFetch(signer, { [DEVNET]: DEVNET_RPC })(`${BASE}/api/v1/embeddings`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(request),
  });
  if (res.status !== 200) throw new Error(`paid embeddings call answered ${res.status}: ${await res.text()}`);
  const response = (await res.json()) as { data: { index: number; embedding: number[] | string }[] };
  return { messages: request, response, receiptHeader: res.headers.get("x-service-receipt")! };
}

/** Makes one real streamed paid call on the local chain; returns the receipt event and the chunks, as pasted. */
export async function makeStreamedPaidCall(prompt: string) {
  const messages = [{ role: "user", content: prompt }];
  const { res } = await payForChat({ messages, stream: true });
  if (res.status !== 200 || !res.body) throw new Error(`streamed call answered ${res.status}`);
  const answer = await readStreamedAnswer(res.body);
  if (!answer.receipt) throw new Error("the stream carried no receipt event");
  return { messages, chunks: answer.chunks, text: answer.text, receipt: answer.receipt };
}

/**
 * Makes one real streamed Responses API call on the local chain; returns the request, its SSE events (the objects
 * their `data:` lines carry) and the receipt from the last event's `response.service_receipt`, as pasted.
 */
export async function makeStreamedResponsesCall(input: string) {
  const request = { model: "local/echo-1", input, stream: true };
  const kp = generateKeypair();
  const signer = await createKeyPairSignerFromBytes(new Uint8Array([...kp.seed, ...kp.publicKey]));
  await fundDevnetUsdc(signer.address, 1_000_000n);
  const res = await createPayingFetch(signer, { [DEVNET]: DEVNET_RPC })(`${BASE}/api/v1/responses`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(request),
  });
  if (res.status !== 200) throw new Error(`streamed Responses call answered ${res.status}: ${await res.text()}`);
  const events = (await res.text())
    .split("\n")
    .filter((line) => line.startsWith("data: ") && line !== "data: [DONE]")
    .map((line) => JSON.parse(line.slice("data: ".length)) as { type: string; response?: Record<string, unknown> });
  const completed = events.at(-1);
  const carried = completed?.response?.service_receipt as { receipt?: unknown } | undefined;
  if (completed?.type !== "response.completed" || !carried?.receipt)
    throw new Error("the stream ended without response.completed and its receipt");
  return { request, events, receipt: carried.receipt };
}

/** Makes one real paid call on the local Base Sepolia (anvil), paying with a fresh EVM key. */
export async function makeEvmPaidCall(prompt: string) {
  const account = privateKeyToAccount(generatePrivateKey());
  await fundEvmAccount(BASE_SEPOLIA_RPC, account.address, { usdcUnits: 1_000_000n });
  const messages = [{ role: "user", content: prompt }];
  const res = await createEvmPayingFetch(account, ["eip155:84532"])(`${BASE}/api/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model: "local/echo-1", network: "base-sepolia", messages }),
  });
  if (res.status !== 200) throw new Error(`paid Base call answered ${res.status}: ${await res.text()}`);
  const response = (await res.json()) as { choices: { message: { content: string } }[] };
  const receiptHeader = res.headers.get("x-service-receipt")!;
  return { account, messages, response, receiptHeader };
}

async function devnetRpc<T>(method: string, params: unknown[]): Promise<T> {
  const res = await fetch(DEVNET_RPC, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  const body = (await res.json()) as { result?: T; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result as T;
}

/** Gives `owner` `usdcUnits` of USDC on the e2e devnet chain (and no SOL: the facilitator pays the fees). */
export async function fundDevnetUsdc(owner: string, usdcUnits: bigint): Promise<void> {
  await devnetRpc("localnet_fund", [owner, { usdcUnits: usdcUnits.toString() }]);
}

/** `owner`'s USDC on the e2e devnet chain in atomic units, read from its associated token account (0 when absent). */
export async function devnetUsdcUnits(owner: string): Promise<bigint> {
  const ata = getAssociatedTokenAddressSync(
    new PublicKey(USDC_MINT_BY_SOLANA_CLUSTER.devnet),
    new PublicKey(owner),
    true,
  ).toBase58();
  try {
    return BigInt((await devnetRpc<{ value: { amount: string } }>("getTokenAccountBalance", [ata])).value.amount);
  } catch (err) {
    if (/could not find account/.test((err as Error).message)) return 0n;
    throw err;
  }
}

/** The devnet deposit address the service publishes in its x402 discovery document. */
export async function devnetDepositAddress(): Promise<string> {
  const doc = (await (await fetch(`${BASE}/.well-known/x402`)).json()) as {
    paid_resources: { accepts: { network: string; payTo: string }[] }[];
  };
  const offer = doc.paid_resources[0]!.accepts.find((a) => a.network === DEVNET);
  if (!offer) throw new Error("the service offers no devnet payment");
  return offer.payTo;
}

export const CHECKS = [
  "prompt_hash_ok",
  "response_hash_ok",
  "service_signature_ok",
  "payment_on_chain_ok",
  "payer_matches",
];

/**
 * Pastes a paid call's receipt header, prompt and response, verifies in the browser, and expects five passes. The
 * amount is the receipt's own, so the test holds whatever price another spec left set.
 */
export async function pasteAndExpectFivePasses(
  page: Page,
  call: { receiptHeader: string; messages: unknown; response: unknown },
) {
  const receipt = JSON.parse(Buffer.from(call.receiptHeader, "base64").toString()) as {
    payment: { amount_usdc: number };
  };
  await page.goto("/explorer");
  await page.getByTestId("receipt-input").fill(call.receiptHeader);
  await page.getByTestId("prompt-input").fill(JSON.stringify(call.messages));
  await page.getByTestId("response-input").fill(JSON.stringify(call.response));
  await page.getByTestId("verify-button").click();
  await expect(page.getByTestId("overall")).toHaveText("All five checks pass");
  for (const c of CHECKS) await expect(page.getByTestId(`check-${c}`)).toHaveAttribute("data-pass", "true");
  await expect(page.getByTestId("check-payment_on_chain_ok")).toContainText(
    `transfer of ${receipt.payment.amount_usdc} USDC`,
  );
}
