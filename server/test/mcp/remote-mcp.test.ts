// The remote MCP server at /mcp, driven by the MCP SDK's own client over streamable HTTP: an unpaid call is x402's
// payment-required answer in both bindings; the stock @x402 client schemes build the payment from it on Solana and on
// Base; the answer carries the settlement and a receipt that verifies; a replay gets the stored answer and another
// request a refusal; prepaid credit is spent by a signed call naming /mcp; the mainnet kill switch holds.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { x402Client } from "@x402/core/client";
import type { PaymentPayload, PaymentRequired } from "@x402/core/types";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { ExactSvmScheme } from "@x402/svm/exact/client";
import type { KeyPairSigner } from "@solana/kit";
import type { PrivateKeyAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newNonce, signMcpToolCall } from "../../agent/sign-request";
import { generateKeypair } from "../../keys/parse-secret-key";
import { MCP_META, MCP_TOOLS } from "../../mcp/mcp-payment-binding";
import { MAX_MCP_BODY_BYTES } from "../../mcp/mcp-server";
import { writeSetting } from "../../settings/write-setting";
import type { Receipt } from "../../receipts/receipt-types";
import { CHECK_NAMES, verifyReceipt } from "../../verify";
import { operatorKeypair } from "../support/env";
import { startServedStack, type ServedStack } from "../support/http-service";

const PRICE = 1_000n;
const MODEL = "local/echo-1";
const ALL_CHECKS = Object.fromEntries(CHECK_NAMES.map((check) => [check, true]));

let served: ServedStack;
const clients: Client[] = [];

beforeAll(async () => {
  served = await startServedStack({ evm: true, mainnet: true, env: { X402_FLAT_PRICE_USDC: "0.001" } });
}, 120_000);
afterAll(async () => {
  for (const c of clients) await c.close().catch(() => undefined);
  await served?.close();
});

