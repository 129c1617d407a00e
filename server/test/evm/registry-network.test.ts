// A network the release does not ship, added by a registry row alone: the config is loaded with SHIPPED_NETWORK_ROWS
// plus one made-up EVM row (its own chain id, USDC address and EIP-712 domain), an anvil plays it from that row, and
// the stock x402 v2 client pays the chat route on it end to end; the receipt verifies. Nothing else names the network,
// yet everything a user sees lists it: the models list, the receipt page, the deployment report, OpenAPI, discovery and
// the site pages.
import Ajv2020 from "ajv/dist/2020.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { httpDeploymentReport, type HttpAnswers } from "../../health/deployment-report";
import { readDeploymentReport } from "../../runtime/read-deployment-report";
import { describeReceipt } from "../../site/describe-receipt";
import { readNetworkNames, readSiteFacts } from "../../site/read-site-facts";
import {
  createNetworkRegistry,
  parseReceiptText,
  SHIPPED_NETWORK_ROWS,
  SHIPPED_NETWORKS,
  txExplorerUrl,
  verifyReceipt,
  type EvmNetworkRow,
} from "../../verify";
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
  explorer: {
    name: "Testscan",
    txUrl: "https://testscan.example/tx/{tx}",
    addressUrl: "https://testscan.example/address/{address}",
  },
  blockTimeMs: 1_000,
  nativeCurrency: {
    name: "Test Ether",
    symbol: "TETH",
    decimals: 18,
    feePayerWarnBelow: "0.01",
    feePayerAlertBelow: "0.002",
  },
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

const body = {
  model: "local/echo-1",
  network: "test-evm",
  messages: [{ role: "user", content: "pay me on a network of one row" }],
};

