// Base Sepolia and Base on the paid chat route and the top-up route: stock @x402/fetch clients with the
// exact EVM scheme pay with EIP-3009 authorizations on anvil, the in-process facilitator relays them, the ledger
// credits per network exactly once, and the receipts verify with all five checks, on chain.
import { randomBytes } from "node:crypto";
import { authorizationHeader } from "../support/eip3009-header";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PrivateKeyAccount } from "viem/accounts";
import { generateKeypair } from "../../keys/parse-secret-key";
import { writeSetting } from "../../settings/write-setting";
import { parseReceiptText, verifyReceipt } from "../../verify";
import type { LocalEvmChain } from "../../../devtools/anvil";
import { challengeOf, startPaidStack, type PaidStack } from "../support/paid-stack";
import { startServer } from "../verify/local-servers";
import { answerWithRoute } from "../support/route-adapter";
import { execFile } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { setEnv, tempDataDir, testEnv } from "../support/env";

let stack: PaidStack;
let sepolia: LocalEvmChain;
beforeAll(async () => {
  stack = await startPaidStack({ evm: true, baseMainnet: true, env: { X402_FLAT_PRICE_USDC: "0.001" } });
  sepolia = stack.baseSepolia!;
});
afterAll(async () => stack?.close());

const body = {
  model: "local/echo-1",
  network: "base-sepolia",
  messages: [{ role: "user", content: "pay me on Base" }],
};
const PRICE = 1_000n;

/** What a payment may move for an agent on Base Sepolia: its wallet, its ledger entries, its logged calls. */
async function movedFor(agent: PrivateKeyAccount) {
  const payer = agent.address.toLowerCase();
  return {
    usdc: await sepolia.usdcBalance(agent.address),
    ledger: await stack.tdb.prisma.ledgerEntry.count({ where: { agentPubkey: payer } }),
    calls: await stack.tdb.prisma.inferenceLog.count({ where: { agentPubkey: payer } }),
  };
}

async function expectNothingMoved(agent: PrivateKeyAccount, before: bigint) {
  expect(await sepolia.usdcBalance(agent.address)).toBe(before);
  const payer = agent.address.toLowerCase();
  expect(await stack.tdb.prisma.ledgerEntry.count({ where: { agentPubkey: payer } })).toBe(0);
  expect(
    await stack.tdb.prisma.payment.count({ where: { payer, status: { in: ["settled", "served", "unserved"] } } }),
  ).toBe(0);
}

describe("a paid Base Sepolia call", () => {
  it("challenges with the network's USDC contract and its EIP-712 domain, paid to the facilitator's EVM address", async () => {
    const challenge = await challengeOf(await stack.chat({ body }));
    expect(challenge.accepts[0]).toMatchObject({
      scheme: "exact",
      network: "eip155:84532",
      asset: "0x036CbD53842c5426634e7929541eC2318f3dCF7e",
      amount: "1000",
      payTo: stack.evmDeposit,
      // The EIP-712 domain, and the typed message's primary type (thirdweb's client reads it instead of the token's ABI).
      extra: { name: "USDC", version: "2", primaryType: "TransferWithAuthorization" },
    });
  });

  it("is paid by a stock client, moves exactly the price on chain, and its receipt verifies with all five checks", async () => {
    const agent = await stack.newEvmAgent(1_000_000n);
    const depositBefore = await sepolia.usdcBalance(stack.evmDeposit!);
    const res = await stack.evmPayingFetch(agent)("http://signet.test/api/v1/chat/completions", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(200);
    const response = await res.json();
    expect(await sepolia.usdcBalance(agent.address)).toBe(1_000_000n - PRICE);
    expect(await sepolia.usdcBalance(stack.evmDeposit!)).toBe(depositBefore + PRICE);

    const parsed = parseReceiptText(res.headers.get("x-service-receipt")!);
    if (!parsed.ok) throw new Error("no receipt");
    const receipt = parsed.receipt as {
      agent_pubkey: string;
      payment: { network: string; pay_to: string; tx_signature: string; amount_usdc: number };
    };
    expect(receipt.agent_pubkey).toBe(agent.address.toLowerCase());
    expect(receipt.payment).toMatchObject({ network: "eip155:84532", pay_to: stack.evmDeposit, amount_usdc: 0.001 });
    expect(receipt.payment.tx_signature).toMatch(/^0x[0-9a-f]{64}$/);

    const { operatorKeypair } = await import("../support/env");
    const verdict = await verifyReceipt({
      receipt: parsed.receipt,
      prompt: body.messages,
      response,
      operatorKey: operatorKeypair().publicKeyBase58,
      rpc: sepolia.url,
    });
    expect(verdict.checks).toEqual({
      prompt_hash_ok: true,
      response_hash_ok: true,
      service_signature_ok: true,
      payment_on_chain_ok: true,
      payer_matches: true,
    });
    expect(verdict.reasons.payment_on_chain_ok).toContain("transfer of 0.001 USDC");

    // The hosted verifier, with no caller `rpc`, checks it against the service's own Base Sepolia RPC and signs.
    const { POST: verifyRoute } = await import("@/app/api/verify/route");
    const hosted = await verifyRoute(
      new Request("http://signet.test/api/verify", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ receipt: parsed.receipt, prompt: body.messages, response }),
      }),
      {},
    );
    expect(hosted.status).toBe(200);
    expect(await hosted.json()).toMatchObject({ ok: true, checks: { payment_on_chain_ok: true, payer_matches: true } });

    // The ledger credited and debited the payer on Base Sepolia only.
    const entries = await stack.tdb.prisma.ledgerEntry.findMany({
      where: { agentPubkey: agent.address.toLowerCase() },
    });
    expect(new Set(entries.map((e) => e.network))).toEqual(new Set(["eip155:84532"]));
  });

  it("gives the same authorization sent again with the same request its stored answer, and refuses it for another request, moving nothing", async () => {
    const agent = await stack.newEvmAgent(1_000_000n);
    const header = await authorizationHeader(agent, await challengeOf(await stack.chat({ body })));
    const served = await stack.chat({ body, headers: { "PAYMENT-SIGNATURE": header } });
    expect(served.status).toBe(200);
    const servedId = ((await served.json()) as { id: string }).id;
    const before = await movedFor(agent);
    const again = await stack.chat({ body, headers: { "PAYMENT-SIGNATURE": header } });
    expect(again.status).toBe(200);
    expect(again.headers.get("x-answer-replayed")).toBe("true");
    expect(((await again.json()) as { id: string }).id).toBe(servedId);
    const other = await stack.chat({
      body: { ...body, messages: [{ role: "user", content: "another request" }] },
      headers: { "PAYMENT-SIGNATURE": header },
    });
    expect(other.status).toBe(409);
    expect(await other.json()).toMatchObject({ error: { code: "payment_request_mismatch" } });
    expect(await movedFor(agent)).toEqual(before);
    expect(before).toMatchObject({ usdc: 1_000_000n - PRICE, calls: 1 });
  });
});

