import path from "node:path";
import { defineConfig } from "vitest/config";

// Integration tests talk to real parts: PostgreSQL (TEST_DATABASE_URL), localnet, local HTTP servers.
export default defineConfig({
  // Server modules `import "server-only"`, which throws outside the react-server condition that only Next's server
  // bundles set: tests load them as the server does.
  resolve: { alias: { "@": import.meta.dirname, "server-only": path.join(import.meta.dirname, "node_modules/server-only/empty.js") } },
  test: {
    include: ["server/test/**/*.test.ts"],
    environment: "node",
    testTimeout: 120_000,
    hookTimeout: 180_000,
    // One file at a time: suites share PostgreSQL and the 2-core machine.
    fileParallelism: false,
    reporters: ["default", "./server/test/support/summary-reporter.ts"],
    // Tests start their own chains: no default anvil RPC (dev points Base Sepolia at 127.0.0.1:8545).
    env: { NODE_ENV: "test", LOCALNET_EVM_RPC_PORT: "0" },
  },
});
