// The prepaid route's admission on PostgreSQL, through its route handler: keys without credit leave no row behind, the
// client IP's window answers 429 past its limit, replay protection still holds for funded agents, and the route
// purges spent rows.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POST as inferenceRoute } from "@/app/api/v1/inference/route";
import { newNonce, signRequestHeaders } from "../../agent/sign-request";
import { PEER_ADDRESS_HEADER } from "../../http/peer-address";
import { generateKeypair, type Ed25519Keypair } from "../../keys/parse-secret-key";
import { parseUsdcToUnits } from "../../verify";
import { inOneWindow } from "../support/minute-window";
import { startPaidStack, type PaidStack } from "../support/paid-stack";

const IP_LIMIT = 40;
let stack: PaidStack;
beforeAll(async () => {
  stack = await startPaidStack({
    env: {
      X402_FLAT_PRICE_USDC: "0.001",
      PREPAID_RATE_LIMIT_PER_MINUTE: "1000",
      PREPAID_IP_RATE_LIMIT_PER_MINUTE: String(IP_LIMIT),
    },
  });
});
afterAll(async () => stack?.close());

const URL = "http://signet.test/api/v1/inference";

function signedText(): string {
  return JSON.stringify({ model: "local/echo-1", prompt: "hello", nonce: newNonce(), timestamp: Date.now() });
}

function send(kp: Ed25519Keypair, ip: string, text = signedText()): Promise<Response> {
  const headers = { ...signRequestHeaders(kp, "POST", URL, text), [PEER_ADDRESS_HEADER]: ip };
  return inferenceRoute(new Request(URL, { method: "POST", headers, body: text }), {});
}

async function rowCounts(): Promise<{ nonces: number; windows: number }> {
  const db = stack.tdb.prisma;
  return { nonces: await db.requestNonce.count(), windows: await db.rateLimitWindow.count() };
}

describe("POST /api/v1/inference from keys without credit", () => {
  it("answers each of 300 fresh keys 402 insufficient_credits and adds no nonce or rate-limit window row", async () => {
    await inOneWindow();
    const before = await rowCounts();
    const ips = Array.from({ length: 10 }, (_, i) => `198.51.100.${i + 1}`);
    const statuses: number[] = [];
    const codes = new Set<string>();
    for (let batch = 0; batch < 30; batch++) {
      const answers = await Promise.all(ips.map((ip) => send(generateKeypair(), ip)));
      for (const res of answers) {
        statuses.push(res.status);
        codes.add(((await res.json()) as { error: { code: string } }).error.code);
      }
    }
    expect(statuses).toHaveLength(300);
    expect(statuses.every((s) => s === 402)).toBe(true);
    expect([...codes]).toEqual(["insufficient_credits"]);
    expect(await rowCounts()).toEqual(before);
    // What they did write is one window per client IP.
    expect(await stack.tdb.prisma.ipRateLimitWindow.count({ where: { bucket: "prepaid_inference" } })).toBe(ips.length);
  });

  it("writes no row for a key whose balance is zero on the network", async () => {
    const kp = generateKeypair();
    await stack.tdb.prisma.balance.create({
      data: { agentPubkey: kp.publicKeyBase58, network: stack.devnet.caip2, units: 0n },
    });
    const res = await send(kp, "198.51.100.50");
    expect(res.status).toBe(402);
    expect(await res.json()).toMatchObject({ error: { code: "insufficient_credits", balance_usdc: "0" } });
    expect(await stack.tdb.prisma.requestNonce.count({ where: { agentPubkey: kp.publicKeyBase58 } })).toBe(0);
    expect(await stack.tdb.prisma.rateLimitWindow.count({ where: { agentPubkey: kp.publicKeyBase58 } })).toBe(0);
  });
});