describe("an EVM network added by a registry row alone", () => {
  it("is in the config the service runs with, its RPC the anvil that plays it", () => {
    expect(stack.config.networks.get("test-evm")).toBe(TEST_EVM);
    expect(stack.config.rpcUrls["test-evm"]).toBe(stack.evmChains["test-evm"]!.url);
  });

  it("challenges with the row's USDC and domain, and is paid by the stock v2 client; the receipt verifies", async () => {
    const chain = stack.evmChains["test-evm"]!;
    const challenge = await challengeOf(await stack.chat({ body }));
    expect(challenge.accepts[0]).toMatchObject({
      scheme: "exact",
      network: TEST_EVM.caip2,
      asset: TEST_EVM.usdcAsset,
      amount: "1000",
      payTo: stack.evmDeposit,
      extra: TEST_EVM.eip712,
    });

    const agent = await stack.newEvmAgent(1_000_000n, chain);
    const res = await stack.evmPayingFetch(agent)(CHAT_URL, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    expect(res.status, await res.clone().text()).toBe(200);
    expect(await chain.usdcBalance(agent.address)).toBe(1_000_000n - 1_000n);

    const parsed = parseReceiptText(res.headers.get("x-service-receipt")!);
    if (!parsed.ok) throw new Error("no receipt");
    const receipt = parsed.receipt as { payment: { network: string; tx_signature: string } };
    expect(receipt.payment.network).toBe(TEST_EVM.caip2);
    const verdict = await verifyReceipt({
      receipt: parsed.receipt,
      prompt: body.messages,
      response: await res.json(),
      operatorKey: operatorKeypair().publicKeyBase58,
      rpc: chain.url,
      networks,
    });
    expect(verdict.checks).toEqual({
      prompt_hash_ok: true,
      response_hash_ok: true,
      service_signature_ok: true,
      payment_on_chain_ok: true,
      payer_matches: true,
    });
    expect(txExplorerUrl(receipt.payment.network, receipt.payment.tx_signature, networks)).toBe(
      `https://testscan.example/tx/${receipt.payment.tx_signature}`,
    );
    // The shipped registry does not know the network: without the row, the verifier cannot place the payment.
    const unknown = await verifyReceipt({
      receipt: parsed.receipt,
      prompt: body.messages,
      response: "x",
      operatorKey: operatorKeypair().publicKeyBase58,
      rpc: chain.url,
    });
    expect(unknown.checks.payment_on_chain_ok).toBe(false);
  });
});

/** The body of a GET to an app route's handler. */
async function getJson(
  handler: (req: Request, ctx: object) => Promise<Response>,
  path: string,
): Promise<{ status: number; body: unknown }> {
  const res = await handler(new Request(`http://signet.test${path}`), {});
  return { status: res.status, body: await res.json() };
}

describe("what a user sees of a network added by a row", () => {
  it("GET /api/v1/models offers the built-in model on it, under the row's name", async () => {
    const { GET } = await import("@/app/api/v1/models/route");
    const { body } = await getJson(GET, "/api/v1/models");
    const echo = (body as { data: { id: string; networks: string[] }[] }).data.find((m) => m.id === "local/echo-1");
    expect(echo?.networks).toContain("test-evm");
    // Only payable networks are listed: the shipped EVM testnets have no chain in this stack.
    expect(echo?.networks).not.toContain("polygon-amoy");
  });

  it("GET /.well-known/x402 lists it as enabled, with an offer in the row's USDC", async () => {
    const { GET } = await import("@/app/.well-known/x402/route");
    const { body } = await getJson(GET, "/.well-known/x402");
    const doc = body as {
      networks: { network: string; name: string; asset: string; enabled: boolean }[];
      paid_resources: { accepts: { network: string; asset: string; payTo: string }[] }[];
    };
    expect(doc.networks).toContainEqual(
      expect.objectContaining({
        network: TEST_EVM.caip2,
        name: TEST_EVM.label,
        asset: TEST_EVM.usdcAsset,
        enabled: true,
      }),
    );
    expect(doc.paid_resources[0]!.accepts).toContainEqual(
      expect.objectContaining({ network: TEST_EVM.caip2, asset: TEST_EVM.usdcAsset, payTo: stack.evmDeposit }),
    );
  });

  it("OpenAPI names its x402 v1 name among a 402's networks, and the 402 body on it conforms", async () => {
    const { GET } = await import("@/app/api/v1/openapi.json/route");
    const { body: doc } = await getJson(GET, "/api/v1/openapi.json");
    const accepts = (
      doc as {
        components: {
          schemas: {
            PaymentError: { properties: { accepts: { items: { properties: { network: { enum: string[] } } } } } };
          };
        };
      }
    ).components.schemas.PaymentError.properties.accepts;
    expect(accepts.items.properties.network.enum).toEqual(networks.rows.map((n) => n.x402V1Name));
    const res = await stack.chat({ body });
    expect(res.status).toBe(402);
    const paymentError = (await res.json()) as { accepts: { network: string }[] };
    expect(paymentError.accepts[0]!.network).toBe("test-evm");
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    ajv.addSchema(doc as object, "openapi");
    const validate = ajv.compile({ $ref: "openapi#/components/schemas/PaymentError" });
    expect(validate(paymentError), JSON.stringify(validate.errors)).toBe(true);
  });

  it("the receipt page names it and links its transaction to the row's explorer", async () => {
    const chain = stack.evmChains["test-evm"]!;
    const agent = await stack.newEvmAgent(1_000_000n, chain);
    const res = await stack.evmPayingFetch(agent)(CHAT_URL, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    expect(res.status, await res.clone().text()).toBe(200);
    const parsed = parseReceiptText(res.headers.get("x-service-receipt")!);
    if (!parsed.ok) throw new Error("no receipt");
    const receipt = parsed.receipt as unknown as Record<string, unknown> & { payment: { tx_signature: string } };
    // What app/r/[id]/page.tsx shows, from the networks the service runs with.
    const described = describeReceipt(receipt, stack.config.networks);
    expect(described.money).toMatchObject({
      kind: "paid",
      network: { label: "Test EVM", requestName: "test-evm", family: "evm", payerNoun: "address" },
    });
    expect(described.paymentFields.find((f) => f.key === "network")?.networkLabel).toBe("Test EVM");
    expect(txExplorerUrl(TEST_EVM.caip2, receipt.payment.tx_signature, stack.config.networks)).toBe(
      `https://testscan.example/tx/${receipt.payment.tx_signature}`,
    );
    expect(readNetworkNames(stack.config.networks)).toContainEqual({ caip2: TEST_EVM.caip2, label: "Test EVM" });
    // The shipped registry would name nothing: the page must read the configured one.
    expect(
      describeReceipt(receipt, SHIPPED_NETWORKS).paymentFields.find((f) => f.key === "network")?.networkLabel,
    ).toBeNull();
  });

  it("the site pages list it as enabled", async () => {
    const facts = await readSiteFacts(await stack.runtime());
    expect(facts.networks).toContainEqual(
      expect.objectContaining({
        caip2: TEST_EVM.caip2,
        name: "test-evm",
        label: "Test EVM",
        enabled: true,
        isMainnet: false,
      }),
    );
  });

  it("the start-up deployment report lists it with its RPC, taking payments to the facilitator's EVM address", async () => {
    const runtime = await stack.runtime();
    const report = await readDeploymentReport(stack.config, { facilitator: runtime.chains.facilitator });
    const chainHost = new URL(stack.evmChains["test-evm"]!.url).host;
    expect(report.networks).toContainEqual(
      expect.objectContaining({
        network: TEST_EVM.caip2,
        label: "Test EVM",
        isMainnet: false,
        rpc: true,
        rpcHost: chainHost,
        takesPayments: true,
        depositAddress: stack.evmDeposit,
      }),
    );
  });

  it("signet doctor's report over HTTP lists it, from the deployment's discovery document", async () => {
    const { GET } = await import("@/app/.well-known/x402/route");
    const discovery = await getJson(GET, "/.well-known/x402");
    const key = { status: 200, body: { pubkey: "key" } };
    const answers: HttpAnswers = {
      health: { status: 200, body: { status: "ok", reasons: [] } },
      discovery,
      operatorKey: key,
      verifierKey: key,
      logKey: { status: 200, body: { verifier_key: "log" } },
    };
    const report = httpDeploymentReport("http://signet.test", answers, networks);
    expect(report.networks).toContainEqual(
      expect.objectContaining({
        network: TEST_EVM.caip2,
        label: "Test EVM",
        rpc: true,
        takesPayments: true,
        depositAddress: stack.evmDeposit,
      }),
    );
  });
});
