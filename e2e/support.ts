// Node-side helpers for the browser specs: a fresh agent funded on the e2e local chain pays for a real call.
import { createKeyPairSignerFromBytes } from "@solana/kit";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { createEvmPayingFetch, createPayingFetch } from "../server/agent/paying-fetch";
import { fundEvmAccount } from "../server/chain/anvil";
import { generateKeypair, type Ed25519Keypair } from "../server/keys/parse-secret-key";
import { readStreamedAnswer } from "../server/streaming/read-sse";

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
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "localnet_fund", params: [signer.address, { usdcUnits: "1000000" }] }),
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
  const receipt = JSON.parse(Buffer.from(receiptHeader, "base64").toString()) as { inference_id: string; payment: { network: string } };
  return { messages, response, receiptHeader, receipt };
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
