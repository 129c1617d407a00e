import path from "node:path";
import { defineConfig } from "vitest/config";
import { filesReplacingModules } from "./server/test/support/replaces-modules";

const INCLUDE = ["server/**/*.test.ts", "app/**/*.test.ts", "bin/**/*.test.ts", "devtools/**/*.test.ts", "*.test.ts"];
const EXCLUDE = ["server/test/**", "node_modules/**"];
/**
 * Unit files that replace a module run isolated. Every other file shares its worker's module graph, so the modules
 * they have in common load once per worker, not once per file.
 */
const ISOLATED_FILES = filesReplacingModules(import.meta.dirname, ["server", "app", "bin", "devtools"]).filter(
  (file) => !file.startsWith("server/test/"),
);

// Unit tests sit beside their modules (`*.test.ts`); integration tests (DB, chain, HTTP) live in server/test/.
export default defineConfig({
  // Server modules `import "server-only"`, which throws outside the react-server condition that only Next's server
  // bundles set: tests load them as the server does.
  resolve: {
    alias: {
      "@": import.meta.dirname,
      "server-only": path.join(import.meta.dirname, "node_modules/server-only/empty.js"),
    },
  },
  test: {
    environment: "node",
    // `npm test` runs this stage at a low CPU priority beside the build and the browser suite, where a CPU-bound
    // property test takes three or four times as long as alone.
    testTimeout: 60_000,
    reporters: ["default", "./server/test/support/summary-reporter.ts"],
    // Each file's CPU time, which the summary reporter lists beside its wall time.
    setupFiles: ["./server/test/support/file-cpu.ts"],
    // Tests start their own chains: no default anvil RPC (dev points Base Sepolia, Amoy and Fuji at 127.0.0.1:8545–8547).
    env: {
      NODE_ENV: "test",
      LOCALNET_EVM_RPC_PORT: "0",
      LOCALNET_POLYGON_AMOY_RPC_PORT: "0",
      LOCALNET_AVALANCHE_FUJI_RPC_PORT: "0",
    },
    projects: [
      {
        extends: true,
        test: { name: "unit", include: INCLUDE, exclude: [...EXCLUDE, ...ISOLATED_FILES], isolate: false },
      },
      // Only when there is one: a project with no include would fall back to vitest's default pattern.
      ...(ISOLATED_FILES.length > 0
        ? [{ extends: true as const, test: { name: "unit (isolated)", include: ISOLATED_FILES, exclude: EXCLUDE } }]
        : []),
    ],
  },
});
