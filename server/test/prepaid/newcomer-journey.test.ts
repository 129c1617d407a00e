// A newcomer's journey: a fresh keypair claims a grant, makes prepaid calls until its credit runs out (402), tops up
// with x402, and goes on; every receipt verifies and the ledger sums match to the unit. Plus the admission's limits.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { utf8ToBytes } from "@noble/hashes/utils.js";
import { createKeyPairSignerFromBytes } from "@solana/kit";
import { POST as topUpRoute } from "@/app/api/v1/credits/route";
import { POST as inferenceRoute } from "@/app/api/v1/inference/route";
import { GET as challengeRoute } from "@/app/api/v1/grants/challenge/route";
import { POST as grantRoute } from "@/app/api/v1/grants/route";
import { createPayingFetch } from "../../agent/paying-fetch";
import { newNonce, signRequestHeaders } from "../../agent/sign-request";
import { generateKeypair } from "../../keys/parse-secret-key";
import { operatorKeypair } from "../support/env";
import { signDetached } from "../../receipts/sign-receipt";
import { createLogger } from "../../log";
import { admitSignedRequest } from "../../prepaid/admit-signed-request";
import { manualClock } from "../support/manual-clock";
import { parseReceiptText, verifyReceipt } from "../../verify";
import { startPaidStack, type PaidStack } from "../support/paid-stack";

let stack: PaidStack;
const DEVNET = "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1";
beforeAll(async () => {
  // A grant of 0.0002 USDC covers a few calls of the local model, so the credit runs out quickly.
  stack = await startPaidStack({
    env: { X402_FLAT_PRICE_USDC: "0.001", SERVICE_GRANT_AMOUNT_USDC: "0.0002", PREPAID_RATE_LIMIT_PER_MINUTE: "1000" },
  });
});
afterAll(async () => stack?.close());

describe("a newcomer's journey", () => {
  it("grant → prepaid calls until 402 → x402 top-up → more calls; receipts verify and the ledger sums match", async () => {
    const kp = generateKeypair();
    const challenge = (
      (await (
        await challengeRoute(
          new Request(`http://signet.test/api/v1/grants/challenge?agent_pubkey=${kp.publicKeyBase58}`),
          {},
        )
      ).json()) as { challenge: string }
    ).challenge;
    const granted = await grantRoute(
      new Request("http://signet.test/api/v1/grants", {
        method: "POST",
        headers: { "content-type": "application/json", "x-forwarded-for": "203.0.113.99" },
        body: JSON.stringify({
          agent_pubkey: kp.publicKeyBase58,
          challenge,
          signature: signDetached(utf8ToBytes(challenge), kp),
        }),
      }),
      {},
    );
    expect(granted.status).toBe(200);

    const call = async (prompt: string) => {
      const text = JSON.stringify({ model: "local/echo-1", prompt, nonce: newNonce(), timestamp: Date.now() });
      return inferenceRoute(
        new Request("http://signet.test/api/v1/inference", {
          method: "POST",
          headers: signRequestHeaders(kp, "POST", "http://signet.test/api/v1/inference", text),
          body: text,
        }),
        {},
      );
    };
    const verifyAnswer = async (res: Response, prompt: string) => {
      const parsed = parseReceiptText(res.headers.get("x-service-receipt")!);
      if (!parsed.ok) throw new Error("no receipt");
      const verdict = await verifyReceipt({
        receipt: parsed.receipt,
        prompt,
        response: await res.json(),
        operatorKey: operatorKeypair().publicKeyBase58,
      });
      expect(verdict.ok).toBe(true);
    };

    let served = 0;
    for (;;) {
      const res = await call(`question ${served}`);
      if (res.status === 402) {
        expect(await res.json()).toMatchObject({ error: { code: "insufficient_credits" } });
        break;
      }
      expect(res.status).toBe(200);
      await verifyAnswer(res, `question ${served}`);
      served++;
      expect(served).toBeLessThan(50);
    }
    expect(served).toBeGreaterThan(0);

    const signer = await createKeyPairSignerFromBytes(new Uint8Array([...kp.seed, ...kp.publicKey]));
    await stack.devnet.fundAccount(signer.address, { usdcUnits: 1_000_000n });
    const pay = createPayingFetch(signer, { [DEVNET]: stack.devnet.url }, ((i: RequestInfo | URL, init?: RequestInit) =>
      topUpRoute(new Request(i, init), {})) as typeof fetch);
    const topped = await pay("http://signet.test/api/v1/credits", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ amount_usdc: 0.01 }),
    });
    expect(topped.status).toBe(200);

    for (let i = 0; i < 3; i++) {
      const res = await call(`after top-up ${i}`);
      expect(res.status).toBe(200);
      await verifyAnswer(res, `after top-up ${i}`);
    }

    const entries = await stack.tdb.prisma.ledgerEntry.findMany({
      where: { agentPubkey: kp.publicKeyBase58, network: DEVNET },
    });
    const balance = await stack.tdb.prisma.balance.findUniqueOrThrow({
      where: { agentPubkey_network: { agentPubkey: kp.publicKeyBase58, network: DEVNET } },
    });
    const costs = await stack.tdb.prisma.inferenceLog.aggregate({
      where: { agentPubkey: kp.publicKeyBase58 },
      _sum: { costUnits: true },
    });
    expect(entries.reduce((s, e) => s + e.units, 0n)).toBe(balance.units);
    expect(balance.units).toBe(200n + 10_000n - (costs._sum.costUnits ?? 0n));
  });
});

