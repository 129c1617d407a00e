// Requests that need no login must not grow tables without bound: payment failures are counted per hour, not stored
// per request; expired challenges, spent rate-limit windows and old failure counts are purged; challenge issuance is
// rate limited per client IP.
import { testConfig } from "../support/env";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET as grantChallengeRoute } from "@/app/api/v1/grants/challenge/route";
import { GET as operatorChallengeRoute } from "@/app/api/operator/challenge/route";
import { readFigures } from "../../dashboard/read-figures";
import { PEER_ADDRESS_HEADER } from "../../http/peer-address";
import { purgeExpiredRows } from "../../runtime/purge-expired-rows";
import { generateKeypair } from "../../keys/parse-secret-key";
import { readSettings } from "../../settings/read-settings";
import { startPaidStack, type PaidStack } from "../support/paid-stack";
import { createLogger } from "../../log";

let stack: PaidStack;
beforeAll(async () => {
  stack = await startPaidStack({ env: { X402_FLAT_PRICE_USDC: "0.001" } });
});
afterAll(async () => stack?.close());

const body = { model: "local/echo-1", messages: [{ role: "user", content: "hi" }] };
const minutesAgo = (m: number) => new Date(Date.now() - m * 60_000);

describe("payment failure bookkeeping", () => {
  it("counts many fake payment headers in a bounded number of rows, and the dashboard still shows them all", async () => {
    const fakes = 40;
    for (let i = 0; i < fakes; i++) {
      const res = await stack.chat({ body, headers: { "X-Payment": `not-a-payment-${i}` } });
      expect(res.status).toBe(402);
    }
    const [counted] = await stack.tdb.prisma.$queryRaw<
      { rows: bigint }[]
    >`SELECT count(*) AS rows FROM payment_failure_counts`;
    // One (network, stage, reason, hour) bucket; two if the run crossed an hour boundary.
    expect(Number(counted!.rows)).toBeLessThanOrEqual(2);
    const figures = await readFigures(
      stack.tdb.prisma,
      await readSettings(stack.tdb.prisma, testConfig(), createLogger("silent")),
      Date.now(),
    );
    const failures = figures.networks.flatMap((n) => n.failures).filter((f) => f.reason === "payment_invalid");
    expect(failures.reduce((sum, f) => sum + f.count, 0)).toBe(fakes);
  });
});