describe("POST /api/v1/inference per client IP", () => {
  it(`serves ${IP_LIMIT} requests a minute from one address, then answers 429 rate_limited with Retry-After, and not another address`, async () => {
    await inOneWindow();
    const kp = generateKeypair();
    await stack.credit(kp.publicKeyBase58, 1_000_000n);
    const statuses: number[] = [];
    for (let i = 0; i < IP_LIMIT; i++) statuses.push((await send(kp, "203.0.113.10")).status);
    expect(statuses.every((s) => s === 200)).toBe(true);
    const refused = await send(kp, "203.0.113.10");
    expect(refused.status).toBe(429);
    expect(await refused.json()).toMatchObject({ error: { code: "rate_limited" } });
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await send(kp, "203.0.113.11")).status).toBe(200);
  });

  it("counts keys without credit too: past the limit they are answered 429", async () => {
    await inOneWindow();
    const statuses: number[] = [];
    for (let i = 0; i < IP_LIMIT + 5; i++) statuses.push((await send(generateKeypair(), "203.0.113.20")).status);
    expect(statuses.slice(0, IP_LIMIT).every((s) => s === 402)).toBe(true);
    expect(statuses.slice(IP_LIMIT).every((s) => s === 429)).toBe(true);
  });
});

describe("POST /api/v1/inference replay protection for funded agents", () => {
  it("refuses a replayed nonce with 409 nonce_replay, sent again later or many times at once", async () => {
    const kp = generateKeypair();
    await stack.credit(kp.publicKeyBase58, 1_000_000n);
    const text = signedText();
    expect((await send(kp, "203.0.113.30", text)).status).toBe(200);
    const again = await send(kp, "203.0.113.30", text);
    expect(again.status).toBe(409);
    expect(await again.json()).toMatchObject({ error: { code: "nonce_replay" } });

    const twin = signedText();
    const answers = await Promise.all(Array.from({ length: 8 }, () => send(kp, "203.0.113.31", twin)));
    expect(answers.map((r) => r.status).sort()).toEqual([200, 409, 409, 409, 409, 409, 409, 409]);
  });

  it("refuses the duplicates of a call whose hold takes the agent's whole balance with 409, not by want of credit", async () => {
    const kp = generateKeypair();
    const first = await send(generateKeypair(), "203.0.113.40");
    expect(first.status).toBe(402);
    const { required_usdc } = ((await first.json()) as { error: { required_usdc: string } }).error;
    await stack.credit(kp.publicKeyBase58, parseUsdcToUnits(required_usdc)!);
    const twin = signedText();
    const answers = await Promise.all(Array.from({ length: 8 }, () => send(kp, "203.0.113.41", twin)));
    expect(answers.map((r) => r.status).sort()).toEqual([200, 409, 409, 409, 409, 409, 409, 409]);
  });
});

describe("POST /api/v1/inference purging", () => {
  it("purges spent rate-limit windows, spent IP windows and nonces too old to replay, at most once per interval", async () => {
    const db = stack.tdb.prisma;
    const longAgo = new Date(Date.now() - 60 * 60_000);
    await db.rateLimitWindow.create({ data: { agentPubkey: "stale-agent", windowStart: longAgo, count: 1 } });
    await db.ipRateLimitWindow.create({
      data: { bucket: "prepaid_inference", ipHash: "stale-ip", windowStart: longAgo, count: 1 },
    });
    await db.requestNonce.create({
      data: { agentPubkey: "stale-agent", nonce: "stale-nonce-0123456789", createdAt: longAgo },
    });
    (await stack.runtime()).state.lastPurgeAt = null;
    expect((await send(generateKeypair(), "203.0.113.50")).status).toBe(402);
    await expect
      .poll(
        async () =>
          (await db.rateLimitWindow.count({ where: { agentPubkey: "stale-agent" } })) +
          (await db.requestNonce.count({ where: { agentPubkey: "stale-agent" } })),
        // The purge runs in the background; at this file's low CPU priority on a busy machine it can wait seconds.
        { timeout: 30_000 },
      )
      .toBe(0);
    expect(await db.ipRateLimitWindow.count({ where: { ipHash: "stale-ip" } })).toBe(0);

    // Within the interval a second stale row waits for the next purge.
    await db.requestNonce.create({
      data: { agentPubkey: "stale-agent", nonce: "stale-nonce-abcdefghij", createdAt: longAgo },
    });
    const purgedAt = (await stack.runtime()).state.lastPurgeAt;
    expect((await send(generateKeypair(), "203.0.113.51")).status).toBe(402);
    // A purge is started (and its time noted) before the route answers, or not at all: none was.
    expect((await stack.runtime()).state.lastPurgeAt).toBe(purgedAt);
    expect(await db.requestNonce.count({ where: { agentPubkey: "stale-agent" } })).toBe(1);
  });
});
