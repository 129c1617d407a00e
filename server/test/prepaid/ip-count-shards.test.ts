// One address's count of signed prepaid requests, spread over rows (its shards) so that agents behind it do not queue
// on one row lock, on PostgreSQL through the route handler: every request is counted once, the limit holds across the
// shards, a race at its edge admits at most one fewer than the shards past it, and a request waits for a row only
// when every shard's is held.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POST as inferenceRoute } from "@/app/api/v1/inference/route";
import { newNonce, signRequestHeaders } from "../../agent/sign-request";
import { rateLimitIpHash } from "../../http/client-ip";
import { countShardedIpRequest, ipCountShard, ipCountShards, ipShardKey } from "../../http/ip-rate-limit";
import { PEER_ADDRESS_HEADER } from "../../http/peer-address";
import { generateKeypair, type Ed25519Keypair } from "../../keys/parse-secret-key";
import { inOneWindow } from "../support/minute-window";
import { startPaidStack, type PaidStack } from "../support/paid-stack";

const IP_LIMIT = 400;
const SHARDS = ipCountShards(IP_LIMIT);
let stack: PaidStack;
beforeAll(async () => {
  stack = await startPaidStack({
    timing: "instant",
    env: { PREPAID_RATE_LIMIT_PER_MINUTE: "1000", PREPAID_IP_RATE_LIMIT_PER_MINUTE: String(IP_LIMIT) },
  });
});
afterAll(async () => stack?.close());

const URL = "http://signet.test/api/v1/inference";

function send(kp: Ed25519Keypair, ip: string): Promise<Response> {
  const text = JSON.stringify({ model: "local/echo-1", prompt: "hello", nonce: newNonce(), timestamp: Date.now() });
  const headers = { ...signRequestHeaders(kp, "POST", URL, text), [PEER_ADDRESS_HEADER]: ip };
  return inferenceRoute(new Request(URL, { method: "POST", headers, body: text }), {});
}

/** `n` requests from `ip`, each by a fresh key (no credit: answered 402 while the address is under its limit). */
async function freshKeys(ip: string, n: number): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < n; i++) statuses.push((await send(generateKeypair(), ip)).status);
  return statuses;
}

async function ipHashOf(ip: string): Promise<string> {
  const runtime = await stack.runtime();
  return rateLimitIpHash(new Headers({ [PEER_ADDRESS_HEADER]: ip }), await runtime.settings.read(), runtime.config);
}

/** The address's rows in the prepaid bucket: shard key → count. */
async function shardRows(ip: string): Promise<Map<string, number>> {
  const hash = await ipHashOf(ip);
  const keys = Array.from({ length: SHARDS }, (_, k) => ipShardKey(hash, k));
  const rows = await stack.tdb.prisma.ipRateLimitWindow.findMany({
    where: { bucket: "prepaid_inference", ipHash: { in: keys } },
  });
  return new Map(rows.map((r) => [r.ipHash, r.count]));
}

const sum = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);

/** A fresh key whose requests are counted on `shard`. */
function keyOnShard(shard: number): Ed25519Keypair {
  for (;;) {
    const kp = generateKeypair();
    if (ipCountShard(kp.publicKeyBase58, SHARDS) === shard) return kp;
  }
}

describe("one address's count over its shards", () => {
  it("counts each request once, on whichever shard took it, and refuses past the limit over all of them", async () => {
    expect(SHARDS).toBeGreaterThan(1);
    await inOneWindow();
    const ip = "203.0.113.60";
    // Twenty at a time up to the limit: every one is under it whichever shard counts it.
    for (let batch = 0; batch < IP_LIMIT / 20; batch++) {
      const answers = await Promise.all(Array.from({ length: 20 }, () => send(generateKeypair(), ip)));
      expect(answers.map((r) => r.status)).toEqual(Array<number>(20).fill(402));
    }
    expect(await freshKeys(ip, 5)).toEqual([429, 429, 429, 429, 429]);
    expect(sum(await shardRows(ip))).toBe(IP_LIMIT + 5);
  });

  it(`admits at most ${SHARDS - 1} past the limit when agents race at its edge`, async () => {
    await inOneWindow();
    const ip = "203.0.113.61";
    const before = 10;
    expect((await freshKeys(ip, IP_LIMIT - before)).every((s) => s === 402)).toBe(true);
    const racers = 40;
    const statuses = (await Promise.all(Array.from({ length: racers }, () => send(generateKeypair(), ip)))).map(
      (r) => r.status,
    );
    const admitted = statuses.filter((s) => s === 402).length;
    expect(statuses.filter((s) => s !== 402).every((s) => s === 429)).toBe(true);
    // Every request counted, refused or not; each shard but the counting one can hide one uncommitted request.
    expect(sum(await shardRows(ip))).toBe(IP_LIMIT - before + racers);
    expect(admitted).toBeGreaterThanOrEqual(before);
    expect(admitted).toBeLessThanOrEqual(before + SHARDS - 1);
  });

  it("counts on a free shard while another holds the agent's, and waits only when every row is held", async () => {
    await inOneWindow();
    const ip = "203.0.113.62";
    const hash = await ipHashOf(ip);
    const [holder, other] = [
      new pg.Client({ connectionString: stack.tdb.url }),
      new pg.Client({ connectionString: stack.tdb.url }),
    ];
    await holder.connect();
    await other.connect();
    const lockWaits = async () =>
      (
        await holder.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'",
        )
      ).rows[0]!.n;
    try {
      // An uncommitted count on shard 0, as a slow statement of another instance would hold it.
      const held = countShardedIpRequest(
        "prepaid_inference",
        hash,
        keyOnShard(0).publicKeyBase58,
        IP_LIMIT,
        Date.now(),
      );
      await holder.query("BEGIN");
      await holder.query(held.text, held.values as unknown[]);

      // Shard 1's agent makes its own row; shard 0's agent finds its row held and counts on shard 1's instead.
      expect((await send(keyOnShard(1), ip)).status).toBe(402);
      expect((await send(keyOnShard(0), ip)).status).toBe(402);
      expect(await lockWaits()).toBe(0);

      // With shard 1's row held too, the next request waits for its own shard's.
      await other.query("BEGIN");
      await other.query("SELECT 1 FROM ip_rate_limit_windows WHERE ip_hash = $1 FOR UPDATE", [ipShardKey(hash, 1)]);
      let answered = false;
      const waiting = send(keyOnShard(0), ip).then((r) => {
        answered = true;
        return r.status;
      });
      // The request reaches its lock wait in its own time: seconds, at this file's low CPU priority on a busy machine.
      await expect.poll(lockWaits, { timeout: 30_000 }).toBe(1);
      expect(answered).toBe(false);
      await other.query("COMMIT");
      await holder.query("COMMIT");
      expect(await waiting).toBe(402);
      expect(await shardRows(ip)).toEqual(
        new Map([
          [hash, 2],
          [ipShardKey(hash, 1), 2],
        ]),
      );
    } finally {
      await holder.end();
      await other.end();
    }
  });
});
