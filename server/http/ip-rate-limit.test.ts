import { describe, expect, it } from "vitest";
import { generateKeypair } from "../keys/parse-secret-key";
import { ipCountShard, ipCountShards, ipShardKey, MAX_IP_COUNT_SHARDS } from "./ip-rate-limit";

describe("ipCountShards()", () => {
  it("spreads a count over rows only as far as keeps a window under 1% past its limit, and one row below 200", () => {
    for (let limit = 1; limit <= 1_000_000; limit += limit < 10_000 ? 1 : 997) {
      const shards = ipCountShards(limit);
      expect(Number.isInteger(shards)).toBe(true);
      expect(shards).toBeGreaterThanOrEqual(1);
      expect(shards).toBeLessThanOrEqual(MAX_IP_COUNT_SHARDS);
      // Each shard but the counting one hides at most one request: the most a window admits past its limit.
      expect(shards - 1).toBeLessThan(Math.max(1, limit / 100));
      if (limit < 200) expect(shards).toBe(1);
    }
    expect(ipCountShards(1_200)).toBe(12);
    expect(ipCountShards(1_000_000)).toBe(MAX_IP_COUNT_SHARDS);
  });
});

describe("ipCountShard()", () => {
  it("puts an agent on the same shard every time, within range, and agents across all the shards", () => {
    const keys = Array.from({ length: 2_000 }, () => generateKeypair().publicKeyBase58);
    for (const shards of [1, 2, 7, 12, MAX_IP_COUNT_SHARDS]) {
      const seen = new Map<number, number>();
      for (const key of keys) {
        const shard = ipCountShard(key, shards);
        expect(shard).toBe(ipCountShard(key, shards));
        expect(Number.isInteger(shard) && shard >= 0 && shard < shards).toBe(true);
        seen.set(shard, (seen.get(shard) ?? 0) + 1);
      }
      expect(seen.size).toBe(shards);
      // No shard takes more than twice its share of 2,000 random keys.
      expect(Math.max(...seen.values())).toBeLessThan((2 * keys.length) / shards);
    }
  });
});

describe("ipShardKey()", () => {
  it("keys shard 0 by the address's hash alone, as a one-row count is, and each other shard apart", () => {
    const hash = "ab".repeat(32);
    expect(ipShardKey(hash, 0)).toBe(hash);
    const keys = Array.from({ length: MAX_IP_COUNT_SHARDS }, (_, k) => ipShardKey(hash, k));
    expect(new Set(keys).size).toBe(MAX_IP_COUNT_SHARDS);
    expect(keys.slice(1).every((k) => k.startsWith(`${hash}.`))).toBe(true);
  });
});