describe("purgeExpiredRows()", () => {
  it("deletes expired challenges, spent rate-limit windows and old failure counts, and keeps live ones", async () => {
    const db = stack.tdb.prisma;
    const agent = generateKeypair().publicKeyBase58;
    await db.grantChallenge.createMany({
      data: [
        { nonce: "g-old", agentPubkey: agent, message: "m", expiresAt: minutesAgo(24 * 60) },
        { nonce: "g-just-expired", agentPubkey: agent, message: "m", expiresAt: minutesAgo(1) },
        { nonce: "g-live", agentPubkey: agent, message: "m", expiresAt: minutesAgo(-5) },
      ],
    });
    await db.operatorChallenge.createMany({
      data: [
        { nonce: "o-old", message: "m", expiresAt: minutesAgo(24 * 60), usedAt: minutesAgo(24 * 60) },
        { nonce: "o-live", message: "m", expiresAt: minutesAgo(-5) },
      ],
    });
    await db.rateLimitWindow.createMany({
      data: [
        { agentPubkey: "old-agent", windowStart: minutesAgo(30), count: 5 },
        { agentPubkey: "live-agent", windowStart: minutesAgo(0), count: 5 },
      ],
    });
    await db.ipRateLimitWindow.createMany({
      data: [
        { bucket: "grant_challenge", ipHash: "old", windowStart: minutesAgo(30), count: 5 },
        { bucket: "grant_challenge", ipHash: "live", windowStart: minutesAgo(0), count: 5 },
      ],
    });
    await db.paymentFailureCount.createMany({
      data: [
        { network: "n", stage: "verify", reason: "old", hour: minutesAgo(200 * 24 * 60), count: 3 },
        { network: "n", stage: "verify", reason: "recent", hour: minutesAgo(60), count: 3 },
      ],
    });

    // Two instances purging at once: one does the work, neither fails.
    const results = await Promise.all([purgeExpiredRows(db, Date.now()), purgeExpiredRows(db, Date.now())]);
    expect(results.filter((r) => r !== null).length).toBeGreaterThanOrEqual(1);

    expect(
      (await db.grantChallenge.findMany({ where: { agentPubkey: agent }, orderBy: { nonce: "asc" } })).map(
        (c) => c.nonce,
      ),
    ).toEqual(["g-just-expired", "g-live"]);
    expect(
      (await db.operatorChallenge.findMany({ where: { nonce: { in: ["o-old", "o-live"] } } })).map((c) => c.nonce),
    ).toEqual(["o-live"]);
    expect(
      (await db.rateLimitWindow.findMany({ where: { agentPubkey: { in: ["old-agent", "live-agent"] } } })).map(
        (w) => w.agentPubkey,
      ),
    ).toEqual(["live-agent"]);
    expect(
      (await db.ipRateLimitWindow.findMany({ where: { ipHash: { in: ["old", "live"] } } })).map((w) => w.ipHash),
    ).toEqual(["live"]);
    expect((await db.paymentFailureCount.findMany({ where: { network: "n" } })).map((f) => f.reason)).toEqual([
      "recent",
    ]);
  });

  it("runs from challenge issuance, at most once per interval per process", async () => {
    const db = stack.tdb.prisma;
    const agent = generateKeypair().publicKeyBase58;
    await db.grantChallenge.create({
      data: { nonce: "stale-1", agentPubkey: agent, message: "m", expiresAt: minutesAgo(24 * 60) },
    });
    (await stack.runtime()).state.lastPurgeAt = null;
    const res = await grantChallengeRoute(
      new Request(`http://signet.test/api/v1/grants/challenge?agent_pubkey=${agent}`, {
        headers: { [PEER_ADDRESS_HEADER]: "192.0.2.200" },
      }),
      {},
    );
    expect(res.status).toBe(200);
    // The purge runs in the background; at this file's low CPU priority on a busy machine it can wait seconds to run.
    await expect.poll(() => db.grantChallenge.count({ where: { nonce: "stale-1" } }), { timeout: 30_000 }).toBe(0);
    // Within the interval a second stale row waits for the next purge.
    await db.grantChallenge.create({
      data: { nonce: "stale-2", agentPubkey: agent, message: "m", expiresAt: minutesAgo(24 * 60) },
    });
    const purgedAt = (await stack.runtime()).state.lastPurgeAt;
    await grantChallengeRoute(
      new Request(`http://signet.test/api/v1/grants/challenge?agent_pubkey=${agent}`, {
        headers: { [PEER_ADDRESS_HEADER]: "192.0.2.201" },
      }),
      {},
    );
    // A purge is started (and its time noted) before the route answers, or not at all: none was.
    expect((await stack.runtime()).state.lastPurgeAt).toBe(purgedAt);
    expect(await db.grantChallenge.count({ where: { nonce: "stale-2" } })).toBe(1);
  });
});

describe("challenge issuance per IP", () => {
  it("rate limits grant challenges per client IP with 429 rate_limited and Retry-After, and not other IPs", async () => {
    const agent = generateKeypair().publicKeyBase58;
    const ask = (ip: string) =>
      grantChallengeRoute(
        new Request(`http://signet.test/api/v1/grants/challenge?agent_pubkey=${agent}`, {
          headers: { [PEER_ADDRESS_HEADER]: ip },
        }),
        {},
      );
    const statuses: number[] = [];
    for (let i = 0; i < 25; i++) statuses.push((await ask("198.51.100.23")).status);
    expect(statuses.filter((s) => s === 200).length).toBe(10);
    expect(statuses.slice(10).every((s) => s === 429)).toBe(true);
    const refused = await ask("198.51.100.23");
    expect(await refused.json()).toMatchObject({ error: { code: "rate_limited" } });
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await ask("198.51.100.24")).status).toBe(200);
    expect(await stack.tdb.prisma.grantChallenge.count({ where: { agentPubkey: agent } })).toBe(11);
  });

  it("rate limits operator sign-in challenges per client IP", async () => {
    const ask = (ip: string) =>
      operatorChallengeRoute(
        new Request("http://signet.test/api/operator/challenge", { headers: { [PEER_ADDRESS_HEADER]: ip } }),
        {},
      );
    const statuses: number[] = [];
    for (let i = 0; i < 15; i++) statuses.push((await ask("198.51.100.77")).status);
    expect(statuses.filter((s) => s === 200).length).toBe(10);
    expect(statuses.filter((s) => s === 429).length).toBe(5);
    expect((await ask("198.51.100.78")).status).toBe(200);
  });
});
