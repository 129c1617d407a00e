import path from "node:path";
import { defineConfig } from "vitest/config";

// Unit tests sit beside their modules (`*.test.ts`); integration tests (DB, chain, HTTP) live in server/test/.
export default defineConfig({
  // Server modules `import "server-only"`, which throws outside the react-server condition that only Next's server
  // bundles set: tests load them as the server does.
  resolve: { alias: { "@": import.meta.dirname, "server-only": path.join(import.meta.dirname, "node_modules/server-only/empty.js") } },
  test: {
    include: ["server/**/*.test.ts", "app/**/*.test.ts", "bin/**/*.test.ts", "devtools/**/*.test.ts", "*.test.ts"],
    exclude: ["server/test/**", "node_modules/**"],
    environment: "node",
    // `npm test` runs this stage at a low CPU priority beside the build and the browser suite, where a CPU-bound
    // property test takes three or four times as long as alone.
    testTimeout: 60_000,
    reporters: ["default", "./server/test/support/summary-reporter.ts"],
    // Tests start their own chains: no default anvil RPC (dev points Base Sepolia at 127.0.0.1:8545).
    env: { NODE_ENV: "test", LOCALNET_EVM_RPC_PORT: "0" },
  },
});
