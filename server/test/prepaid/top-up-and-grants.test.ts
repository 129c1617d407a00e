// Top-ups paid on the local chain, the signed balance route, and grants with their races, on PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { utf8ToBytes } from "@noble/hashes/utils.js";
import { createKeyPairSignerFromBytes } from "@solana/kit";
import { POST as topUpRoute } from "@/app/api/v1/credits/route";
import { GET as creditsRoute } from "@/app/api/v1/credits/[pubkey]/route";
import { POST as inferenceRoute } from "@/app/api/v1/inference/route";
import { GET as challengeRoute } from "@/app/api/v1/grants/challenge/route";
import { POST as grantRoute } from "@/app/api/v1/grants/route";
import { createPayingFetch } from "../../agent/paying-fetch";
import { newNonce, signRequestHeaders } from "../../agent/sign-request";
import { generateKeypair, type Ed25519Keypair } from "../../keys/parse-secret-key";
import { signDetached } from "../../receipts/sign-receipt";
import { signedRequestMessage } from "../../prepaid/signed-request";
import { writeSetting } from "../../settings/write-setting";
import { formatUnitsAsUsdc } from "../../verify";
import { buildPaymentHeader, challengeOf, startPaidStack, type PaidStack } from "../support/paid-stack";

let stack: PaidStack;
const DEVNET = "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1";
beforeAll(async () => {
  stack = await startPaidStack({ env: { X402_FLAT_PRICE_USDC: "0.001", PREPAID_RATE_LIMIT_PER_MINUTE: "1000" } });
});
afterAll(async () => stack?.close());

const topUp = (body: unknown, headers: Record<string, string> = {}) =>
  topUpRoute(
    new Request("http://signet.test/api/v1/credits", {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify(body),
    }),
    {},
  );

async function fundedSigner(kp: Ed25519Keypair, usdcUnits = 5_000_000n) {
  const signer = await createKeyPairSignerFromBytes(new Uint8Array([...kp.seed, ...kp.publicKey]));
  await stack.devnet.fundAccount(signer.address, { usdcUnits });
  return signer;
}

function infer(kp: Ed25519Keypair, prompt: string) {
  const text = JSON.stringify({ model: "local/echo-1", prompt, nonce: newNonce(), timestamp: Date.now() });
  return inferenceRoute(
    new Request("http://signet.test/api/v1/inference", {
      method: "POST",
      headers: signRequestHeaders(kp, "POST", "http://signet.test/api/v1/inference", text),
      body: text,
    }),
    {},
  );
}

function readCredits(kp: Ed25519Keypair, pubkey = kp.publicKeyBase58, timestamp = String(Date.now())) {
  const sig = signDetached(
    signedRequestMessage("GET", `http://signet.test/api/v1/credits/${pubkey}`, utf8ToBytes(timestamp)),
    kp,
  );
  return creditsRoute(
    new Request(`http://signet.test/api/v1/credits/${pubkey}?network=devnet`, {
      headers: { "X-Agent-Pubkey": kp.publicKeyBase58, "X-Agent-Signature": sig, "X-Agent-Timestamp": timestamp },
    }),
    { params: Promise.resolve({ pubkey }) },
  );
}

async function ledgerSum(agent: string): Promise<bigint> {
  const entries = await stack.tdb.prisma.ledgerEntry.findMany({ where: { agentPubkey: agent, network: DEVNET } });
  return entries.reduce((s, e) => s + e.units, 0n);
}

