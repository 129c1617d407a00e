// An embedded-database folder that starts migrated, for tests that need PGlite but not its first start: a copy of one
// folder openPglite initialised and migrated. PGlite's initdb costs seconds of WASM per folder; the copy costs a tenth
// of one. The template is made once per set of migrations and PGlite release, in the system's temporary folder, so
// the files of a run share it. The first start itself stays tested where it matters (db/migrations.test.ts).
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { openPglite } from "../../db";
import { migrationsChecksum } from "./migrations-checksum";
import { REPO_ROOT } from "../verify/vectors";

/** The template's folder: one per set of migrations and PGlite release. */
function templateDir(): string {
  const pgliteRelease = readFileSync(path.join(REPO_ROOT, "node_modules/@electric-sql/pglite/package.json"), "utf8");
  return path.join(tmpdir(), `signet-migrated-pglite-dir-${migrationsChecksum(pgliteRelease)}`);
}

/** Makes the template: initialised and migrated aside, then renamed into place, so no caller copies half of one. */
async function makeTemplate(template: string): Promise<void> {
  const partial = mkdtempSync(`${template}.partial-`);
  const open = await openPglite(partial);
  await open.close();
  try {
    renameSync(partial, template);
  } catch (err) {
    // Another file made it first: theirs serves.
    rmSync(partial, { recursive: true, force: true });
    if (!existsSync(path.join(template, "PG_VERSION"))) throw err;
  }
}

/** Fills `dir` (made if missing; it must hold no database) with a migrated embedded database, and returns it. */
export async function migratedPgliteDir(dir: string): Promise<string> {
  const template = templateDir();
  if (!existsSync(path.join(template, "PG_VERSION"))) await makeTemplate(template);
  mkdirSync(dir, { recursive: true });
  cpSync(template, dir, { recursive: true, errorOnExist: true, force: false });
  return dir;
}
