// Runs a block with environment overrides and fresh config/keys, restoring everything after.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { resetConfigForTests } from "../../env";
import { resetServiceKeysForTests } from "../../keys/service-keys";

/** A fresh data dir for dev keys and the embedded database. */
export function tempDataDir(prefix = "signet-test-"): string {
  return mkdtempSync(path.join(tmpdir(), prefix));
}

/** Applies `vars` (undefined deletes) and re-reads config and keys; returns a function that restores the old env. */
export function setEnv(vars: Record<string, string | undefined>): () => void {
  const previous: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(vars)) {
    previous[k] = process.env[k];
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  resetConfigForTests();
  resetServiceKeysForTests();
  return () => {
    for (const [k, v] of Object.entries(previous)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    resetConfigForTests();
    resetServiceKeysForTests();
  };
}

/** Runs `fn` with more env overrides, restoring the previous env (and reloading config and keys) afterwards. */
export async function withEnv<T>(vars: Record<string, string | undefined>, fn: () => Promise<T>): Promise<T> {
  const undo = setEnv(vars);
  try {
    return await fn();
  } finally {
    undo();
  }
}
