// The hosted verifier's test env, shared by its suites: each test gets its own data dir (fresh dev keys), private
// networks allowed (the test servers are on loopback), and the service's own chain RPCs pointing at `deadRpcUrl()`,
// so nothing may silently fall back to them.
import { rmSync } from "node:fs";
import { afterAll, afterEach, beforeEach } from "vitest";
import { setEnv, tempDataDir } from "../support/env";

/** Registers the hooks that set and restore the env around every test of the calling file. */
export function useHostedVerifierEnv(prefix: string, deadRpcUrl: () => string): void {
  const dataDirs: string[] = [];
  let restore: () => void = () => undefined;
  beforeEach(() => {
    const dataDir = tempDataDir(prefix);
    dataDirs.push(dataDir);
    restore = setEnv({
      NODE_ENV: "test",
      SIGNET_DATA_DIR: dataDir,
      SERVICE_OPERATOR_SECRET_KEY: undefined,
      VERIFIER_SECRET_KEY: undefined,
      VERIFIER_ALLOW_PRIVATE_NETWORKS: "true",
      SOLANA_DEVNET_RPC_URL: deadRpcUrl(),
      SOLANA_MAINNET_RPC_URL: deadRpcUrl(),
    });
  });
  afterEach(() => restore());
  afterAll(() => {
    for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
  });
}
