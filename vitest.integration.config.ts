import { defineConfig } from "vitest/config";

// Integration tests talk to real parts: PostgreSQL (TEST_DATABASE_URL), localnet, local HTTP servers.
export default defineConfig({
  resolve: { alias: { "@": import.meta.dirname } },
  test: {
    include: ["server/test/**/*.test.ts"],
    environment: "node",
    testTimeout: 120_000,
    hookTimeout: 180_000,
    // One file at a time: suites share PostgreSQL and the 2-core machine.
    fileParallelism: false,
    reporters: ["default", "./server/test/support/summary-reporter.ts"],
    env: { NODE_ENV: "test" },
  },
});
