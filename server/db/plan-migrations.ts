// Which migrations to apply, from those `_prisma_migrations` records as applied and those this release has: the pending
// ones, or a refusal. Pure: apply-migrations.ts reads both and applies the plan.

/** A migration by name (its folder under prisma/migrations) and the sha256 of its SQL. */
export interface MigrationRecord {
  name: string;
  checksum: string;
}

export type MigrationPlan<T extends MigrationRecord> =
  | { ok: true; pending: T[] }
  /** Applied migrations this release does not have: a newer release applied them. */
  | { ok: false; reason: "unknown_migrations"; names: string[] }
  /** Applied migrations whose file this release holds with other contents. */
  | { ok: false; reason: "changed_migrations"; names: string[] };

function assertRecords(records: unknown, what: string): asserts records is readonly MigrationRecord[] {
  if (
    !Array.isArray(records) ||
    records.some(
      (r: unknown) =>
        typeof r !== "object" ||
        r === null ||
        typeof (r as MigrationRecord).name !== "string" ||
        typeof (r as MigrationRecord).checksum !== "string",
    )
  ) {
    throw new TypeError(`planMigrations: ${what} must be a list of { name, checksum }`);
  }
}

/**
 * The plan for a database that recorded `applied` and a release that has `known` (in the order to apply them).
 * SECURITY: an applied migration this release does not know refuses before anything is applied: the database was
 * migrated by a newer release, and this one would serve a schema it was not written for. It is checked first: the
 * release that applied them is the one to run, whatever else differs.
 */
export function planMigrations<T extends MigrationRecord>(
  applied: readonly MigrationRecord[],
  known: readonly T[],
): MigrationPlan<T> {
  assertRecords(applied, "the applied migrations");
  assertRecords(known, "the known migrations");
  const ours = new Map(known.map((m) => [m.name, m.checksum]));
  const unknown = [...new Set(applied.filter((r) => !ours.has(r.name)).map((r) => r.name))].sort();
  if (unknown.length > 0) return { ok: false, reason: "unknown_migrations", names: unknown };
  const changed = [...new Set(applied.filter((r) => ours.get(r.name) !== r.checksum).map((r) => r.name))].sort();
  if (changed.length > 0) return { ok: false, reason: "changed_migrations", names: changed };
  const done = new Set(applied.map((r) => r.name));
  return { ok: true, pending: known.filter((m) => !done.has(m.name)) };
}