describe("refused Base payments", () => {
  it.each([
    ["a smaller amount", { value: PRICE - 1n }],
    ["another recipient", { to: "0x000000000000000000000000000000000000dEaD" as const }],
    ["an expired validBefore", { validBefore: BigInt(Math.floor(Date.now() / 1000)) - 10n }],
    ["a validAfter in the future", { validAfter: BigInt(Math.floor(Date.now() / 1000)) + 3_600n }],
  ])("refuses an authorization with %s, crediting nothing", async (_label, overrides) => {
    const agent = await stack.newEvmAgent(1_000_000n);
    const header = await authorizationHeader(agent, await challengeOf(await stack.chat({ body })), overrides);
    const res = await stack.chat({ body, headers: { "PAYMENT-SIGNATURE": header } });
    expect(res.status).toBe(402);
    expect(await res.json()).toMatchObject({ code: "payment_required", reason: expect.any(String) });
    await expectNothingMoved(agent, 1_000_000n);
  });

  it("takes a second authorization that reuses a spent nonce as the first payment: never a second charge or call", async () => {
    const agent = await stack.newEvmAgent(1_000_000n);
    const nonce = `0x${randomBytes(32).toString("hex")}` as `0x${string}`;
    const challenge = await challengeOf(await stack.chat({ body }));
    const served = await stack.chat({
      body,
      headers: { "PAYMENT-SIGNATURE": await authorizationHeader(agent, challenge, { nonce }) },
    });
    expect(served.status).toBe(200);
    const servedId = ((await served.json()) as { id: string }).id;
    const before = await movedFor(agent);
    // Same nonce, a different validBefore: other bytes, but the same (from, nonce) the token contract spends once, so
    // it is the same payment, answered before anything is verified or sent: the same request gets the stored answer,
    // another request is refused.
    const reused = await authorizationHeader(agent, challenge, {
      nonce,
      validBefore: BigInt(Math.floor(Date.now() / 1000)) + 200n,
    });
    const res = await stack.chat({ body, headers: { "PAYMENT-SIGNATURE": reused } });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-answer-replayed")).toBe("true");
    expect(((await res.json()) as { id: string }).id).toBe(servedId);
    const other = await stack.chat({
      body: { ...body, messages: [{ role: "user", content: "another request" }] },
      headers: { "PAYMENT-SIGNATURE": reused },
    });
    expect(other.status).toBe(409);
    expect(await other.json()).toMatchObject({ error: { code: "payment_request_mismatch" } });
    expect(await movedFor(agent)).toEqual(before);
    expect(before).toMatchObject({ usdc: 1_000_000n - PRICE, calls: 1 });
    expect(
      await stack.tdb.prisma.payment.count({ where: { payer: agent.address.toLowerCase(), status: "served" } }),
    ).toBe(1);
  });

  it("refuses an agent that cannot cover the price as insufficient_balance", async () => {
    const agent = await stack.newEvmAgent(PRICE - 1n);
    const header = await authorizationHeader(agent, await challengeOf(await stack.chat({ body })));
    const res = await stack.chat({ body, headers: { "PAYMENT-SIGNATURE": header } });
    expect(res.status).toBe(402);
    expect(await res.json()).toMatchObject({ code: "payment_required", reason: "insufficient_balance" });
    await expectNothingMoved(agent, PRICE - 1n);
  });

  it("refuses a signature by another key for the agent's address", async () => {
    const agent = await stack.newEvmAgent(1_000_000n);
    const thief = await stack.newEvmAgent(0n);
    const challenge = await challengeOf(await stack.chat({ body }));
    const forged = await authorizationHeader({ ...thief, address: agent.address } as PrivateKeyAccount, challenge);
    const res = await stack.chat({ body, headers: { "PAYMENT-SIGNATURE": forged } });
    expect(res.status).toBe(402);
    await expectNothingMoved(agent, 1_000_000n);
  });
});