describe("POST /api/v1/credits (x402 top-up) then prepaid calls", () => {
  it("credits the whole amount to the verified payer, then prepaid calls spend it to the unit", async () => {
    const kp = generateKeypair();
    const signer = await fundedSigner(kp);
    const pay = createPayingFetch(signer, { [DEVNET]: stack.devnet.url }, ((i: RequestInfo | URL, init?: RequestInit) =>
      topUpRoute(new Request(i, init), {})) as typeof fetch);
    const res = await pay("http://signet.test/api/v1/credits", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ amount_usdc: "0.5" }),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      agent_pubkey: kp.publicKeyBase58,
      amount_usdc: "0.5",
      balance_usdc: "0.5",
    });

    let costs = 0n;
    for (let i = 0; i < 3; i++) {
      const r = await infer(kp, `call ${i}`);
      expect(r.status).toBe(200);
      const receipt = JSON.parse(Buffer.from(r.headers.get("x-service-receipt")!, "base64").toString()) as {
        inference_id: string;
      };
      costs += (await stack.tdb.prisma.inferenceLog.findUniqueOrThrow({ where: { id: receipt.inference_id } }))
        .costUnits;
    }
    const balance = await readCredits(kp);
    expect(balance.status).toBe(200);
    const body = (await balance.json()) as { balance_usdc: string; entries: { kind: string }[] };
    const expected = 500_000n - costs;
    expect(body.balance_usdc).toBe(formatUnitsAsUsdc(expected));
    expect(await ledgerSum(kp.publicKeyBase58)).toBe(expected);
    expect(body.entries.map((e) => e.kind)).toContain("topup_credit");
  });

  it("answers a top-up sent again with its first answer (the balance then, the same x402 receipt), crediting nothing more, and refuses amounts out of range", async () => {
    const kp = generateKeypair();
    const signer = await fundedSigner(kp);
    const challenge = await challengeOf(await topUp({ amount_usdc: 0.25 }));
    expect(challenge.accepts[0]!.amount).toBe("250000");
    const header = await buildPaymentHeader(signer, challenge, stack.devnet.url);
    const first = await topUp({ amount_usdc: 0.25 }, { "X-Payment": header });
    expect(first.status).toBe(200);
    const credited = (await first.json()) as { tx_signature: string };
    // The agent's balance moves on after the top-up (a grant, another credit): only its signature may read it now.
    await stack.credit(kp.publicKeyBase58, 1_000_000n);
    const entries = await stack.tdb.prisma.ledgerEntry.count({ where: { agentPubkey: kp.publicKeyBase58 } });
    // Anyone holding the payment (it is public on chain) gets back only what the first answer said.
    const again = await topUp({ amount_usdc: 0.25 }, { "X-Payment": header });
    expect(again.status).toBe(200);
    expect(again.headers.get("x-answer-replayed")).toBe("true");
    expect(await again.json()).toMatchObject({
      agent_pubkey: kp.publicKeyBase58,
      amount_usdc: "0.25",
      balance_usdc: "0.25",
      tx_signature: credited.tx_signature,
    });
    expect(again.headers.get("x-credit-balance-usdc")).toBe("0.25");
    expect(again.headers.get("payment-response")).toBe(first.headers.get("payment-response"));
    // Another amount with the same payment is another request: refused, nothing credited.
    const otherAmount = await topUp({ amount_usdc: 0.5 }, { "X-Payment": header });
    expect(otherAmount.status).toBe(409);
    expect(await otherAmount.json()).toMatchObject({ error: { code: "payment_request_mismatch" } });
    expect(await stack.tdb.prisma.ledgerEntry.count({ where: { agentPubkey: kp.publicKeyBase58 } })).toBe(entries);
    expect(await ledgerSum(kp.publicKeyBase58)).toBe(1_250_000n);
    for (const amount_usdc of [0.0001, 1000, "1.0000001", -1]) {
      expect((await topUp({ amount_usdc })).status).toBe(400);
    }
  });
});

describe("GET /api/v1/credits/<pubkey>", () => {
  it("refuses another agent's signature, a stale timestamp and missing headers", async () => {
    const owner = generateKeypair();
    const other = generateKeypair();
    expect((await readCredits(other, owner.publicKeyBase58)).status).toBe(401);
    expect((await readCredits(owner, owner.publicKeyBase58, String(Date.now() - 120_000))).status).toBe(401);
    const bare = await creditsRoute(new Request(`http://signet.test/api/v1/credits/${owner.publicKeyBase58}`), {
      params: Promise.resolve({ pubkey: owner.publicKeyBase58 }),
    });
    expect(await bare.json()).toMatchObject({ error: { code: "missing_auth_headers" } });
    const badPath = await creditsRoute(new Request("http://signet.test/api/v1/credits/nope"), {
      params: Promise.resolve({ pubkey: "nope" }),
    });
    expect(badPath.status).toBe(400);
  });
});

