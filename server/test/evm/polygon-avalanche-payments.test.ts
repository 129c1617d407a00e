// Polygon and Avalanche, each a row of the network registry and nothing else: on anvil chains at Amoy's, Fuji's,
// Polygon's and Avalanche's chain ids with USDC at each real address under each real EIP-712 domain, the stock x402 v2
// client (@x402/fetch + @x402/evm) and the stock v1 client (x402-fetch) pay unchanged; the receipts verify through the
// library and `signet verify`; the explorer links go to each chain's explorer; reconcile counts each chain's inflows
// with no drift; the mainnets follow the kill switch and the allowlist. One stack for all four chains. x402's default
// assets list Polygon's and Avalanche's USDC but not Amoy's or Fuji's: there the stock v2 client pays once the asset is
// listed in its spend controls (server/agent/paying-fetch.ts does so from the row), and refuses it otherwise.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import { createSigner, decodeXPaymentResponse, wrapFetchWithPayment } from "x402-fetch";
import { x402Client } from "@x402/core/client";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { wrapFetchWithPayment as wrapFetchV2 } from "@x402/fetch";
import type { LocalEvmChain } from "../../../devtools/anvil";
import { reconcile } from "../../reconcile/reconcile";
import { routeRuntime } from "../../runtime/route-edge";
import { writeSetting } from "../../settings/write-setting";
import { describeNetwork } from "../../site/describe-receipt";
import { addressExplorerUrl, parseReceiptText, txExplorerUrl, verifyReceipt } from "../../verify";
import { operatorKeypair } from "../support/env";
import { challengeOf, CHAT_URL, startPaidStack, type PaidStack } from "../support/paid-stack";
import { runSignet } from "../support/signet-cli";

let stack: PaidStack;
beforeAll(async () => {
  stack = await startPaidStack({
    evmNetworks: ["polygon-amoy", "avalanche-fuji", "polygon", "avalanche"],
    env: { X402_FLAT_PRICE_USDC: "0.001" },
  });
});
afterAll(async () => stack?.close());

const PRICE = 1_000n;
const chain = (id: string): LocalEvmChain => stack.evmChains[id]!;
const chatBody = (network: string, content = `pay me on ${network}`) => ({
  model: "local/echo-1",
  network,
  messages: [{ role: "user", content }],
});
const post = (fetcher: typeof fetch, body: unknown) =>
  fetcher(CHAT_URL, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
/** The chat route as a fetch, for clients that take one. */
const routeFetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
  const { POST } = await import("@/app/api/v1/chat/completions/route");
  return POST(new Request(input, init), {});
}) as typeof fetch;

/** The paid calls this file made, by CAIP-2 id: what reconcile must find on each chain. */
const paid = new Map<string, number>();
const count = (caip2: string) => paid.set(caip2, (paid.get(caip2) ?? 0) + 1);

/** The facts each network's row must carry, as its USDC contract and explorer state them. */
const TESTNETS = [
  {
    id: "polygon-amoy",
    caip2: "eip155:80002",
    v1Name: "polygon-amoy",
    usdc: "0x41E94Eb019C0762f9Bfcf9Fb1E58725BfB0e7582",
    domain: { name: "USDC", version: "2" },
    explorer: "https://amoy.polygonscan.com",
    label: "Polygon Amoy",
  },
  {
    id: "avalanche-fuji",
    caip2: "eip155:43113",
    v1Name: "avalanche-fuji",
    usdc: "0x5425890298aed601595a70AB815c96711a31Bc65",
    domain: { name: "USD Coin", version: "2" },
    explorer: "https://testnet.snowtrace.io",
    label: "Avalanche Fuji",
  },
] as const;

const MAINNETS = [
  {
    id: "polygon",
    caip2: "eip155:137",
    usdc: "0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359",
    domain: { name: "USD Coin", version: "2" },
    explorer: "https://polygonscan.com",
  },
  {
    id: "avalanche",
    caip2: "eip155:43114",
    usdc: "0xB97EF9Ef8734C71904D8002F8b6Bc66Dd9c48a6E",
    domain: { name: "USD Coin", version: "2" },
    explorer: "https://snowtrace.io",
  },
] as const;

