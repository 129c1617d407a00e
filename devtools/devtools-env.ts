// The dev tools' one validated config: the variables only `npm run dev`, the local chains, the soak, the bench and
// the tests' helper processes read, parsed here once. The service's own variables are server/env/index.ts's.
import { z } from "zod";
import { parseFaultProfile } from "./localnet/fault-profile";

/** A local chain's fault profile: JSON, or the path of a JSON file (see devtools/localnet/fault-profile.ts). */
const faultProfile = z
  .string()
  .min(1)
  .optional()
  .transform((text, ctx) => {
    if (text === undefined) return null;
    try {
      return parseFaultProfile(text);
    } catch (err) {
      ctx.addIssue({ code: "custom", message: err instanceof Error ? err.message : "fault profile: unreadable" });
      return z.NEVER;
    }
  });

/** Exactly "true" or "false", as every boolean variable is written. */
const booleanString = z
  .enum(["true", "false"], { message: 'must be exactly "true" or "false"' })
  .transform((v) => v === "true");

export const devtoolsEnvSchema = z.object({
  LOCALNET_TIMING: z
    .enum(["instant", "real"])
    .default("real")
    .describe(
      'How the local Solana chains keep time: "real" (a clock, the default) or "instant" (a slot per ' +
        "transaction, final at once).",
    ),
  LOCALNET_SLOT_MS: z.coerce
    .number()
    .int()
    .min(1)
    .max(10_000)
    .default(400)
    .describe("Real timing's slot length, ms (Solana's is ~400)."),
  LOCALNET_FAULTS: faultProfile.describe(
    "A seeded fault profile for the local Solana chains' RPC (dev and tests only); unset = no faults.",
  ),
  ANVIL_BLOCK_TIME_SEC: z.coerce
    .number()
    .int()
    .min(0)
    .max(60)
    .default(2)
    .describe(
      "The local anvil chains' interval mining, whole seconds (default 2, Base's); 0 = automine, a block per " +
        "transaction.",
    ),
  ANVIL_FAULTS: faultProfile.describe(
    "A seeded fault profile for the local anvil chains' RPC (dev and tests only); unset = no faults.",
  ),
  SIGNET_NEXT_MODE: z
    .enum(["dev", "start"])
    .default("dev")
    .describe('`npm run dev` serves the production build (as `npm run preview` does) when "start".'),
  TEST_DATABASE_URL: z
    .string()
    .min(1)
    .default("postgresql://postgres@127.0.0.1:5432/postgres")
    .describe("The PostgreSQL server the soak, the bench and the browser suite make their throwaway databases on."),
  SIGNET_DEV_LOOP_FULL: booleanString
    .default(false)
    .describe("The dev-reload browser spec's long form: every page and every watched folder."),
  SIGNET_CHAOS_FULL: booleanString
    .default(false)
    .describe('The crash-recovery suite\'s full count (20 crashes per step) when "true"; one by default.'),
  CHAOS_RUNS: z.coerce
    .number()
    .int()
    .min(1)
    .max(1_000)
    .optional()
    .describe("Crashes per step of the crash-recovery suite, over SIGNET_CHAOS_FULL."),
  SIGNET_PRODUCTION_INSTALL: booleanString
    .default(false)
    .describe(
      'The production install test when "true": `npm install --omit=dev` of the build, then a paid call under ' +
        "`npm start`; `npm test` checks the lockfile holds what the build and bin/start load.",
    ),
  SIGNET_PROXY_FULL: booleanString
    .default(false)
    .describe('The reverse-proxy test on every network for both x402 clients when "true"; devnet only by default.'),
  SIGNET_CONTENT_RUNS: z.coerce
    .number()
    .int()
    .min(1)
    .max(1_000_000)
    .optional()
    .describe("Runs of the any-content property test (each runs a batch of calls side by side); a few in `npm test`."),
  SIGNET_EMBEDDINGS_CONTENT_RUNS: z.coerce
    .number()
    .int()
    .min(1)
    .max(1_000_000)
    .optional()
    .describe(
      "Runs of the any-content property test's embeddings part (each a batch of calls side by side); a few in " +
        "`npm test`.",
    ),
  SIGNET_CONTENT_SEED: z.coerce
    .number()
    .int()
    .optional()
    .describe("The any-content property test's seed, to replay a run it printed; a fresh one when unset."),
  SIGNET_INTEGRATION_WORKERS: z.coerce
    .number()
    .int()
    .min(1)
    .max(16)
    .optional()
    .describe("Integration test files run side by side (default 2, the machine's cores)."),
  SIGNET_SHARED_BUILD_DIR: z
    .string()
    .min(1)
    .optional()
    .describe(
      "The production build `npm test` makes once and the soak, the multi-instance test and the browser suite " +
        "share.",
    ),
  SIGNET_BUILD_TYPECHECK: booleanString
    .default(true)
    .describe(
      "Whether `next build` type-checks (next.config.mjs reads the same variable). The shared build skips it: " +
        "`npm test` type-checks the whole repository in its own stage, beside the build.",
    ),
  BENCH_HTTP_CALLS: z.coerce
    .number()
    .int()
    .min(1)
    .max(9_999_999)
    .optional()
    .describe("Signed prepaid calls per server and round of `npm run bench:http` (default 3000)."),
  SIGNET_MACHINE_NODE: z
    .string()
    .min(1)
    .optional()
    .describe(
      "Set by `.ci/run` when it runs the suite on Node 24 and the machine's own Node is 22: the machine's node, on " +
        "which `npm test` runs the unit stage once more.",
    ),
  SIGNET_SUMMARY_FILE: z
    .string()
    .min(1)
    .optional()
    .describe("Set by `npm test` for its runners: the file each appends its counts and file timings to."),
  SIGNET_SUMMARY_STAGE: z
    .string()
    .min(1)
    .optional()
    .describe("Set by `npm test` for its runners: the stage a runner's counts belong to."),
});

