// Concurrent over-spending must not drain the facilitator's gas money. An agent funded for one call sends many distinct
// payments at once: all verify (each alone is covered), but only one can land. Settlements of one payer go one at a
// time, and each re-checks the chain right before it sends, so the rest are refused before anything is sent:
// - Solana: the fee payer pays at most one failed transaction's fee per round;
// - Base: the relay sends at most one transaction that reverts per round.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { routeRuntime } from "../../runtime/route-edge";
import { authorizationHeader } from "../support/eip3009-header";
import { buildPaymentHeader, challengeOf, startPaidStack, type PaidStack } from "../support/paid-stack";

let stack: PaidStack;
beforeAll(async () => {
  stack = await startPaidStack({ evm: true, env: { X402_FLAT_PRICE_USDC: "0.001" } });
});
afterAll(async () => stack?.close());

const body = { model: "local/echo-1", messages: [{ role: "user", content: "drain?" }] };
/** A Solana transaction's base fee is 5,000 lamports per signature; these carry two (agent and fee payer). */
const BASE_FEE_LAMPORTS = 10_000n;

async function rpc<T>(url: string, method: string, params: unknown[]): Promise<T> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  return ((await res.json()) as { result: T }).result;
}

const lamportsOf = async (owner: string) =>
  BigInt(
    (await rpc<{ value: number | string }>(stack.devnet.url, "getBalance", [owner, { commitment: "confirmed" }])).value,
  );
const sentBy = async (address: string) =>
  BigInt(await rpc<string>(stack.baseSepolia!.url, "eth_getTransactionCount", [address, "latest"]));

describe("a payer funded for one call, paying for twelve at once", () => {
  it("costs the Solana fee payer at most one failed transaction's fee", async () => {
    const feePayer = (await routeRuntime()).gateway.facilitator.address;
    const agent = await stack.newAgent(1000n);
    const challenge = await challengeOf(await stack.chat({ body }));
    const headers: string[] = [];
    for (let i = 0; i < 12; i++) headers.push(await buildPaymentHeader(agent, challenge, stack.devnet.url));
    const before = await lamportsOf(feePayer);
    const results = await Promise.all(headers.map((h) => stack.chat({ body, headers: { "X-Payment": h } })));
    const spent = before - (await lamportsOf(feePayer));
    console.info(`fee payer spent ${spent} lamports; statuses ${results.map((r) => r.status).join(",")}`);
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.some((r) => r.status >= 500)).toBe(false);
    // One landed transfer, plus at most one failed transaction, each about the base fee (and a small priority fee).
    expect(spent).toBeGreaterThan(0n);
    expect(spent).toBeLessThanOrEqual(2n * (BASE_FEE_LAMPORTS + 1_000n));
    expect(await stack.devnet.usdcBalance(agent.address)).toBe(0n);
  });
});

describe("an EVM payer with a balance for one call, authorizing sixteen at once", () => {
  it("makes the Base relay send at most one transaction that reverts", async () => {
    const relay = stack.evmDeposit!;
    const agent = await stack.newEvmAgent(1000n);
    const evmBody = { ...body, network: "base-sepolia" };
    const challenge = await challengeOf(await stack.chat({ body: evmBody }));
    const headers = await Promise.all(Array.from({ length: 16 }, () => authorizationHeader(agent, challenge)));
    const before = await sentBy(relay);
    const results = await Promise.all(
      headers.map((h) => stack.chat({ body: evmBody, headers: { "PAYMENT-SIGNATURE": h } })),
    );
    const sent = (await sentBy(relay)) - before;
    console.info(`relay sent ${sent} transactions; statuses ${results.map((r) => r.status).join(",")}`);
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.some((r) => r.status >= 500)).toBe(false);
    // The one that landed, plus at most one that reverted.
    expect(sent).toBeGreaterThanOrEqual(1n);
    expect(sent).toBeLessThanOrEqual(2n);
    expect(await stack.baseSepolia!.usdcBalance(agent.address)).toBe(0n);
  });
});
