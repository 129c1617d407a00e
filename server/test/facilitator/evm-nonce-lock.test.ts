// The EVM nonce lock on both databases the service runs on: holders of one key never overlap (PostgreSQL across
// connections, PGlite on its single connection) and other keys do not wait.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openPglite, openPostgres, type DbClient } from "../../db";
import { createPgNonceLock, type NonceLock } from "../../facilitator/evm-nonce-lock";
import { createTestDatabase, type TestDatabase } from "../support/test-db";
import { migratedPgliteDir } from "../support/pglite-template";

const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const close of closers.reverse()) await close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Runs `holders` concurrent holders of `key` on `locks` (round robin) and returns their [start, end] intervals. */
async function intervals(locks: NonceLock[], key: string, holders: number): Promise<[number, number][]> {
  return Promise.all(
    Array.from({ length: holders }, (_, i) =>
      locks[i % locks.length]!(key, async () => {
        const start = performance.now();
        await sleep(30);
        return [start, performance.now()] as [number, number];
      }),
    ),
  );
}

function overlaps(list: [number, number][]): number {
  const sorted = [...list].sort((a, b) => a[0] - b[0]);
  return sorted.filter((iv, i) => i > 0 && iv[0] < sorted[i - 1]![1]).length;
}

describe("createPgNonceLock()", () => {
  it("never lets two holders of one key overlap across separate PostgreSQL clients (as separate instances are)", async () => {
    const tdb: TestDatabase = await createTestDatabase(2);
    closers.push(() => tdb.drop());
    const other = await openPostgres(tdb.url, 2);
    closers.push(() => other.close());
    const a = createPgNonceLock(async () => tdb.prisma);
    const b = createPgNonceLock(async () => other.prisma);
    expect(overlaps(await intervals([a, b], "84532:0xabc", 8))).toBe(0);
    // Another key (another chain or address) is not held up by this one.
    const [x, y] = await Promise.all([intervals([a], "84532:0xabc", 1), intervals([b], "8453:0xabc", 1)]);
    expect(overlaps([...x, ...y])).toBe(1);
  });

  it("works on PGlite's single connection", async () => {
    const dir = await migratedPgliteDir(mkdtempSync(path.join(tmpdir(), "signet-nonce-")));
    const open = await openPglite(dir);
    closers.push(async () => {
      await open.close();
      rmSync(dir, { recursive: true, force: true });
    });
    const lock = createPgNonceLock(async () => open.prisma as DbClient);
    expect(overlaps(await intervals([lock], "84532:0xabc", 5))).toBe(0);
    // The database stays usable between and after holders.
    expect(await open.prisma.$queryRaw<{ one: number }[]>`SELECT 1 AS one`).toEqual([{ one: 1 }]);
  });
});
