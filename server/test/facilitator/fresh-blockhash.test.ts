// A Solana challenge never hands out a blockhash the chain has dropped: after the chain moves to a new blockhash, the
// next 402 names the new one (or none), and a stock client's next payment lands.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHAT_URL, challengeOf, startPaidStack, type PaidStack } from "../support/paid-stack";

let stack: PaidStack;
beforeAll(async () => {
  stack = await startPaidStack({ env: { X402_FLAT_PRICE_USDC: "0.001" } });
});
afterAll(async () => stack?.close());

const body = { model: "local/echo-1", messages: [{ role: "user", content: "fresh blockhash" }] };
const post = (pay: typeof fetch) =>
  pay(CHAT_URL, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

async function challengeBlockhash(): Promise<string | undefined> {
  const challenge = await challengeOf(await stack.chat({ body }));
  const hash = challenge.accepts[0]!.extra?.recentBlockhash;
  return typeof hash === "string" ? hash : undefined;
}

/** Asks the local chain, over its JSON-RPC, to expire the blockhashes handed out so far (a real cluster's ~150 slots). */
async function expireBlockhash(): Promise<string> {
  const res = await fetch(stack.devnet.url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "localnet_expireBlockhash" }),
  });
  return ((await res.json()) as { result: string }).result;
}

describe("the Solana challenge's blockhash", () => {
  it("is never the expired one: after the chain drops it, a stock client's next payment still lands", async () => {
    const agent = await stack.newAgent();
    const pay = stack.payingFetch(agent);
    const first = await challengeBlockhash();
    expect((await post(pay)).status).toBe(200);

    const current = await expireBlockhash();
    expect(current).not.toBe(first);
    if (first !== undefined) expect(stack.devnet.chain.isBlockhashValid(first)).toBe(false);

    const next = await challengeBlockhash();
    if (next !== undefined) {
      expect(next).not.toBe(first);
      expect(stack.devnet.chain.isBlockhashValid(next)).toBe(true);
    }
    const before = await stack.devnet.usdcBalance(agent.address);
    const res = await post(pay);
    expect(res.status, await res.clone().text()).toBe(200);
    expect(await stack.devnet.usdcBalance(agent.address)).toBe(before - 1000n);
  });
});