/** The receipt of a paid answer, checked by the verifier library against `rpc`. */
async function verifiedReceipt(res: Response, body: { messages: unknown }, rpc: string) {
  const parsed = parseReceiptText(res.headers.get("x-service-receipt")!);
  if (!parsed.ok) throw new Error("no receipt");
  const response = await res.json();
  const verdict = await verifyReceipt({
    receipt: parsed.receipt,
    prompt: body.messages,
    response,
    operatorKey: operatorKeypair().publicKeyBase58,
    rpc,
  });
  expect(verdict.checks).toEqual({
    prompt_hash_ok: true,
    response_hash_ok: true,
    service_signature_ok: true,
    payment_on_chain_ok: true,
    payer_matches: true,
  });
  return {
    receipt: parsed.receipt as {
      agent_pubkey: string;
      payment: { network: string; pay_to: string; tx_signature: string };
    },
    response,
  };
}

describe.each(TESTNETS)("$label", (net) => {
  it("challenges with the network's own USDC and EIP-712 domain, in x402 v2's header and v1's body", async () => {
    const res = await stack.chat({ body: chatBody(net.id) });
    const v1 = (await res.clone().json()) as { accepts: { network: string; asset: string; extra: unknown }[] };
    const challenge = await challengeOf(res);
    expect(challenge.accepts[0]).toMatchObject({
      scheme: "exact",
      network: net.caip2,
      asset: net.usdc,
      amount: "1000",
      payTo: stack.evmDeposit,
      extra: net.domain,
    });
    expect(v1.accepts[0]).toMatchObject({ network: net.v1Name, asset: net.usdc, extra: net.domain });
  });

  it("is refused by the stock v2 client's default spend controls, which do not list its USDC, moving nothing", async () => {
    const agent = await stack.newEvmAgent(1_000_000n, chain(net.id));
    const bare = wrapFetchV2(routeFetch, new x402Client().register(net.caip2 as never, new ExactEvmScheme(agent)));
    await expect(post(bare, chatBody(net.id))).rejects.toThrow(/spendControls/);
    expect(await chain(net.id).usdcBalance(agent.address)).toBe(1_000_000n);
  });

  it("is paid by the stock v2 client; the receipt verifies (library and `signet verify`) and links to the chain's explorer", async () => {
    const agent = await stack.newEvmAgent(1_000_000n, chain(net.id));
    const depositBefore = await chain(net.id).usdcBalance(stack.evmDeposit!);
    const body = chatBody(net.id);
    const res = await post(stack.evmPayingFetch(agent), body);
    expect(res.status).toBe(200);
    count(net.caip2);
    expect(await chain(net.id).usdcBalance(agent.address)).toBe(1_000_000n - PRICE);
    expect(await chain(net.id).usdcBalance(stack.evmDeposit!)).toBe(depositBefore + PRICE);
    const { receipt, response } = await verifiedReceipt(res, body, chain(net.id).url);
    expect(receipt.agent_pubkey).toBe(agent.address.toLowerCase());
    expect(receipt.payment).toMatchObject({ network: net.caip2, pay_to: stack.evmDeposit });

    // What the receipt page and the explorer show: the network's name, and links to its own explorer.
    expect(describeNetwork(receipt.payment.network, stack.config.networks)).toMatchObject({
      label: net.label,
      requestName: net.id,
      payerNoun: "address",
    });
    expect(txExplorerUrl(receipt.payment.network, receipt.payment.tx_signature)).toBe(
      `${net.explorer}/tx/${receipt.payment.tx_signature}`,
    );
    expect(addressExplorerUrl(receipt.payment.network, receipt.agent_pubkey)).toBe(
      `${net.explorer}/address/${receipt.agent_pubkey}`,
    );

    const dir = mkdtempSync(path.join(tmpdir(), `signet-${net.id}-`));
    const files = {
      receipt: path.join(dir, "receipt.json"),
      prompt: path.join(dir, "prompt.json"),
      response: path.join(dir, "response.json"),
    };
    writeFileSync(files.receipt, JSON.stringify(receipt));
    writeFileSync(files.prompt, JSON.stringify(body.messages));
    writeFileSync(files.response, JSON.stringify(response));
    const args = [
      "verify",
      "--receipt",
      files.receipt,
      "--prompt",
      files.prompt,
      "--response",
      files.response,
      "--operator-key",
      operatorKeypair().publicKeyBase58,
      "--json",
    ];
    const cli = await runSignet([...args, "--rpc", chain(net.id).url], dir);
    expect(cli.code, cli.stderr || cli.stdout).toBe(0);
    expect(JSON.parse(cli.stdout)).toMatchObject({
      ok: true,
      checks: { payment_on_chain_ok: true, payer_matches: true },
    });
    // Checked against the other testnet's chain, the transfer is not there.
    const other = TESTNETS.find((t) => t.id !== net.id)!;
    const elsewhere = await runSignet([...args, "--rpc", chain(other.id).url], dir);
    expect(JSON.parse(elsewhere.stdout)).toMatchObject({ ok: false, checks: { payment_on_chain_ok: false } });
  });

  it("is paid by the stock x402 v1 client (x402-fetch) under its v1 name", async () => {
    const key = generatePrivateKey();
    const agent = privateKeyToAccount(key);
    await chain(net.id).fund(agent.address, { usdcUnits: 1_000_000n });
    const signer = await createSigner(net.v1Name, key);
    const body = chatBody(net.id, "hello from a v1 client");
    const res = await wrapFetchWithPayment(
      routeFetch,
      signer,
      PRICE,
    )(CHAT_URL, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    expect(res.status).toBe(200);
    count(net.caip2);
    const settlement = decodeXPaymentResponse(res.headers.get("x-payment-response")!);
    expect(settlement).toMatchObject({ success: true });
    expect(await chain(net.id).usdcBalance(agent.address)).toBe(1_000_000n - PRICE);
    const { receipt } = await verifiedReceipt(res, body, chain(net.id).url);
    expect(receipt.payment).toMatchObject({ network: net.caip2, tx_signature: settlement.transaction });
  });
});

describe.each(MAINNETS)("$id mainnet", (net) => {
  const call = (agent: PrivateKeyAccount) => post(stack.evmPayingFetch(agent), chatBody(net.id));

  it("answers 503 while the kill switch is off, 403 to a payer off the allowlist, and serves a listed payer when on", async () => {
    const listed = await stack.newEvmAgent(1_000_000n, chain(net.id));
    const stranger = await stack.newEvmAgent(1_000_000n, chain(net.id));
    const off = await call(listed);
    expect(off.status).toBe(503);
    expect(await off.json()).toMatchObject({ error: { code: "mainnet_disabled" } });

    await writeSetting(stack.tdb.prisma, stack.config, "SERVICE_MAINNET_ENABLED", "true", "test");
    await writeSetting(stack.tdb.prisma, stack.config, "SERVICE_ALLOWED_AGENTS", listed.address, "test");
    try {
      const challenge = await challengeOf(await stack.chat({ body: chatBody(net.id) }));
      expect(challenge.accepts[0]).toMatchObject({
        network: net.caip2,
        asset: net.usdc,
        payTo: stack.evmDeposit,
        extra: net.domain,
      });
      const refused = await call(stranger);
      expect(refused.status).toBe(403);
      expect(await refused.json()).toMatchObject({ error: { code: "agent_not_allowed" } });
      expect(await chain(net.id).usdcBalance(stranger.address)).toBe(1_000_000n);

      const res = await call(listed);
      expect(res.status).toBe(200);
      count(net.caip2);
      expect(await chain(net.id).usdcBalance(listed.address)).toBe(1_000_000n - PRICE);
      const { receipt } = await verifiedReceipt(res, chatBody(net.id), chain(net.id).url);
      expect(receipt.payment.network).toBe(net.caip2);
      expect(txExplorerUrl(receipt.payment.network, receipt.payment.tx_signature)).toBe(
        `${net.explorer}/tx/${receipt.payment.tx_signature}`,
      );
    } finally {
      await writeSetting(stack.tdb.prisma, stack.config, "SERVICE_ALLOWED_AGENTS", "", "test");
      await writeSetting(stack.tdb.prisma, stack.config, "SERVICE_MAINNET_ENABLED", "false", "test");
    }
  });
});

describe("reconcile", () => {
  it("counts each chain's inflows, one per paid call, with no drift", async () => {
    const reports = await reconcile(await routeRuntime());
    const evm = reports.filter((r) => r.network.startsWith("eip155:"));
    expect(evm.map((r) => [r.network, r.onChainTransfers, r.recordedPayments, r.mismatches])).toEqual([
      ["eip155:137", paid.get("eip155:137"), paid.get("eip155:137"), []],
      ["eip155:80002", paid.get("eip155:80002"), paid.get("eip155:80002"), []],
      ["eip155:43114", paid.get("eip155:43114"), paid.get("eip155:43114"), []],
      ["eip155:43113", paid.get("eip155:43113"), paid.get("eip155:43113"), []],
    ]);
    // Each testnet took a v2 and a v1 payment, each mainnet one.
    expect(Object.fromEntries(paid)).toEqual({
      "eip155:80002": 2,
      "eip155:43113": 2,
      "eip155:137": 1,
      "eip155:43114": 1,
    });
  });
});