describe("Base mainnet", () => {
  const mainnetBody = { ...body, network: "base" };

  it("follows the mainnet kill switch, then serves a payment with the Base domain and verifies it", async () => {
    const off = await stack.chat({ body: mainnetBody });
    expect(off.status).toBe(503);
    expect(await off.json()).toMatchObject({ error: { code: "mainnet_disabled" } });

    await writeSetting(stack.tdb.prisma, stack.config, "SERVICE_MAINNET_ENABLED", "true", "test");
    try {
      const challenge = await challengeOf(await stack.chat({ body: mainnetBody }));
      expect(challenge.accepts[0]).toMatchObject({
        network: "eip155:8453",
        asset: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913",
        extra: { name: "USD Coin", version: "2" },
      });
      const agent = await stack.newEvmAgent(1_000_000n, stack.base!);
      const res = await stack.evmPayingFetch(agent)("http://signet.test/api/v1/chat/completions", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(mainnetBody),
      });
      expect(res.status).toBe(200);
      expect(await stack.base!.usdcBalance(agent.address)).toBe(1_000_000n - PRICE);
      const parsed = parseReceiptText(res.headers.get("x-service-receipt")!);
      if (!parsed.ok) throw new Error("no receipt");
      const { operatorKeypair } = await import("../support/env");
      const verdict = await verifyReceipt({
        receipt: parsed.receipt,
        prompt: mainnetBody.messages,
        response: await res.json(),
        operatorKey: operatorKeypair().publicKeyBase58,
        rpc: stack.base!.url,
      });
      expect(verdict.ok).toBe(true);
      // The same receipt checked against Base Sepolia's chain is not found there.
      const wrongChain = await verifyReceipt({
        receipt: parsed.receipt,
        prompt: mainnetBody.messages,
        response: "x",
        operatorKey: operatorKeypair().publicKeyBase58,
        rpc: sepolia.url,
      });
      expect(wrongChain.checks.payment_on_chain_ok).toBe(false);
    } finally {
      await writeSetting(stack.tdb.prisma, stack.config, "SERVICE_MAINNET_ENABLED", "false", "test");
    }
  });

  it("applies the mainnet allowlist to the verified 0x payer", async () => {
    const listed = await stack.newEvmAgent(1_000_000n, stack.base!);
    const stranger = await stack.newEvmAgent(1_000_000n, stack.base!);
    await writeSetting(stack.tdb.prisma, stack.config, "SERVICE_MAINNET_ENABLED", "true", "test");
    await writeSetting(
      stack.tdb.prisma,
      stack.config,
      "SERVICE_ALLOWED_AGENTS",
      `${generateKeypair().publicKeyBase58},${listed.address}`,
      "test",
    );
    try {
      const call = (agent: PrivateKeyAccount) =>
        stack.evmPayingFetch(agent)("http://signet.test/api/v1/chat/completions", {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(mainnetBody),
        });
      const refused = await call(stranger);
      expect(refused.status).toBe(403);
      expect(await refused.json()).toMatchObject({ error: { code: "agent_not_allowed" } });
      expect(await stack.base!.usdcBalance(stranger.address)).toBe(1_000_000n);
      expect((await call(listed)).status).toBe(200);
    } finally {
      await writeSetting(stack.tdb.prisma, stack.config, "SERVICE_ALLOWED_AGENTS", "", "test");
      await writeSetting(stack.tdb.prisma, stack.config, "SERVICE_MAINNET_ENABLED", "false", "test");
    }
  });
});

