// `npm start`: production start. Validates the config and loads the signing keys BEFORE serving, so a missing key is
// a start-up error naming its variable, never a first-request 500; so is a missing production build, a database a
// newer release migrated, and a log key that did not sign the receipt log's latest checkpoint. Prints the
// start-up report (one readable block, one JSON log line), then serves Next through bin/start/serve-next.ts, which tells
// route code each connection's own address.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { ConfigError, loadConfig, processEnv, productionOptIns } from "../../server/env";
import { createLogger } from "../../server/log";
import { checkDatabaseAtStart } from "../../server/runtime/check-database-at-start";
import { checkReadyToStart } from "../../server/runtime/check-ready-to-start";
import { printDeploymentReport } from "../../server/runtime/read-deployment-report";
import { frontServerArgs } from "./serve-next-args";

/** The file `next build` writes last into its dist dir: without it Next has no production build to serve. */
const BUILD_MARKER = "BUILD_ID";

try {
  // `npm start` is production, always: a shell that never set NODE_ENV would otherwise check the config in
  // development mode, invent dev keys on disk, and serve with them.
  const env: NodeJS.ProcessEnv = { ...processEnv(), NODE_ENV: "production" };
  const cfg = loadConfig(env);
  // The config production must state, no dev keys beside it, every role's key and the facilitator they make.
  const facilitator = await checkReadyToStart(cfg);
  // What production was allowed to run with that a deployment normally would not: logged at every start.
  const logger = createLogger(cfg.logLevel);
  for (const line of productionOptIns(cfg)) logger.warn({ event: "config.production_opt_in", detail: line }, line);
  // Variables this release still reads under their old names: logged at every start until they are renamed.
  for (const line of cfg.deprecations) logger.warn({ event: "config.deprecated", detail: line }, line);
  // Next would die on its first line with a stack trace; the operator needs the command that makes the build.
  const distDir = path.resolve(cfg.SIGNET_NEXT_DIST_DIR);
  if (!existsSync(path.join(distDir, BUILD_MARKER))) {
    throw new ConfigError(`no production build in ${distDir} (SIGNET_NEXT_DIST_DIR): run \`npm run build\` first`);
  }
  // The database it will serve, opened briefly: no newer release migrated it, and the log key continues its log.
  await checkDatabaseAtStart(cfg);
  // Before the server opens the database: the embedded one takes one process at a time.
  await printDeploymentReport(cfg, { facilitator }, (line) => console.log(line));
  // A larger young generation: under load most of a call's garbage dies young, and V8's default 16 MiB semi-space
  // promoted it and collected too often (the bench's GC share fell and paid calls/s rose with 64 MiB).
  const child = spawn(
    process.execPath,
    [
      "--max-semi-space-size=64",
      "--import",
      "tsx",
      path.join(import.meta.dirname, "serve-next.ts"),
      ...frontServerArgs("start", cfg),
    ],
    {
      stdio: "inherit",
      env: { ...env, PORT: String(cfg.PORT), NEXT_TELEMETRY_DISABLED: "1" },
    },
  );
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => child.kill(signal));
  child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
} catch (err) {
  if (err instanceof ConfigError) {
    // One line, naming the variable(s): what a process supervisor shows.
    process.stderr.write(`signet: refusing to start: ${err.message.replace(/\s*\n\s*/g, " ")}\n`);
    process.exit(1);
  }
  throw err;
}
