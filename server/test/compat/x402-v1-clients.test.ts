// The stock x402 v1 clients, unchanged: x402-fetch 1.2.0 and x402-axios 0.7.2 read the 402's body (x402Version 1,
// accepts), pay in X-PAYMENT with the x402 package's own Solana and EVM code, and get X-PAYMENT-RESPONSE. They pay
// the chat route and the top-up route on Solana devnet and mainnet and on Base Sepolia and Base, over HTTP, with
// the same guarantees as v2: exactly the price moves once, the receipt verifies, a retry is bound to its request, and
// the kill switch and allowlist hold.
import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from "@x402/core/http";
import axios from "axios";
import bs58 from "bs58";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { wrapFetchWithPayment, createSigner as createFetchSigner, decodeXPaymentResponse } from "x402-fetch";
import { withPaymentInterceptor, createSigner as createAxiosSigner } from "x402-axios";
import { x402ResponseSchema } from "x402/types";
import { getWarningsFor402Body } from "@agentcash/discovery";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { generateKeypair } from "../../keys/parse-secret-key";
import { writeSetting } from "../../settings/write-setting";
import { parseReceiptText } from "../../verify";
import { startPaidStack, type PaidStack } from "../support/paid-stack";
import { answerWithRoute } from "../support/route-adapter";
import { startServer, type LocalServer } from "../verify/local-servers";

const PRICE = 1_000n;
let stack: PaidStack;
let server: LocalServer;

beforeAll(async () => {
  stack = await startPaidStack({ mainnet: true, evm: true, baseMainnet: true, env: { X402_FLAT_PRICE_USDC: "0.001" } });
  const chat = (await import("@/app/api/v1/chat/completions/route")).POST;
  const credits = (await import("@/app/api/v1/credits/route")).POST;
  server = await startServer((req, body, res) => {
    const route = req.url?.startsWith("/api/v1/credits") ? credits : chat;
    return answerWithRoute((request) => route(request, {} as never), req, body, res);
  });
}, 120_000);
afterAll(async () => {
  await server?.close();
  await stack?.close();
});

/** A funded Solana agent: its base58 secret key (as the x402 package's createSigner takes it) and its address. */
async function solanaAgent(chain = stack.devnet) {
  const kp = generateKeypair();
  await chain.fundAccount(kp.publicKeyBase58, { usdcUnits: 1_000_000n });
  return { secret: bs58.encode(new Uint8Array([...kp.seed, ...kp.publicKey])), address: kp.publicKeyBase58 };
}

/** A funded EVM agent on `chain` (USDC only, no ETH). */
async function evmAgent(chain = stack.baseSepolia!) {
  const key = generatePrivateKey();
  const account = privateKeyToAccount(key);
  await chain.fund(account.address, { usdcUnits: 1_000_000n });
  return { key, address: account.address };
}

const chatBody = (network: string, content = "hello from a v1 client") => ({
  model: "local/echo-1",
  network,
  messages: [{ role: "user", content }],
});

function svmConfig(rpcUrl: string) {
  return { svmConfig: { rpcUrl } };
}

