import path from "node:path";
import { defineConfig } from "vitest/config";
import { BaseSequencer, type TestSpecification } from "vitest/node";
import { filesReplacingModules } from "./server/test/support/replaces-modules";

/**
 * Files that run one at a time, in their own lane at full CPU priority (bin/test/run-tests.mjs runs the rest at a lower
 * one), because what they check is decided by wall time on a clock no test can move: anvil's own interval mining, a
 * soak at Solana's and Base's real pace, a service's confirmation wait against a chain's real-timing late landings,
 * a simulation reused within its 2 s, requests spaced by a 429's Retry-After as they arrive at the RPC; or they race a
 * hundred requests on one connection pool. Starving them of CPU would make them slow or wrong. Every other file shares nothing with its neighbours (its own database, its own chains on
 * ephemeral ports, its own data dir, its own process) and runs beside them; a file that needs a clock gets one it
 * moves (the local chain's, vitest's fake timers) or waits for the event.
 */
export const TIMING_FILES = [
  "server/test/evm/anvil-timing.test.ts",
  "server/test/money/adversary.test.ts",
  "server/test/money/payment-binding.test.ts",
  "server/test/money/pending-settlement.test.ts",
  "server/test/prepaid/top-up-and-grants.test.ts",
  "server/test/paid/rate-limited-rpc.test.ts",
  "server/test/paid/one-simulation.test.ts",
];

/**
 * The production install itself (`npm install --omit=dev` in a copy, then a paid call under `npm start`): minutes of
 * install, so it runs only with SIGNET_PRODUCTION_INSTALL=true. `npm test` runs its short form,
 * production-dependencies.test.ts: every package the build and bin/start load is one the lockfile installs then.
 */
const PRODUCTION_INSTALL = "server/test/ops/production-install.test.ts";
const FULL_INSTALL = process.env.SIGNET_PRODUCTION_INSTALL === "true";

/**
 * Files that read or serve the run's one production build (`npm start`): once the build is made, beside the browser
 * suite. The multi-instance test is the run's soak.
 */
export const PRODUCTION_FILES = [
  "server/test/ops/graceful-shutdown.test.ts",
  "server/test/ops/multi-instance.test.ts",
  "server/test/ops/reverse-proxy.test.ts",
  "server/test/ops/production-dependencies.test.ts",
  ...(FULL_INSTALL ? [PRODUCTION_INSTALL] : []),
];

/**
 * Files that replace a module keep a fresh module graph of their own. The others share their worker's: a file's
 * imports are loaded once per worker, not once per file (most of the side-by-side group's CPU went on loading the same
 * graph again). Sharing is safe because a file leaves nothing behind: the runtime is passed in, and the env a file sets
 * through setEnv is restored when it closes.
 */
export const ISOLATED_FILES = filesReplacingModules(import.meta.dirname, ["server/test"]);

/**
 * The longest files of the parallel group start first, so none of them begins last and runs on alone: vitest orders
 * by its cache of past durations, which a fresh clone has not got (it then orders by file size).
 */
const LONGEST_FIRST = [
  "server/test/chaos/crash-recovery.test.ts",
  "server/test/evm/base-payments.test.ts",
  "server/test/fuzz/fuzz-routes.test.ts",
  "server/test/compat/x402-v1-clients.test.ts",
  "server/test/chaos/reconcile.test.ts",
  "server/test/compat/ai-sdk.test.ts",
];

class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (spec: TestSpecification) => {
      const at = LONGEST_FIRST.indexOf(path.relative(import.meta.dirname, spec.moduleId));
      return at === -1 ? LONGEST_FIRST.length : at;
    };
    // Stable: within a group and among the unlisted files, vitest's own order stays.
    return sorted
      .map((spec, i) => ({ spec, i }))
      .sort(
        (a, b) =>
          a.spec.project.config.sequence.groupOrder - b.spec.project.config.sequence.groupOrder ||
          rank(a.spec) - rank(b.spec) ||
          a.i - b.i,
      )
      .map(({ spec }) => spec);
  }
}

/**
 * Files side by side, one per core: most integration time is waiting on chains, sockets and PostgreSQL, but the fuzz
 * file is CPU-bound, and beside two others on a busy two-core machine it ran past its timeouts.
 */
const PARALLEL_WORKERS = Number(process.env.SIGNET_INTEGRATION_WORKERS ?? 2);

// Integration tests talk to real parts: PostgreSQL (TEST_DATABASE_URL), localnet, local HTTP servers.
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
    testTimeout: 120_000,
    hookTimeout: 180_000,
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
    sequence: { sequencer: LongestFirst },
    projects: [
      {
        extends: true,
        test: {
          name: "parallel",
          include: ["server/test/**/*.test.ts"],
          exclude: [...TIMING_FILES, ...PRODUCTION_FILES, ...ISOLATED_FILES, PRODUCTION_INSTALL],
          isolate: false,
          // Each worker keeps the modules of every file it ran (isolate: false), and half the integration files reached
          // V8's default 4 GB heap on a clean-clone run: the worker died out of memory, after 5 s collections froze the
          // stacks its files were running. 23 GB machines run two of these workers.
          execArgv: ["--max-old-space-size=8192"],
          maxWorkers: PARALLEL_WORKERS,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: "isolated",
          include: ISOLATED_FILES,
          exclude: [...TIMING_FILES, ...PRODUCTION_FILES, PRODUCTION_INSTALL],
          maxWorkers: PARALLEL_WORKERS,
          sequence: { groupOrder: 0 },
        },
      },
      { extends: true, test: { name: "timing", include: TIMING_FILES, maxWorkers: 1, sequence: { groupOrder: 1 } } },
      {
        extends: true,
        test: { name: "production", include: PRODUCTION_FILES, maxWorkers: 1, sequence: { groupOrder: 2 } },
      },
    ],
  },
});
