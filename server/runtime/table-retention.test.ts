import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { formatDuration, retentionTable, TABLE_RETENTION } from "./table-retention";

const schema = readFileSync(path.join(import.meta.dirname, "../../prisma/schema.prisma"), "utf8");
const tables = [...schema.matchAll(/@@map\("([a-z_]+)"\)/g)].map((m) => m[1]!);

describe("TABLE_RETENTION", () => {
  it("states how long each table of the schema keeps its rows, and names no table the schema lacks", () => {
    expect(tables.length).toBeGreaterThan(20);
    expect(Object.keys(TABLE_RETENTION).sort()).toEqual([...tables].sort());
  });

  it("renders one row per table for docs/deploy.md", () => {
    const rows = retentionTable().split("\n").slice(2);
    expect(rows).toHaveLength(tables.length);
    expect(rows.find((r) => r.startsWith("| `request_nonces` |"))).toBe(
      "| `request_nonces` | 2 min from the request | a signed request's nonce can only be replayed within its window; deleted by the background purge |",
    );
  });
});

describe("formatDuration()", () => {
  it("names the largest whole unit", () => {
    expect([
      formatDuration(90 * 86_400_000),
      formatDuration(86_400_000),
      formatDuration(3_600_000),
      formatDuration(120_000),
      formatDuration(1_500),
      formatDuration(61_000),
    ]).toEqual(["90 days", "1 day", "1 h", "2 min", "1500 ms", "61 s"]);
  });
});
