// A network the release does not ship, added by a registry row alone: the config is loaded with SHIPPED_NETWORK_ROWS
// plus one made-up EVM row (its own chain id, USDC address and EIP-712 domain), an anvil plays it from that row, and
// the stock x402 v2 client pays the chat route on it end to end; the receipt verifies. Nothing else names the network.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createNetworkRegistry, parseReceiptText, SHIPPED_NETWORK_ROWS, txExplorerUrl, verifyReceipt, type EvmNetworkRow } from "../../verify";
import { operatorKeypair } from "../support/env";
import { challengeOf, CHAT_URL, startPaidStack, type PaidStack } from "../support/paid-stack";

/** The made-up network: a chain id no public chain uses, a USDC address of its own, a domain no shipped USDC has. */
const TEST_EVM: EvmNetworkRow = {
  id: "test-evm",
  caip2: "eip155:3133713",
  x402V1Name: "test-evm",
  aliases: ["test-evm"],
  family: "evm",
  chainId: 3_133_713,
  isMainnet: false,
  usdcAsset: "0x7E57000000000000000000000000000000005D0C",
  eip712: { name: "Test USD", version: "1" },
  explorer: { name: "Testscan", txUrl: "https://testscan.example/tx/{tx}", addressUrl: "https://testscan.example/address/{address}" },
  blockTimeMs: 1_000,
  nativeCurrency: { name: "Test Ether", symbol: "TETH", decimals: 18, feePayerWarnBelow: "0.01", feePayerAlertBelow: "0.002" },
  label: "Test EVM",
  chartColor: "#4b5563",
  publicRpcUrl: "https://rpc.test-evm.example",
};
const networks = createNetworkRegistry([...SHIPPED_NETWORK_ROWS, TEST_EVM]);

let stack: PaidStack;
beforeAll(async () => {
  stack = await startPaidStack({ networks, evmNetworks: ["test-evm"], env: { X402_FLAT_PRICE_USDC: "0.001" } });
});
afterAll(async () => stack?.close());

const body = { model: "local/echo-1", network: "test-evm", messages: [{ role: "user", content: "pay me on a network of one row" }] };

describe("an EVM network added by a registry row alone", () => {
  it("is in the config the service runs with, its RPC the anvil that plays it", () => {
    expect(stack.config.networks.get("test-evm")).toBe(TEST_EVM);
    expect(stack.config.rpcUrls["test-evm"]).toBe(stack.evmChains["test-evm"]!.url);
  });

  it("challenges with the row's USDC and domain, and is paid by the stock v2 client; the receipt verifies", async () => {
    const chain = stack.evmChains["test-evm"]!;
    const challenge = await challengeOf(await stack.chat({ body }));
    expect(challenge.accepts[0]).toMatchObject({ scheme: "exact", network: TEST_EVM.caip2, asset: TEST_EVM.usdcAsset, amount: "1000", payTo: stack.evmDeposit, extra: TEST_EVM.eip712 });

    const agent = await stack.newEvmAgent(1_000_000n, chain);
    const res = await stack.evmPayingFetch(agent)(CHAT_URL, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    expect(res.status, await res.clone().text()).toBe(200);
    expect(await chain.usdcBalance(agent.address)).toBe(1_000_000n - 1_000n);

    const parsed = parseReceiptText(res.headers.get("x-service-receipt")!);
    if (!parsed.ok) throw new Error("no receipt");
    const receipt = parsed.receipt as { payment: { network: string; tx_signature: string } };
    expect(receipt.payment.network).toBe(TEST_EVM.caip2);
    const verdict = await verifyReceipt({ receipt: parsed.receipt, prompt: body.messages, response: await res.json(), operatorKey: operatorKeypair().publicKeyBase58, rpc: chain.url, networks });
    expect(verdict.checks).toEqual({ prompt_hash_ok: true, response_hash_ok: true, service_signature_ok: true, payment_on_chain_ok: true, payer_matches: true });
    expect(txExplorerUrl(receipt.payment.network, receipt.payment.tx_signature, networks)).toBe(`https://testscan.example/tx/${receipt.payment.tx_signature}`);
    // The shipped registry does not know the network: without the row, the verifier cannot place the payment.
    const unknown = await verifyReceipt({ receipt: parsed.receipt, prompt: body.messages, response: "x", operatorKey: operatorKeypair().publicKeyBase58, rpc: chain.url });
    expect(unknown.checks.payment_on_chain_ok).toBe(false);
  });
});