describe("admitSignedRequest()", () => {
  const admit = (agent: string, limit: number, now: number, nonce = newNonce()) =>
    admitSignedRequest(
      stack.tdb.prisma,
      stack.config,
      { agentPubkey: agent, nonce, limit, network: DEVNET, ip: null },
      { clock: manualClock(now), log: createLogger("silent") },
    );
  /** A fresh agent with credit on devnet: only such an agent is counted and has its nonces claimed. */
  const fundedAgent = async () => {
    const agent = generateKeypair().publicKeyBase58;
    await stack.credit(agent, 1_000n);
    return agent;
  };

  it("admits `limit` requests per agent per window, then answers 429 rate_limited with Retry-After", async () => {
    const agent = await fundedAgent();
    const now = Date.UTC(2026, 10, 22, 12, 0, 10);
    for (let i = 0; i < 3; i++) await admit(agent, 3, now);
    const err = await admit(agent, 3, now).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: "rate_limited", headers: { "Retry-After": "50" } });
    // Another agent is unaffected; the next window starts afresh.
    await admit(await fundedAgent(), 3, now);
    await admit(agent, 3, now + 60_000);
  });

  it("counts concurrent requests exactly", async () => {
    const agent = await fundedAgent();
    const now = Date.UTC(2026, 10, 22, 12, 5, 0);
    const results = await Promise.allSettled(Array.from({ length: 30 }, () => admit(agent, 10, now)));
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(10);
  });

  it("leaves a rate-limited request's nonce unclaimed, so the same signed request can be retried after the wait", async () => {
    const agent = await fundedAgent();
    const now = Date.UTC(2026, 10, 22, 12, 10, 0);
    await admit(agent, 1, now);
    const nonce = newNonce();
    await expect(admit(agent, 1, now, nonce)).rejects.toMatchObject({ code: "rate_limited" });
    expect(await stack.tdb.prisma.requestNonce.count({ where: { agentPubkey: agent, nonce } })).toBe(0);
    await admit(agent, 1, now + 60_000, nonce);
    await expect(admit(agent, 1, now + 120_000, nonce)).rejects.toMatchObject({ code: "nonce_replay" });
  });

  it("refuses an agent with no credit on the network with 402 insufficient_credits, and writes no row for it", async () => {
    const db = stack.tdb.prisma;
    const stranger = generateKeypair().publicKeyBase58;
    const elsewhere = generateKeypair().publicKeyBase58;
    // A devnet balance row at zero, and credit on another network only.
    await db.balance.createMany({
      data: [
        { agentPubkey: elsewhere, network: DEVNET, units: 0n },
        { agentPubkey: elsewhere, network: "eip155:84532", units: 5_000n },
      ],
    });
    for (const agent of [stranger, elsewhere]) {
      await expect(admit(agent, 10, Date.now())).rejects.toMatchObject({ code: "insufficient_credits" });
      expect(await db.requestNonce.count({ where: { agentPubkey: agent } })).toBe(0);
      expect(await db.rateLimitWindow.count({ where: { agentPubkey: agent } })).toBe(0);
    }
  });

  it("admits an agent whose whole balance is held by calls in flight, so a duplicate still meets its claimed nonce", async () => {
    const db = stack.tdb.prisma;
    const agent = generateKeypair().publicKeyBase58;
    await db.balance.create({ data: { agentPubkey: agent, network: DEVNET, units: 0n } });
    const nonce = newNonce();
    await expect(admit(agent, 10, Date.now(), nonce)).rejects.toMatchObject({ code: "insufficient_credits" });
    await db.creditHold.create({
      data: {
        id: randomUUID(),
        agentPubkey: agent,
        network: DEVNET,
        units: 500n,
        status: "held",
        leaseExpiresAt: new Date(Date.now() + 60_000),
      },
    });
    await admit(agent, 10, Date.now(), nonce);
    await expect(admit(agent, 10, Date.now(), nonce)).rejects.toMatchObject({ code: "nonce_replay" });
  });

  it("returns the stored settings over the environment defaults", async () => {
    const before = await admit(await fundedAgent(), 10, Date.now());
    await stack.tdb.prisma.setting.upsert({
      where: { key: "SERVICE_MAINNET_ENABLED" },
      create: { key: "SERVICE_MAINNET_ENABLED", value: String(!before.mainnetEnabled) },
      update: { value: String(!before.mainnetEnabled) },
    });
    try {
      const after = await admit(await fundedAgent(), 10, Date.now());
      expect(after.mainnetEnabled).toBe(!before.mainnetEnabled);
    } finally {
      await stack.tdb.prisma.setting.deleteMany({ where: { key: "SERVICE_MAINNET_ENABLED" } });
    }
  });
});