describe("x402-fetch 1.2.0", () => {
  it("reads the 402's body: x402Version 1, accepts in v1's form, the error's fields beside them; x402's and agentcash's v1 schemas parse it", async () => {
    for (const payment of [null, "not base64 json"]) {
      const res = await fetch(`${server.url}/api/v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json", ...(payment ? { "x-payment": payment } : {}) },
        body: JSON.stringify(chatBody("devnet")),
      });
      expect(res.status).toBe(402);
      const body = (await res.json()) as Record<string, unknown> & { accepts: Record<string, unknown>[] };
      expect(body).toMatchObject({ x402Version: 1, code: "payment_required", type: "payment_required_error" });
      expect(body).not.toHaveProperty("error");
      expect(body.reason).toBe(payment ? "malformed" : undefined);
      expect(body.accepts).toHaveLength(1);
      expect(body.accepts[0]).toMatchObject({
        scheme: "exact",
        network: "solana-devnet",
        maxAmountRequired: "1000",
        resource: expect.stringContaining("/api/v1/chat/completions"),
      });
      expect(x402ResponseSchema.safeParse(body).success).toBe(true);
      const issues = getWarningsFor402Body(body).filter((i) => i.severity === "error");
      expect(issues).toEqual([]);
      expect(res.headers.get("payment-required")).toBeTruthy();
    }
  });

  it("pays the chat route on Solana devnet: the price moves once, X-PAYMENT-RESPONSE names the transaction, the receipt names it too", async () => {
    const agent = await solanaAgent();
    const signer = await createFetchSigner("solana-devnet", agent.secret);
    const pay = wrapFetchWithPayment(fetch, signer, PRICE, undefined, svmConfig(stack.devnet.faultFreeUrl));
    const res = await pay(`${server.url}/api/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(chatBody("devnet")),
    });
    expect(res.status).toBe(200);
    const settlement = decodeXPaymentResponse(res.headers.get("x-payment-response")!);
    expect(settlement).toMatchObject({ success: true, payer: agent.address });
    const receipt = parseReceiptText(res.headers.get("x-service-receipt")!);
    if (!receipt.ok) throw new Error("no receipt");
    expect((receipt.receipt as { payment: { tx_signature: string } }).payment.tx_signature).toBe(
      settlement.transaction,
    );
    expect(await stack.devnet.usdcBalance(agent.address)).toBe(1_000_000n - PRICE);
    expect(await stack.tdb.prisma.payment.count({ where: { payer: agent.address, status: "served" } })).toBe(1);
  });

  it("pays the chat route on Base Sepolia with an EIP-3009 authorization", async () => {
    const agent = await evmAgent();
    const signer = await createFetchSigner("base-sepolia", agent.key);
    const res = await wrapFetchWithPayment(
      fetch,
      signer,
      PRICE,
    )(`${server.url}/api/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(chatBody("base-sepolia")),
    });
    expect(res.status).toBe(200);
    expect(decodeXPaymentResponse(res.headers.get("x-payment-response")!)).toMatchObject({ success: true });
    expect(await stack.baseSepolia!.usdcBalance(agent.address)).toBe(1_000_000n - PRICE);
  });

  it("tops up prepaid credit on Solana devnet", async () => {
    const agent = await solanaAgent();
    const signer = await createFetchSigner("solana-devnet", agent.secret);
    const res = await wrapFetchWithPayment(
      fetch,
      signer,
      50_000n,
      undefined,
      svmConfig(stack.devnet.faultFreeUrl),
    )(`${server.url}/api/v1/credits`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ amount_usdc: "0.05", network: "devnet" }),
    });
    expect(res.status).toBe(200);
    expect(await stack.devnet.usdcBalance(agent.address)).toBe(1_000_000n - 50_000n);
    const balance = await stack.tdb.prisma.balance.findFirst({ where: { agentPubkey: agent.address } });
    expect(balance?.units).toBe(50_000n);
  });
});

describe("x402-axios 0.7.2", () => {
  it("pays the chat route on Solana devnet", async () => {
    const agent = await solanaAgent();
    const signer = await createAxiosSigner("solana-devnet", agent.secret);
    const client = withPaymentInterceptor(
      axios.create({ baseURL: server.url }),
      signer,
      undefined,
      svmConfig(stack.devnet.faultFreeUrl),
    );
    const res = await client.post("/api/v1/chat/completions", chatBody("devnet"));
    expect(res.status).toBe(200);
    expect(res.data.object).toBe("chat.completion");
    expect(res.headers["x-payment-response"]).toBeTruthy();
    expect(await stack.devnet.usdcBalance(agent.address)).toBe(1_000_000n - PRICE);
  });

  it("tops up on Base Sepolia for the Ed25519 key named in the body", async () => {
    const agent = await evmAgent();
    const spender = generateKeypair().publicKeyBase58;
    const signer = await createAxiosSigner("base-sepolia", agent.key);
    const client = withPaymentInterceptor(axios.create({ baseURL: server.url }), signer);
    const res = await client.post("/api/v1/credits", {
      amount_usdc: "0.05",
      network: "base-sepolia",
      agent_pubkey: spender,
    });
    expect(res.status).toBe(200);
    const balance = await stack.tdb.prisma.balance.findFirst({ where: { agentPubkey: spender } });
    expect(balance?.units).toBe(50_000n);
  });
});

describe("mainnets, behind the kill switch and the allowlist", () => {
  it("Solana mainnet (v1's `solana`): 503 while off; paid once on; an agent off the allowlist is refused", async () => {
    const agent = await solanaAgent(stack.mainnet!);
    const signer = await createFetchSigner("solana", agent.secret);
    const pay = () =>
      wrapFetchWithPayment(
        fetch,
        signer,
        PRICE,
        undefined,
        svmConfig(stack.mainnet!.url),
      )(`${server.url}/api/v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(chatBody("mainnet", `mainnet ${Math.random()}`)),
      });
    expect((await pay()).status).toBe(503);
    await writeSetting(stack.tdb.prisma, stack.config, "SERVICE_MAINNET_ENABLED", "true", "test");
    await writeSetting(
      stack.tdb.prisma,
      stack.config,
      "SERVICE_MAINNET_DEPOSIT_ADDRESS",
      generateKeypair().publicKeyBase58,
      "test",
    );
    try {
      await writeSetting(
        stack.tdb.prisma,
        stack.config,
        "SERVICE_ALLOWED_AGENTS",
        generateKeypair().publicKeyBase58,
        "test",
      );
      const refused = await pay();
      expect(refused.status).toBe(403);
      expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("agent_not_allowed");
      expect(await stack.mainnet!.usdcBalance(agent.address)).toBe(1_000_000n);
      await writeSetting(stack.tdb.prisma, stack.config, "SERVICE_ALLOWED_AGENTS", agent.address, "test");
      const res = await pay();
      expect(res.status).toBe(200);
      expect(decodeXPaymentResponse(res.headers.get("x-payment-response")!)).toMatchObject({
        success: true,
        payer: agent.address,
      });
      expect(await stack.mainnet!.usdcBalance(agent.address)).toBe(1_000_000n - PRICE);
    } finally {
      await stack.tdb.prisma.setting.deleteMany({
        where: {
          key: { in: ["SERVICE_MAINNET_ENABLED", "SERVICE_MAINNET_DEPOSIT_ADDRESS", "SERVICE_ALLOWED_AGENTS"] },
        },
      });
    }
  });

  it("Base mainnet: 503 while off; paid on with the Base USDC domain", async () => {
    const agent = await evmAgent(stack.base!);
    const signer = await createAxiosSigner("base", agent.key);
    // The interceptor pays only what axios rejects, so the status check stays axios's own.
    const client = withPaymentInterceptor(axios.create({ baseURL: server.url }), signer);
    const off = await client
      .post("/api/v1/chat/completions", chatBody("base"))
      .catch((err: { response?: { status: number } }) => err.response);
    expect(off?.status).toBe(503);
    await writeSetting(stack.tdb.prisma, stack.config, "SERVICE_MAINNET_ENABLED", "true", "test");
    try {
      const res = await client.post("/api/v1/chat/completions", chatBody("base"));
      expect(res.status).toBe(200);
      expect(await stack.base!.usdcBalance(agent.address)).toBe(1_000_000n - PRICE);
    } finally {
      await stack.tdb.prisma.setting.deleteMany({ where: { key: { in: ["SERVICE_MAINNET_ENABLED"] } } });
    }
  });
});