describe("credit top-ups on Base Sepolia", () => {
  it("credits the named Ed25519 key on Base Sepolia, and requires one", async () => {
    const { POST } = await import("@/app/api/v1/credits/route");
    const url = "http://signet.test/api/v1/credits";
    const route = ((input: RequestInfo | URL, init?: RequestInit) =>
      POST(new Request(input, init), {})) as typeof fetch;
    const missing = await route(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ amount_usdc: "0.05", network: "base-sepolia" }),
    });
    expect(missing.status).toBe(400);
    expect(await missing.json()).toMatchObject({
      error: { code: "invalid_request", detail: "agent_pubkey", param: "agent_pubkey" },
    });

    const spender = generateKeypair().publicKeyBase58;
    const agent = await stack.newEvmAgent(1_000_000n);
    const { createEvmPayingFetch } = await import("../../agent/paying-fetch");
    const res = await createEvmPayingFetch(
      agent,
      ["eip155:84532"],
      route,
    )(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ amount_usdc: "0.05", network: "base-sepolia", agent_pubkey: spender }),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      agent_pubkey: spender,
      payer: agent.address.toLowerCase(),
      network: "eip155:84532",
      balance_usdc: "0.05",
    });
    expect(await sepolia.usdcBalance(agent.address)).toBe(1_000_000n - 50_000n);
  });
});

describe("the CLI on Base Sepolia", () => {
  const root = path.resolve(__dirname, "../../..");
  const signet = (args: string[]) =>
    promisify(execFile)(process.execPath, [path.join(root, "bin/cli/signet.mjs"), ...args], {
      cwd: root,
      env: testEnv(),
      encoding: "utf8",
    }).then(
      (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
      (e: { code?: number; stdout?: string; stderr?: string }) => ({
        code: e.code ?? 1,
        stdout: e.stdout ?? "",
        stderr: e.stderr ?? "",
      }),
    );

  it("funds a 0x address with `localnet fund`, then pays with `signet chat --network base-sepolia --keypair FILE` and verifies", async () => {
    const { POST: chatRoute } = await import("@/app/api/v1/chat/completions/route");
    const { GET: operatorKeyRoute } = await import("@/app/api/v1/operator-key/route");
    const { GET: didDocumentRoute } = await import("@/app/.well-known/did.json/route");
    // The service over real HTTP, as the CLI reaches it: the chat route, the operator key and the DID document (the
    // x402 receipt's key), at the public origin the service names.
    const routes: Record<string, (r: Request) => Promise<Response>> = {
      "/api/v1/operator-key": (r) => operatorKeyRoute(r, {}),
      "/.well-known/did.json": (r) => didDocumentRoute(r, {}),
    };
    const server = await startServer((req, reqBody, res) =>
      answerWithRoute(routes[req.url ?? ""] ?? ((r) => chatRoute(r, {})), req, reqBody, res),
    );
    const restore = setEnv({ SERVICE_BASE_URL: server.url });
    try {
      const keyFile = path.join(tempDataDir(), "agent-evm.txt");
      const key = generatePrivateKey();
      writeFileSync(keyFile, `${key}\n`);
      const agent = privateKeyToAccount(key);
      const funded = await signet(["localnet", "fund", agent.address, "--usdc", "2", "--rpc", sepolia.url]);
      expect(funded.code, funded.stderr).toBe(0);
      expect(await sepolia.usdcBalance(agent.address)).toBe(2_000_000n);

      const r = await signet([
        "chat",
        "hello from the CLI",
        "--network",
        "base-sepolia",
        "--keypair",
        keyFile,
        "--endpoint",
        server.url,
        "--rpc",
        sepolia.url,
      ]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain("hello from the CLI");
      expect(r.stderr).toContain("✓ payer_matches");
      expect(r.stderr).toMatch(/paid: tx 0x[0-9a-f]{64}/);
      expect(r.stderr).toContain(
        `x402 receipt: ok, JWS by did:web:${encodeURIComponent(new URL(server.url).host)}#operator-key`,
      );
      expect(await sepolia.usdcBalance(agent.address)).toBe(2_000_000n - PRICE);
    } finally {
      await restore();
      await server.close();
    }
  });

  it("refuses a key file that is not an EVM key, with one line and exit 2", async () => {
    const keyFile = path.join(tempDataDir(), "not-a-key.txt");
    writeFileSync(keyFile, "[1,2,3]");
    const r = await signet([
      "chat",
      "hi",
      "--network",
      "base-sepolia",
      "--keypair",
      keyFile,
      "--endpoint",
      "http://127.0.0.1:9",
      "--rpc",
      sepolia.url,
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toMatch(/^signet: .*does not hold a hex EVM private key/);
  });
});