async function mcpClient(): Promise<Client> {
  const client = new Client({ name: "signet-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${served.service.url}/mcp`)));
  clients.push(client);
  return client;
}

interface CallResult {
  [key: string]: unknown;
  isError?: boolean;
  content: { type: string; text?: string }[];
  structuredContent?: Record<string, unknown>;
  _meta?: Record<string, unknown>;
}

async function call(name: string, args: Record<string, unknown>, meta?: Record<string, unknown>): Promise<CallResult> {
  const client = await mcpClient();
  return (await client.callTool({ name, arguments: args, ...(meta ? { _meta: meta } : {}) })) as CallResult;
}

const chatArgs = (content: string, network = "devnet") => ({
  model: MODEL,
  messages: [{ role: "user", content }],
  network,
});

/** The tool-result binding's PaymentRequired, checked to be the same in structuredContent and content[0].text. */
function paymentRequiredOf(result: CallResult): PaymentRequired {
  expect(result.isError).toBe(true);
  expect(result.content[0]!.text).toBe(JSON.stringify(result.structuredContent));
  return result.structuredContent as unknown as PaymentRequired;
}

async function solanaPayer(): Promise<{ signer: KeyPairSigner; client: x402Client }> {
  const signer = await served.stack.newAgent();
  const client = new x402Client().register(
    served.stack.devnet.caip2 as `${string}:${string}`,
    new ExactSvmScheme(signer, { rpcUrl: served.stack.devnet.url }),
  );
  return { signer, client };
}

describe("tools/list", () => {
  it("lists the paid and free tools with their input schemas, free of charge", async () => {
    const { tools } = await (await mcpClient()).listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([...MCP_TOOLS.paid, ...MCP_TOOLS.free].sort());
    expect(MCP_TOOLS.paid).toEqual(["chat", "respond"]);
    const chat = tools.find((t) => t.name === "chat")!;
    expect(chat.inputSchema.required).toEqual(expect.arrayContaining(["model", "messages"]));
    expect(chat.description).toMatch(/x402/);
  });
});

describe("paid tools over x402's MCP transport", () => {
  it("an unpaid call is the tool-result binding's PaymentRequired, and moves nothing", async () => {
    const { signer } = await solanaPayer();
    const required = paymentRequiredOf(await call("chat", chatArgs("unpaid")));
    expect(required.x402Version).toBe(2);
    expect(required.accepts).toHaveLength(1);
    expect(required.accepts[0]).toMatchObject({ scheme: "exact", network: served.stack.devnet.caip2, amount: "1000" });
    expect(await served.stack.devnet.usdcBalance(signer.address)).toBe(1_000_000n);
  });

  it("a request advertising org.x402/payment gets the extension binding: resultType payment_required", async () => {
    const result = await call("chat", chatArgs("unpaid, extension"), {
      [MCP_META.protocolVersion]: "2026-07-28",
      [MCP_META.clientCapabilities]: { extensions: { "org.x402/payment": {} } },
    });
    expect(result.resultType).toBe("payment_required");
    expect(result.isError).toBeUndefined();
    expect(result.paymentRequired).toMatchObject({
      x402Version: 2,
      accepts: [expect.objectContaining({ amount: "1000" })],
    });
  });

  it("paid on Solana with the stock client scheme: served once, the settlement and a receipt that verifies", async () => {
    const { signer, client } = await solanaPayer();
    const args = chatArgs("paid over MCP on Solana");
    const payment = await client.createPaymentPayload(paymentRequiredOf(await call("chat", args)));
    const result = await call("chat", args, { [MCP_META.payment]: payment });
    expect(result.isError).toBeFalsy();
    expect(result.content[0]!.text).toContain("paid over MCP on Solana");
    const settlement = result._meta?.[MCP_META.paymentResponse] as {
      success: boolean;
      payer: string;
      transaction: string;
    };
    expect(settlement).toMatchObject({ success: true, payer: signer.address });
    const receipt = result._meta?.[MCP_META.receipt] as Receipt;
    expect(receipt.payment?.tx_signature).toBe(settlement.transaction);
    expect(result.content[1]!.text).toContain(`/r/${receipt.inference_id}`);
    const verdict = await verifyReceipt({
      receipt,
      prompt: args.messages,
      response: (result.structuredContent as { answer: object }).answer,
      operatorKey: operatorKeypair().publicKeyBase58,
      rpc: served.stack.devnet.url,
    });
    expect(verdict.checks).toEqual(ALL_CHECKS);
    expect(await served.stack.devnet.usdcBalance(signer.address)).toBe(1_000_000n - PRICE);

    // The same payment again: the same arguments get the stored answer; others are refused; nothing moves again.
    const again = await call("chat", args, { [MCP_META.payment]: payment });
    expect(again._meta?.[MCP_META.receipt]).toEqual(receipt);
    expect(again._meta?.["org.signet/replayed"]).toBe(true);
    const other = await call("chat", chatArgs("another request"), { [MCP_META.payment]: payment });
    expect(other.isError).toBe(true);
    expect(other.structuredContent).toMatchObject({ error: { code: "payment_request_mismatch" } });
    expect(await served.stack.devnet.usdcBalance(signer.address)).toBe(1_000_000n - PRICE);
  });

  it("the receipt verifies through the free verify_receipt tool too: the five checks and a signed verdict", async () => {
    const { client } = await solanaPayer();
    const args = chatArgs("verified by the tool");
    const payment = await client.createPaymentPayload(paymentRequiredOf(await call("chat", args)));
    const result = await call("chat", args, { [MCP_META.payment]: payment });
    const verdict = await call("verify_receipt", {
      receipt: result._meta?.[MCP_META.receipt],
      prompt: args.messages,
      response: (result.structuredContent as { answer: object }).answer,
      rpc: served.stack.devnet.url,
    });
    expect(verdict.isError).toBeFalsy();
    expect(verdict.structuredContent).toMatchObject({
      ok: true,
      checks: ALL_CHECKS,
      receipt_signature: expect.any(String),
    });
  });

  it("respond is paid the same way and answers the Responses object's text", async () => {
    const { client } = await solanaPayer();
    const args = { model: MODEL, input: "a Responses call over MCP", network: "devnet" };
    const payment = await client.createPaymentPayload(paymentRequiredOf(await call("respond", args)));
    const result = await call("respond", args, { [MCP_META.payment]: payment });
    expect(result.isError).toBeFalsy();
    expect(result.content[0]!.text).toContain("a Responses call over MCP");
    expect((result.structuredContent as { answer: { object: string } }).answer.object).toBe("response");
  });

  it("paid on Base Sepolia with the stock EVM scheme (EIP-3009)", async () => {
    const account: PrivateKeyAccount = await served.stack.newEvmAgent();
    const chain = served.stack.baseSepolia!;
    const client = new x402Client().register(`eip155:${chain.chainId}`, new ExactEvmScheme(account));
    const args = chatArgs("paid over MCP on Base", "base-sepolia");
    const payment = await client.createPaymentPayload(paymentRequiredOf(await call("chat", args)));
    const result = await call("chat", args, { [MCP_META.payment]: payment });
    expect(result.isError).toBeFalsy();
    expect(result._meta?.[MCP_META.paymentResponse]).toMatchObject({
      success: true,
      network: `eip155:${chain.chainId}`,
    });
    expect(await chain.usdcBalance(account.address)).toBe(1_000_000n - PRICE);
  });

  it("a malformed or foreign payment is the payment-required answer with its reason; nothing moves", async () => {
    const { signer, client } = await solanaPayer();
    const malformed = paymentRequiredOf(await call("chat", chatArgs("garbage"), { [MCP_META.payment]: "garbage" }));
    expect(malformed.error).toBe("malformed");
    // A payment built for Base offered on Solana's request: not the challenge's requirements.
    const args = chatArgs("foreign");
    const own: PaymentPayload = await client.createPaymentPayload(paymentRequiredOf(await call("chat", args)));
    const foreign = { ...own, accepted: { ...own.accepted, amount: "1" } };
    const refused = paymentRequiredOf(await call("chat", args, { [MCP_META.payment]: foreign }));
    expect(refused.error).toBe("requirements_mismatch");
    expect(await served.stack.devnet.usdcBalance(signer.address)).toBe(1_000_000n);
  });

  it("Solana mainnet while the kill switch is off: mainnet_disabled before any challenge, and nothing moves", async () => {
    await writeSetting(served.stack.tdb.prisma, served.stack.config, "SERVICE_MAINNET_ENABLED", "false", "test");
    const mainnet = served.stack.mainnet!;
    const signer = await served.stack.newAgent(1_000_000n, mainnet);
    const result = await call("chat", chatArgs("mainnet while off", "mainnet"));
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({ error: { code: "mainnet_disabled" } });
    expect(result.content[0]!.text).toMatch(/^mainnet_disabled: /);
    expect(await mainnet.usdcBalance(signer.address)).toBe(1_000_000n);
  });
});

describe("prepaid over MCP", () => {
  it("a call signed for /mcp is served from credit; its nonce replayed is refused", async () => {
    const kp = generateKeypair();
    await served.stack.credit(kp.publicKeyBase58, 1_000_000n);
    const args = { ...chatArgs("prepaid over MCP"), nonce: newNonce(), timestamp: Date.now() };
    const meta = { [MCP_META.prepaid]: signMcpToolCall(kp, served.service.url, "chat", args) };
    const result = await call("chat", args, meta);
    expect(result.isError).toBeFalsy();
    expect(result.content[0]!.text).toContain("prepaid over MCP");
    const receipt = result._meta?.[MCP_META.receipt] as Receipt;
    expect(receipt.agent_pubkey).toBe(kp.publicKeyBase58);
    expect(result._meta?.[MCP_META.paymentResponse]).toBeUndefined();
    const replayed = await call("chat", args, meta);
    expect(replayed.structuredContent).toMatchObject({ error: { code: "nonce_replay" } });
    // Signed for other arguments: refused before anything is held.
    const forged = await call("chat", { ...args, nonce: newNonce() }, meta);
    expect(forged.structuredContent).toMatchObject({ error: { code: "invalid_signature" } });
  });
});

describe("bad input", () => {
  it("wrong types name the field; an unknown tool is an error; nothing is paid", async () => {
    const wrong = await call("chat", { model: MODEL, messages: "hello" });
    expect(wrong.isError).toBe(true);
    expect(wrong.content[0]!.text).toContain("messages");
    const unknown = await call("no_such_tool", {});
    expect(unknown.isError).toBe(true);
    expect(unknown.content[0]!.text).toContain("no_such_tool");
  });

  it("a body that is not JSON is JSON-RPC's parse error; GET is 405 (stateless: no session stream); too large is 413", async () => {
    const url = `${served.service.url}/mcp`;
    const notJson = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: "{",
    });
    expect(notJson.status).toBe(400);
    expect(await notJson.json()).toMatchObject({ jsonrpc: "2.0", error: { code: -32700 } });
    expect((await fetch(url)).status).toBe(405);
    const tooLarge = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { padding: "x".repeat(MAX_MCP_BODY_BYTES) },
      }),
    });
    expect(tooLarge.status).toBe(413);
    expect(await tooLarge.json()).toMatchObject({
      jsonrpc: "2.0",
      error: { code: -32600, data: { code: "payload_too_large" } },
    });
  });
});
