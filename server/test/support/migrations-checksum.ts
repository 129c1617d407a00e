// What a migrated database kept between tests is keyed on, so a change to any migration makes a new one.
import { createHash } from "node:crypto";
import { readMigrations } from "../../db/apply-migrations";

/** A short digest of this release's migrations, their names and checksums; `extra` goes into it first. */
export function migrationsChecksum(extra = ""): string {
  return createHash("sha256")
    .update(extra)
    .update(
      readMigrations()
        .map((m) => `${m.name}:${m.checksum}`)
        .join("\n"),
    )
    .digest("hex")
    .slice(0, 16);
}
