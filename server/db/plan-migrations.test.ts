import { describe, expect, it } from "vitest";
import { planMigrations, type MigrationRecord } from "./plan-migrations";

const m = (name: string, checksum = `sum-${name}`): MigrationRecord & { sql: string } => ({
  name,
  checksum,
  sql: `-- ${name}`,
});
const KNOWN = [m("20260101000000_a"), m("20260102000000_b"), m("20260103000000_c")];
const applied = (...names: string[]) => names.map((name) => ({ name, checksum: `sum-${name}` }));

describe("planMigrations()", () => {
  it("applies every migration to a database that recorded none, in this release's order", () => {
    expect(planMigrations([], KNOWN)).toEqual({ ok: true, pending: KNOWN });
  });

  it("applies only the migrations not yet recorded, and nothing to a database that is up to date", () => {
    expect(planMigrations(applied("20260101000000_a"), KNOWN)).toEqual({ ok: true, pending: KNOWN.slice(1) });
    expect(planMigrations(applied("20260101000000_a", "20260102000000_b", "20260103000000_c"), KNOWN)).toEqual({
      ok: true,
      pending: [],
    });
    // A migration recorded twice (one applier's record and another's) is applied once.
    expect(planMigrations(applied("20260101000000_a", "20260101000000_a"), KNOWN)).toEqual({
      ok: true,
      pending: KNOWN.slice(1),
    });
  });

  it("refuses a database that recorded a migration this release does not have: a newer release migrated it", () => {
    expect(
      planMigrations(applied("20260101000000_a", "20260102000000_b", "20260103000000_c", "20260104000000_d"), KNOWN),
    ).toEqual({ ok: false, reason: "unknown_migrations", names: ["20260104000000_d"] });
    // Every one is named, once, whatever this release has still to apply.
    expect(
      planMigrations(applied("20260105000000_e", "20260101000000_a", "20260104000000_d", "20260104000000_d"), KNOWN),
    ).toEqual({
      ok: false,
      reason: "unknown_migrations",
      names: ["20260104000000_d", "20260105000000_e"],
    });
    // Before any of this release's: a migration of another line of releases.
    expect(planMigrations(applied("20250101000000_other"), KNOWN)).toEqual({
      ok: false,
      reason: "unknown_migrations",
      names: ["20250101000000_other"],
    });
  });

  it("refuses a migration whose file changed after it was applied", () => {
    expect(
      planMigrations([{ name: "20260102000000_b", checksum: "another" }, ...applied("20260101000000_a")], KNOWN),
    ).toEqual({ ok: false, reason: "changed_migrations", names: ["20260102000000_b"] });
  });

  it("names the unknown migrations first when a migration also changed: the release that applied them is the one to run", () => {
    expect(
      planMigrations([{ name: "20260101000000_a", checksum: "another" }, ...applied("20260104000000_d")], KNOWN),
    ).toEqual({ ok: false, reason: "unknown_migrations", names: ["20260104000000_d"] });
  });

  it("plans nothing for a release without migrations on an empty database, and refuses it a migrated one", () => {
    expect(planMigrations([], [])).toEqual({ ok: true, pending: [] });
    expect(planMigrations(applied("20260101000000_a"), [])).toEqual({
      ok: false,
      reason: "unknown_migrations",
      names: ["20260101000000_a"],
    });
  });

  it("rejects malformed input", () => {
    expect(() => planMigrations(null as never, KNOWN)).toThrow(TypeError);
    expect(() => planMigrations([{ name: "x" }] as never, KNOWN)).toThrow(
      /the applied migrations must be a list of \{ name, checksum \}/,
    );
    expect(() => planMigrations([], [{ name: 1, checksum: "c" }] as never)).toThrow(/the known migrations/);
    expect(() => planMigrations([], "20260101000000_a" as never)).toThrow(TypeError);
  });
});
