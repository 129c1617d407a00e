// A payment's claim is taken over only from a server that died: a live settlement keeps its lease however long it
// waits for its payer's lane; and a takeover that finds the payment's transfer spent by the dead server's own relay
// records it, never marks it failed. A payment served after its wait gives the same request sent again its stored
// answer, and nothing moves.
import http from "node:http";
import { randomUUID } from "node:crypto";
import { encodeFunctionData, createWalletClient, http as viemHttp, parseSignature, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { eip3009ABI } from "@x402/evm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chatRequestDigest } from "../../x402/request-digest";
import { decodePaymentHeader } from "../../x402/payment-headers";
import { SHIPPED_NETWORKS } from "../../verify";
import { paymentIdempotencyKey } from "../../x402/idempotency-key";
import { payingAccount } from "../../x402/paying-account";
import { authorizationHeader } from "../support/eip3009-header";
import { buildPaymentHeader, challengeOf, startPaidStack, type PaidStack } from "../support/paid-stack";

/**
 * A live claim is renewed every third of its lease: at 6 s, a renewal would have to come 4 s late for a live
 * settlement to look dead, which no busy machine's timers are.
 */
const LEASE_MS = 6_000;

describe("a live settlement waiting past its lease for its payer's lane", () => {
  let stack: PaidStack;
  beforeAll(async () => {
    stack = await startPaidStack({
      timing: "instant",
      env: { X402_FLAT_PRICE_USDC: "0.001", PAYMENT_LEASE_MS: String(LEASE_MS), SETTLEMENT_CONFIRM_WAIT_MS: "1000" },
    });
  });
  afterAll(async () => stack?.close());

  it("keeps its claim: a retry of the same payment meanwhile is a replay at once, and the payment settles once", async () => {
    const body = { model: "local/echo-1", messages: [{ role: "user", content: "slow lane" }] };
    const agent = await stack.newAgent(1_000_000n);
    const header = await buildPaymentHeader(agent, await challengeOf(await stack.chat({ body })), stack.devnet.url);
    const decoded = decodePaymentHeader(header, SHIPPED_NETWORKS);
    if (!decoded.ok) throw new Error("the stock client's header did not decode");
    // Another settlement of this payer holds the lane until the test lets it go.
    const source = payingAccount(stack.devnet.caip2, decoded.payload)!;
    await stack.tdb.prisma.$executeRaw`
      INSERT INTO settlement_lanes (source, holder, held_until) VALUES (${source}, ${randomUUID()}::uuid, now() + interval '1 hour')`;

    let firstAnswered = false;
    const first = stack.chat({ body, headers: { "PAYMENT-SIGNATURE": header } }).finally(() => (firstAnswered = true));
    // The route's leases run on the wall clock: the first waits past its lease for real.
    await new Promise((r) => setTimeout(r, LEASE_MS + 500));
    const retry = await stack.chat({ body, headers: { "PAYMENT-SIGNATURE": header } });

    expect(retry.status).toBe(409);
    expect(await retry.json()).toMatchObject({ error: { code: "payment_replay" } });
    // Answered while the first still waits for the lane (still held): the retry never joined the settlement.
    expect(firstAnswered).toBe(false);
    await stack.tdb.prisma
      .$executeRaw`UPDATE settlement_lanes SET holder = NULL, held_until = NULL WHERE source = ${source}`;
    expect((await first).status).toBe(200);
    const payment = await stack.tdb.prisma.payment.findUniqueOrThrow({
      where: { idempotencyKey: paymentIdempotencyKey(decoded.payload) },
    });
    expect(payment.status).toBe("served");
    expect(await stack.tdb.prisma.ledgerEntry.count({ where: { paymentId: payment.id, kind: "payment_credit" } })).toBe(
      1,
    );
  });
});

/**
 * An RPC proxy in front of anvil that, once, mines the mempool right after answering the first authorizationState
 * read: the dead server's relay lands between a takeover's look at the chain and what comes after it.
 */
async function startMineAfterFirstLookProxy(): Promise<{
  url: string;
  upstream: { url: string };
  close(): Promise<void>;
}> {
  const upstream = { url: "" };
  const authorizationState = encodeFunctionData({
    abi: eip3009ABI,
    functionName: "authorizationState",
    args: ["0x0000000000000000000000000000000000000000", `0x${"00".repeat(32)}`],
  }).slice(0, 10);
  let mined = false;
  const rpc = (body: unknown) =>
    fetch(upstream.url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    }).then((r) => r.text());
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const text = Buffer.concat(chunks).toString();
      const calls = [JSON.parse(text)].flat() as { method: string; params?: { data?: string; input?: string }[] }[];
      const looks = calls.some(
        (c) =>
          c.method === "eth_call" && (c.params?.[0]?.data ?? c.params?.[0]?.input ?? "").startsWith(authorizationState),
      );
      // Before the test points it at its chain (a background job may ask first), it answers as an RPC that is down.
      if (!upstream.url) return void res.writeHead(503).end();
      void rpc(JSON.parse(text))
        .then(async (answer) => {
          if (looks && !mined) {
            mined = true;
            await rpc({ jsonrpc: "2.0", id: 1, method: "evm_mine", params: [] });
          }
          res.writeHead(200, { "content-type": "application/json" }).end(answer);
        })
        .catch(() => res.writeHead(502).end());
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, upstream, close: () => new Promise((r) => server.close(() => r())) };
}

