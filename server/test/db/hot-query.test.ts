import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Prisma } from "../../db";
import { hotExecute, hotQuery } from "../../db/hot-query";
import { createTestDatabase, type TestDatabase } from "../support/test-db";

let tdb: TestDatabase;
beforeAll(async () => {
  // One connection: every statement below meets the same server session, so what it prepared can be counted.
  tdb = await createTestDatabase(1);
});
afterAll(async () => {
  await tdb?.drop();
});

const probe = (units: bigint, key: string) => Prisma.sql`
  SELECT ${units}::bigint + 1 AS units, count(*) AS n, now() AS at, json_build_object('k', ${key}::text, 'u', ${units}::bigint::text) AS doc,
         gen_random_uuid() IS NOT NULL AS ok, ${key}::text AS key, 7::int AS small, NULL::bigint AS nothing
  FROM (VALUES (1), (2)) AS v(x)`;

type ProbeRow = {
  units: bigint;
  n: bigint;
  at: Date;
  doc: { k: string; u: string };
  ok: boolean;
  key: string;
  small: number;
  nothing: bigint | null;
};

describe("hotQuery() on PostgreSQL", () => {
  it("reads rows as Prisma's $queryRaw does: int8 as bigint, timestamps as Date, json parsed", async () => {
    const [hot] = await hotQuery<ProbeRow>(tdb.prisma, probe(41n, "a'b"));
    const [viaPrisma] = await tdb.prisma.$queryRaw<ProbeRow[]>(probe(41n, "a'b"));
    expect(hot).toMatchObject({
      units: 42n,
      n: 2n,
      doc: { k: "a'b", u: "41" },
      ok: true,
      key: "a'b",
      small: 7,
      nothing: null,
    });
    expect(hot!.at).toBeInstanceOf(Date);
    const { at: _a, ...hotRest } = hot!;
    const { at: _b, ...prismaRest } = viaPrisma!;
    expect(hotRest).toEqual(prismaRest);
  });

  it("runs one statement text as one prepared statement, with new values each time", async () => {
    for (const units of [1n, 2n, 3n, 9_007_199_254_740_993n]) {
      const [row] = await hotQuery<ProbeRow>(tdb.prisma, probe(units, `k${units}`));
      expect(row!.units).toBe(units + 1n);
    }
    const [prepared] = await hotQuery<{ n: bigint }>(
      tdb.prisma,
      Prisma.sql`SELECT count(*) AS n FROM pg_prepared_statements WHERE name LIKE 'signet_%' AND statement LIKE '%' || 'AS no' || 'thing%'`,
    );
    expect(prepared!.n).toBe(1n);
  });

  it("counts the rows a statement changed, as $executeRaw does", async () => {
    await hotExecute(tdb.prisma, Prisma.sql`CREATE TABLE IF NOT EXISTS hot_probe_rows (id int)`);
    expect(
      await hotExecute(tdb.prisma, Prisma.sql`INSERT INTO hot_probe_rows SELECT generate_series(1, ${3}::int)`),
    ).toBe(3);
    expect(await hotExecute(tdb.prisma, Prisma.sql`DELETE FROM hot_probe_rows WHERE id > ${1}::int`)).toBe(2);
  });

  it("surfaces a unique violation with PostgreSQL's code, which the ledger's check reads", async () => {
    await hotExecute(tdb.prisma, Prisma.sql`CREATE TABLE IF NOT EXISTS hot_unique (id int PRIMARY KEY)`);
    await hotExecute(tdb.prisma, Prisma.sql`INSERT INTO hot_unique VALUES (${1}::int)`);
    const { isUniqueViolation } = await import("../../db");
    const err = await hotExecute(tdb.prisma, Prisma.sql`INSERT INTO hot_unique VALUES (${1}::int)`).catch(
      (e: unknown) => e,
    );
    expect(isUniqueViolation(err)).toBe(true);
  });

  it("runs a transaction's statements through the transaction (Prisma), never around it", async () => {
    await hotExecute(tdb.prisma, Prisma.sql`CREATE TABLE IF NOT EXISTS hot_tx (id int)`);
    await expect(
      tdb.prisma.$transaction(async (tx) => {
        await hotExecute(tx, Prisma.sql`INSERT INTO hot_tx VALUES (${5}::int)`);
        throw new Error("roll back");
      }),
    ).rejects.toThrow("roll back");
    const [row] = await hotQuery<{ n: bigint }>(tdb.prisma, Prisma.sql`SELECT count(*) AS n FROM hot_tx`);
    expect(row!.n).toBe(0n);
  });
});
