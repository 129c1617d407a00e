// `npm start`: production start. Validates the config and loads the signing keys BEFORE serving, so a missing key is
// a start-up error naming its variable, never a first-request 500.
import "./production-env";
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { config, ConfigError } from "../server/env";
import { operatorKeypair, verifierKeypair } from "../server/keys/service-keys";
import { createFacilitator } from "../server/facilitator/create-facilitator";

try {
  const cfg = config();
  operatorKeypair();
  verifierKeypair();
  // Loads FACILITATOR_SECRET_KEY and checks SERVICE_DEPOSIT_ADDRESS against it (a mismatch fails start-up: payments would go to an address the facilitator does not control).
  await createFacilitator(cfg);
  const nextBin = createRequire(import.meta.url).resolve("next/dist/bin/next");
  const child = spawn(process.execPath, [nextBin, "start", "--port", String(cfg.PORT)], {
    stdio: "inherit",
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" },
  });
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => child.kill(signal));
  child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
} catch (err) {
  if (err instanceof ConfigError) {
    process.stderr.write(`signet: refusing to start: ${err.message}\n`);
    process.exit(1);
  }
  throw err;
}