describe("a Base payment whose server died after relaying it", () => {
  let stack: PaidStack;
  let proxy: Awaited<ReturnType<typeof startMineAfterFirstLookProxy>>;
  const facilitatorKey = generatePrivateKey();
  beforeAll(async () => {
    proxy = await startMineAfterFirstLookProxy();
    stack = await startPaidStack({
      evm: true,
      timing: "instant",
      env: {
        X402_FLAT_PRICE_USDC: "0.001",
        PAYMENT_LEASE_MS: String(LEASE_MS),
        SETTLEMENT_CONFIRM_WAIT_MS: "1000",
        FACILITATOR_EVM_SECRET_KEY: facilitatorKey,
        RPC_URL_BASE_SEPOLIA: proxy.url,
      },
    });
    proxy.upstream.url = stack.baseSepolia!.faultFreeUrl;
  });
  afterAll(async () => {
    await stack?.close();
    await proxy?.close();
  });

  it("is recorded when the retry that takes it over finds its relay landed after the first look: credited once, served, never failed", async () => {
    const body = {
      model: "local/echo-1",
      messages: [{ role: "user", content: "taken over" }],
      network: "base-sepolia",
    };
    const agent = await stack.newEvmAgent(1_000_000n);
    const header = await authorizationHeader(agent, await challengeOf(await stack.chat({ body })));
    const decoded = decodePaymentHeader(header, SHIPPED_NETWORKS);
    if (!decoded.ok) throw new Error("the hand-signed header did not decode");
    const { authorization, signature } = decoded.payload.payload as {
      authorization: Record<string, string>;
      signature: Hex;
    };

    // The dead server: its claim of this request, left past its lease; its lane, with a send recorded; its relay, still in the mempool
    // (the chain mines no more on its own: the proxy mines it right after the takeover's first look at the chain).
    const chain = stack.baseSepolia!.faultFreeUrl;
    await fetch(chain, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "evm_setAutomine", params: [false] }),
    });
    const facilitator = privateKeyToAccount(facilitatorKey);
    const wallet = createWalletClient({
      account: facilitator,
      transport: viemHttp(chain),
      chain: {
        id: 84532,
        name: "base-sepolia",
        nativeCurrency: { name: "ETH", symbol: "ETH", decimals: 18 },
        rpcUrls: { default: { http: [chain] } },
      },
    });
    const { v, r, s } = parseSignature(signature);
    await wallet.writeContract({
      address: stack.baseSepolia!.usdc,
      abi: eip3009ABI,
      functionName: "transferWithAuthorization",
      args: [
        authorization.from as Hex,
        authorization.to as Hex,
        BigInt(authorization.value!),
        BigInt(authorization.validAfter!),
        BigInt(authorization.validBefore!),
        authorization.nonce as Hex,
        Number(v),
        r,
        s,
      ],
      gas: 200_000n,
    });
    const key = paymentIdempotencyKey(decoded.payload);
    const payer = agent.address.toLowerCase();
    await stack.tdb.prisma.$executeRaw`
      INSERT INTO payments (id, payload_hash, network, payer, pay_to, units, purpose, route, status, updated_at, request_digest)
      VALUES (${randomUUID()}::uuid, ${key}, 'eip155:84532', ${payer}, ${stack.evmDeposit!.toLowerCase()}, 1000, 'call', 'chat', 'claimed', now() - interval '1 minute',
              ${chatRequestDigest(body, "base-sepolia")})`;
    await stack.tdb.prisma.$executeRaw`
      INSERT INTO settlement_lanes (source, last_sent_at) VALUES (${payingAccount("eip155:84532", decoded.payload)!}, now())`;

    const retry = await stack.chat({ body, headers: { "PAYMENT-SIGNATURE": header } });
    const answer = (await retry.json()) as Record<string, unknown>;
    expect(retry.status, JSON.stringify(answer)).toBe(200);
    const payment = await stack.tdb.prisma.payment.findUniqueOrThrow({ where: { idempotencyKey: key } });
    expect(payment.status).toBe("served");
    expect(await stack.tdb.prisma.ledgerEntry.count({ where: { paymentId: payment.id, kind: "payment_credit" } })).toBe(
      1,
    );
    // The agent paid once, and exactly the price.
    expect(await stack.baseSepolia!.usdcBalance(agent.address)).toBe(1_000_000n - 1_000n);
  });
});

