// `npm start`: production start. Validates the config and loads the signing keys BEFORE serving, so a missing key is
// a start-up error naming its variable, never a first-request 500. Then serves Next through bin/serve-next.ts, which
// tells route code each connection's own address.
import { spawn } from "node:child_process";
import path from "node:path";
import { assertReadyToServe, ConfigError, loadConfig, processEnv } from "../server/env";
import { checkServiceKeys } from "../server/runtime/check-service-keys";
import { createFacilitator } from "../server/facilitator/create-facilitator";
import { frontServerArgs } from "./serve-next-args";

try {
  // `npm start` is production, always: a shell that never set NODE_ENV would otherwise check the config in
  // development mode, invent dev keys on disk, and serve with them.
  const env: NodeJS.ProcessEnv = { ...processEnv(), NODE_ENV: "production" };
  const cfg = loadConfig(env);
  assertReadyToServe(cfg);
  // Loads every role's key (SERVICE_OPERATOR_SECRET_KEY, VERIFIER_SECRET_KEY, LOG_SECRET_KEY with LOG_WITNESS_KEYS,
  // FACILITATOR_SECRET_KEY, and FACILITATOR_EVM_SECRET_KEY when a Base RPC is set) and refuses two roles sharing a key.
  checkServiceKeys(cfg);
  // Loads FACILITATOR_SECRET_KEY and checks SERVICE_DEPOSIT_ADDRESS against it (a mismatch fails start-up: payments
  // would go to an address the facilitator does not control), and that it is none of the operator's keys (the
  // receipt-signing key, the dashboard's sign-in keys). The server announces the facilitator when it builds its own.
  await createFacilitator(cfg);
  // A larger young generation: under load most of a call's garbage dies young, and V8's default 16 MiB semi-space
  // promoted it and collected too often (the bench's GC share fell and paid calls/s rose with 64 MiB).
  const child = spawn(process.execPath, ["--max-semi-space-size=64", "--import", "tsx", path.join(import.meta.dirname, "serve-next.ts"), ...frontServerArgs("start", cfg)], {
    stdio: "inherit",
    env: { ...env, PORT: String(cfg.PORT), NEXT_TELEMETRY_DISABLED: "1" },
  });
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