describe("grants", () => {
  // Challenges are rate limited per IP: each comes from its own address (what the custom server stamps).
  let challenges = 0;
  async function challengeFor(kp: Ed25519Keypair): Promise<string> {
    const n = challenges++;
    const headers = { "x-signet-peer-address": `198.19.${Math.floor(n / 250)}.${(n % 250) + 1}` };
    const res = await challengeRoute(
      new Request(`http://signet.test/api/v1/grants/challenge?agent_pubkey=${kp.publicKeyBase58}`, { headers }),
      {},
    );
    return ((await res.json()) as { challenge: string }).challenge;
  }
  const claim = (kp: Ed25519Keypair, challenge: string, ip: string, signer: Ed25519Keypair = kp) =>
    grantRoute(
      new Request("http://signet.test/api/v1/grants", {
        method: "POST",
        headers: { "content-type": "application/json", "x-signet-peer-address": ip },
        body: JSON.stringify({
          agent_pubkey: kp.publicKeyBase58,
          challenge,
          signature: signDetached(utf8ToBytes(challenge), signer),
        }),
      }),
      {},
    );

  it("issues a readable challenge, grants once, and credits the default network in the same transaction", async () => {
    const kp = generateKeypair();
    const challenge = await challengeFor(kp);
    expect(challenge).toContain(kp.publicKeyBase58);
    expect(challenge).toMatch(/Amount: 0\.1 USDC/);
    const res = await claim(kp, challenge, "203.0.113.7");
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ granted_usdc: "0.1", balance_usdc: "0.1", network: DEVNET });
    expect(await ledgerSum(kp.publicKeyBase58)).toBe(100_000n);
    const second = await claim(kp, await challengeFor(kp), "203.0.113.8");
    expect(second.status).toBe(409);
    expect(await second.json()).toMatchObject({ error: { code: "grant_already_claimed" } });
    const stored = await stack.tdb.prisma.grant.findUniqueOrThrow({ where: { agentPubkey: kp.publicKeyBase58 } });
    expect(stored.ipHash).not.toContain("203.0.113");
  });

  it("refuses a reused, a foreign or a forged challenge", async () => {
    const kp = generateKeypair();
    const challenge = await challengeFor(kp);
    const wrongSigner = await claim(kp, challenge, "198.51.100.1", generateKeypair());
    expect(await wrongSigner.json()).toMatchObject({ error: { code: "invalid_signature" } });
    const other = generateKeypair();
    const foreign = await claim(other, challenge.replace(kp.publicKeyBase58, other.publicKeyBase58), "198.51.100.2");
    expect(await foreign.json()).toMatchObject({ error: { code: "challenge_expired" } });
    await stack.tdb.prisma.grantChallenge.updateMany({
      where: { agentPubkey: kp.publicKeyBase58 },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    const expired = await claim(kp, challenge, "198.51.100.3");
    expect(expired.status).toBe(401);
    expect(await expired.json()).toMatchObject({ error: { code: "challenge_expired" } });
  });

  it("grants one agent once under concurrent claims, and refuses a reused challenge", async () => {
    const kp = generateKeypair();
    const challenges = await Promise.all(Array.from({ length: 10 }, () => challengeFor(kp)));
    const results = await Promise.all(challenges.map((c, i) => claim(kp, c, `198.18.${i}.1`)));
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(9);
    expect(await ledgerSum(kp.publicKeyBase58)).toBe(100_000n);
    const winner = challenges[statuses.indexOf(200)]!;
    const reused = await claim(kp, winner, "198.18.99.1");
    expect(reused.status).toBe(401);
    expect(await reused.json()).toMatchObject({ error: { code: "challenge_expired" } });
  });

  it("grants exactly SERVICE_GRANT_MAX_PER_IP of 100 concurrent claims from one IP", async () => {
    const agents = Array.from({ length: 100 }, () => generateKeypair());
    const challenges = await Promise.all(agents.map((a) => challengeFor(a)));
    const results = await Promise.all(agents.map((a, i) => claim(a, challenges[i]!, "192.0.2.55")));
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(3);
    expect(statuses.filter((s) => s === 429)).toHaveLength(97);
  });

  it("never exceeds the daily budget under concurrent claims", async () => {
    const day = new Date().toISOString().slice(0, 10);
    const spent = (await stack.tdb.prisma.grant.aggregate({ where: { day }, _sum: { units: true } }))._sum.units ?? 0n;
    // Leave room for exactly 4 more grants of 0.1 USDC.
    await writeSetting(
      stack.tdb.prisma,
      stack.config,
      "SERVICE_GRANT_BUDGET_DAILY_USDC",
      formatUnitsAsUsdc(spent + 400_000n),
      "test",
    );
    const agents = Array.from({ length: 20 }, () => generateKeypair());
    const challenges = await Promise.all(agents.map((a) => challengeFor(a)));
    const results = await Promise.all(agents.map((a, i) => claim(a, challenges[i]!, `10.9.${i}.1`)));
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(4);
    expect(statuses.filter((s) => s === 503)).toHaveLength(16);
    const after = (await stack.tdb.prisma.grant.aggregate({ where: { day }, _sum: { units: true } }))._sum.units ?? 0n;
    expect(after).toBe(spent + 400_000n);
  });

  it.each([
    ["a missing agent_pubkey", "/api/v1/grants/challenge"],
    ["a malformed agent_pubkey", "/api/v1/grants/challenge?agent_pubkey=nope"],
  ])("refuses %s with 400", async (_label, url) => {
    expect((await challengeRoute(new Request(`http://signet.test${url}`), {})).status).toBe(400);
  });

  it("refuses malformed claim bodies with 400", async () => {
    for (const body of [
      "{",
      JSON.stringify({ agent_pubkey: "x", challenge: "y", signature: "z" }),
      JSON.stringify({}),
    ]) {
      const res = await grantRoute(new Request("http://signet.test/api/v1/grants", { method: "POST", body }), {});
      expect(res.status).toBe(400);
    }
  });
});