/** An RPC proxy in front of a chain that, while `hideLogs` is set, answers every eth_getLogs with no logs (a node behind). */
async function startLaggingLogsProxy(): Promise<{
  url: string;
  upstream: { url: string };
  hideLogs: { on: boolean };
  close(): Promise<void>;
}> {
  const upstream = { url: "" };
  const hideLogs = { on: false };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const text = Buffer.concat(chunks).toString();
      const parsed = JSON.parse(text) as { id: unknown; method: string } | { id: unknown; method: string }[];
      const calls = [parsed].flat();
      if (hideLogs.on && !Array.isArray(parsed) && parsed.method === "eth_getLogs") {
        res
          .writeHead(200, { "content-type": "application/json" })
          .end(JSON.stringify({ jsonrpc: "2.0", id: parsed.id, result: [] }));
        return;
      }
      if (hideLogs.on && calls.some((c) => c.method === "eth_getLogs"))
        throw new Error("a batch with eth_getLogs: the proxy answers single requests only");
      if (!upstream.url) return void res.writeHead(503).end();
      void fetch(upstream.url, { method: "POST", headers: { "content-type": "application/json" }, body: text })
        .then(async (r) => {
          res.writeHead(r.status, { "content-type": "application/json" }).end(await r.text());
        })
        .catch(() => res.writeHead(502).end());
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    upstream,
    hideLogs,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

describe("a pending Base payment whose authorization is spent while the RPC does not show its transfer yet", () => {
  let stack: PaidStack;
  let proxy: Awaited<ReturnType<typeof startLaggingLogsProxy>>;
  beforeAll(async () => {
    proxy = await startLaggingLogsProxy();
    // Every send of the service's is dropped: the payment is pending until a third party lands its authorization.
    stack = await startPaidStack({
      evm: true,
      evmFaults: { seed: 5, dropSendRate: 1 },
      env: { X402_FLAT_PRICE_USDC: "0.001", SETTLEMENT_CONFIRM_WAIT_MS: "1500", RPC_URL_BASE_SEPOLIA: proxy.url },
    });
    proxy.upstream.url = stack.baseSepolia!.url;
  });
  afterAll(async () => {
    await stack?.close();
    await proxy?.close();
  });

  it("is never failed with its money moved: the retry waits (502) until the transfer shows, then is served once, and its repeat gets the stored answer", async () => {
    const body = {
      model: "local/echo-1",
      messages: [{ role: "user", content: "lagging node" }],
      network: "base-sepolia",
    };
    const agent = await stack.newEvmAgent(1_000_000n);
    const header = await authorizationHeader(agent, await challengeOf(await stack.chat({ body })));
    const send = () => stack.chat({ body, headers: { "X-Payment": header } });
    expect((await send()).status).toBe(502);

    // A third party lands the authorization, past the RPC that drops the service's sends.
    const decoded = decodePaymentHeader(header, SHIPPED_NETWORKS);
    if (!decoded.ok) throw new Error("the hand-signed header did not decode");
    const { authorization: a, signature } = decoded.payload.payload as {
      authorization: Record<string, string>;
      signature: Hex;
    };
    const relay = privateKeyToAccount(generatePrivateKey());
    const chain = stack.baseSepolia!;
    await chain.fund(relay.address, { wei: 10n ** 17n });
    const wallet = createWalletClient({
      account: relay,
      transport: viemHttp(chain.faultFreeUrl),
      chain: {
        id: 84532,
        name: "base-sepolia",
        nativeCurrency: { name: "ETH", symbol: "ETH", decimals: 18 },
        rpcUrls: { default: { http: [chain.faultFreeUrl] } },
      },
    });
    const { v, r, s } = parseSignature(signature);
    await wallet.writeContract({
      address: chain.usdc,
      abi: eip3009ABI,
      functionName: "transferWithAuthorization",
      args: [
        a.from as Hex,
        a.to as Hex,
        BigInt(a.value!),
        BigInt(a.validAfter!),
        BigInt(a.validBefore!),
        a.nonce as Hex,
        Number(v),
        r,
        s,
      ],
    });

    proxy.hideLogs.on = true;
    const blind = await send();
    expect(blind.status, await blind.clone().text()).toBe(502);
    expect(
      (await stack.tdb.prisma.payment.findFirstOrThrow({ where: { payer: agent.address.toLowerCase() } })).status,
    ).toBe("pending");

    proxy.hideLogs.on = false;
    const served = await send();
    expect(served.status).toBe(200);
    const payer = agent.address.toLowerCase();
    const moved = async () => ({
      ledger: await stack.tdb.prisma.ledgerEntry.count({ where: { agentPubkey: payer } }),
      calls: await stack.tdb.prisma.inferenceLog.count({ where: { agentPubkey: payer } }),
    });
    const before = await moved();
    const again = await send();
    expect(again.status).toBe(200);
    expect(again.headers.get("x-answer-replayed")).toBe("true");
    expect(((await again.json()) as { id: string }).id).toBe(((await served.json()) as { id: string }).id);
    expect(await moved()).toEqual({ ...before, calls: 1 });
    expect(await chain.usdcBalance(agent.address)).toBe(1_000_000n - 1_000n);
    expect(
      await stack.tdb.prisma.ledgerEntry.count({
        where: { agentPubkey: agent.address.toLowerCase(), kind: "payment_credit" },
      }),
    ).toBe(1);
  });
});
