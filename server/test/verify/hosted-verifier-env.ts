// The hosted verifier's test env, shared by its suites: each test gets its own data dir (fresh dev keys), private
// networks allowed (the test servers are on loopback), and the service's own chain RPCs pointing at `deadRpcUrl()`,
// so nothing may silently fall back to them. The runtime a test's request builds opens one PostgreSQL database the
// file shares (the verifier writes nothing to it), not a fresh embedded one per test.
import { rmSync } from "node:fs";
import { afterAll, afterEach, beforeAll, beforeEach } from "vitest";
import { setEnv, tempDataDir } from "../support/env";
import { createTestDatabase, type TestDatabase } from "../support/test-db";

/** Registers the hooks that set and restore the env around every test of the calling file. */
export function useHostedVerifierEnv(prefix: string, deadRpcUrl: () => string): void {
  const dataDirs: string[] = [];
  let tdb: TestDatabase | null = null;
  let restore: () => Promise<void> = async () => undefined;
  beforeAll(async () => {
    tdb = await createTestDatabase(4);
  });
  beforeEach(() => {
    const dataDir = tempDataDir(prefix);
    dataDirs.push(dataDir);
    restore = setEnv({
      NODE_ENV: "test",
      SIGNET_DATA_DIR: dataDir,
      DATABASE_URL: tdb!.url,
      SERVICE_OPERATOR_SECRET_KEY: undefined,
      VERIFIER_SECRET_KEY: undefined,
      VERIFIER_ALLOW_PRIVATE_NETWORKS: "true",
      RPC_URL_SOLANA_DEVNET: deadRpcUrl(),
      RPC_URL_SOLANA_MAINNET: deadRpcUrl(),
    });
  });
  afterEach(() => restore());
  afterAll(async () => {
    for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
    await tdb?.drop();
  });
}