export type DevtoolsEnv = z.infer<typeof devtoolsEnvSchema>;

export class DevtoolsEnvError extends Error {
  override name = "DevtoolsEnvError";
}

/** Parses the dev tools' variables out of `env`; throws a DevtoolsEnvError naming each bad variable. */
export function loadDevtoolsEnv(env: Readonly<Record<string, string | undefined>> = process.env): DevtoolsEnv {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ""));
  const result = devtoolsEnvSchema.safeParse(cleaned);
  if (!result.success) {
    const lines = result.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
    throw new DevtoolsEnvError(`invalid environment:\n  ${lines.join("\n  ")}`);
  }
  return result.data;
}

/** The environment as read-only names and values, for a tool that checks its own family of variables (the bench's BENCH_*). */
export function devtoolsEnvironment(): Readonly<Record<string, string | undefined>> {
  return process.env;
}

/** A dev tool's numeric knob (a size, a run count, a seed) as the environment sets it; `fallback` when unset. */
export function devtoolsKnob(name: string, fallback: number): number {
  const value = devtoolsSetting(name);
  return value === undefined ? fallback : Number(value);
}

/** A dev tool's optional text setting (a profile folder, a log level) as the environment sets it; undefined when unset. */
export function devtoolsSetting(name: string): string | undefined {
  const value = process.env[name];
  return value === undefined || value === "" ? undefined : value;
}

/**
 * The environment a dev tool hands a child it spawns: this process's own, with `overrides` on top (undefined deletes).
 * The one place a dev tool copies the environment.
 */
export function childEnv(overrides: Readonly<Record<string, string | undefined>> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const [k, v] of Object.entries(overrides)) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return env;
}

/** Only the shell basics (PATH, HOME) of this process's environment, with `vars` on top: a child that must not inherit the rest. */
export function minimalChildEnv(vars: Readonly<Record<string, string | undefined>> = {}): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, HOME: process.env.HOME, ...vars } as unknown as NodeJS.ProcessEnv;
}