const CHAT_URL = () => `${server.url}/api/v1/chat/completions`;
const postChat = (body: unknown, headers: Record<string, string> = {}) =>
  fetch(CHAT_URL(), {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });

/**
 * Has x402-fetch pay `body` on devnet for a new agent, recording the X-PAYMENT header it makes. With `send: false` the
 * paid retry never reaches the service (the header is only signed); otherwise its answer is returned.
 */
async function payV1(
  body: unknown,
  send: boolean,
): Promise<{ agent: Awaited<ReturnType<typeof solanaAgent>>; header: string; answer: Response | null }> {
  const agent = await solanaAgent();
  const signer = await createFetchSigner("solana-devnet", agent.secret);
  let header: string | null = null;
  const recording: typeof fetch = async (input, init) => {
    const paid = (init?.headers as Record<string, string> | undefined)?.["X-PAYMENT"];
    if (paid) {
      header = paid;
      if (!send) return new Response(null, { status: 204 });
    }
    return fetch(input, init);
  };
  const answer = await wrapFetchWithPayment(
    recording,
    signer,
    PRICE,
    undefined,
    svmConfig(stack.devnet.faultFreeUrl),
  )(CHAT_URL(), {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  if (header === null) throw new Error("x402-fetch sent no X-PAYMENT header");
  return { agent, header, answer: send ? answer : null };
}

/** The v1 header's transaction wrapped as x402 v2 against the service's current challenge for `body`. */
async function rewrapAsV2(header: string, body: unknown): Promise<string> {
  const v1 = JSON.parse(Buffer.from(header, "base64").toString("utf8")) as { payload: { transaction: string } };
  const challenge = decodePaymentRequiredHeader((await postChat(body)).headers.get("payment-required")!);
  return encodePaymentSignatureHeader({
    x402Version: 2,
    resource: challenge.resource,
    accepted: challenge.accepts[0]!,
    payload: v1.payload,
  });
}

describe("a v1 payment is bound to its request, like a v2 one", () => {
  it("its X-PAYMENT re-sent with another prompt is 409 and moves nothing; the same request gets the stored answer", async () => {
    const body = chatBody("devnet", "the first prompt");
    const { agent, header, answer } = await payV1(body, true);
    expect(answer!.status).toBe(200);
    const firstAnswer = (await answer!.json()) as { id: string };
    const stranger = await postChat(chatBody("devnet", "a stranger's prompt"), { "X-PAYMENT": header });
    expect(stranger.status).toBe(409);
    expect(((await stranger.json()) as { error: { code: string } }).error.code).toBe("payment_request_mismatch");
    const again = await postChat(body, { "X-PAYMENT": header });
    expect(again.status).toBe(200);
    expect(again.headers.get("x-answer-replayed")).toBe("true");
    expect(((await again.json()) as { id: string }).id).toBe(firstAnswer.id);
    expect(await stack.devnet.usdcBalance(agent.address)).toBe(1_000_000n - PRICE);
    expect(
      await stack.tdb.prisma.ledgerEntry.count({ where: { agentPubkey: agent.address, kind: "payment_credit" } }),
    ).toBe(1);
  });

  it("its transaction re-wrapped as x402 v2 is the same payment: another body is 409, and nothing moves twice", async () => {
    const body = chatBody("devnet", "paid in v1");
    const { agent, header, answer } = await payV1(body, true);
    expect(answer!.status).toBe(200);
    const v2 = await rewrapAsV2(header, body);
    const stranger = await postChat(chatBody("devnet", "a stranger's prompt, paid with the public transaction"), {
      "PAYMENT-SIGNATURE": v2,
    });
    expect(stranger.status).toBe(409);
    const same = await postChat(body, { "PAYMENT-SIGNATURE": v2 });
    expect(same.status).toBe(200);
    expect(same.headers.get("x-answer-replayed")).toBe("true");
    expect(await stack.devnet.usdcBalance(agent.address)).toBe(1_000_000n - PRICE);
    expect(await stack.tdb.prisma.payment.count({ where: { payer: agent.address } })).toBe(1);
  });

  it("a v1 payment for devnet is refused for a mainnet request: the network is the request's, not the payment's", async () => {
    const { agent, header } = await payV1(chatBody("devnet"), false);
    await writeSetting(stack.tdb.prisma, stack.config, "SERVICE_MAINNET_ENABLED", "true", "test");
    await writeSetting(
      stack.tdb.prisma,
      stack.config,
      "SERVICE_MAINNET_DEPOSIT_ADDRESS",
      generateKeypair().publicKeyBase58,
      "test",
    );
    try {
      const res = await postChat(chatBody("mainnet"), { "X-PAYMENT": header });
      expect(res.status).toBe(402);
      expect(((await res.json()) as { reason: string }).reason).toBe("requirements_mismatch");
      expect(await stack.devnet.usdcBalance(agent.address)).toBe(1_000_000n);
    } finally {
      await stack.tdb.prisma.setting.deleteMany({
        where: { key: { in: ["SERVICE_MAINNET_ENABLED", "SERVICE_MAINNET_DEPOSIT_ADDRESS"] } },
      });
    }
  });

  it("the same v1 payment raced as X-PAYMENT twice and as its v2 re-wrap at once settles once and moves the price once", async () => {
    const body = chatBody("devnet", "raced three ways");
    const { agent, header } = await payV1(body, false);
    const v2 = await rewrapAsV2(header, body);
    const answers = await Promise.all([
      postChat(body, { "X-PAYMENT": header }),
      postChat(body, { "X-PAYMENT": header }),
      postChat(body, { "PAYMENT-SIGNATURE": v2 }),
    ]);
    const statuses = answers.map((a) => a.status);
    // One is served first-hand; the others are the stored answer, or told the payment is being processed.
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThanOrEqual(1);
    for (const s of statuses) expect([200, 409]).toContain(s);
    const firstHand = answers.filter((a) => a.status === 200 && a.headers.get("x-answer-replayed") !== "true");
    expect(firstHand).toHaveLength(1);
    expect(await stack.devnet.usdcBalance(agent.address)).toBe(1_000_000n - PRICE);
    expect(await stack.tdb.prisma.payment.count({ where: { payer: agent.address } })).toBe(1);
    expect(
      await stack.tdb.prisma.ledgerEntry.count({ where: { agentPubkey: agent.address, kind: "payment_credit" } }),
    ).toBe(1);
  });
});
