// `npm run dev`: the whole service offline on one machine. Generates dev keys into .data/ on first run, then starts
// Next.js on PORT (default 3000). Later steps (local chains, demo agent) hook in here.
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { config } from "../server/env";
import { operatorKeypair, verifierKeypair } from "../server/keys/service-keys";

const cfg = config();
const operator = operatorKeypair();
const verifier = verifierKeypair();
console.log(`signet dev: data dir ${cfg.dataDir}`);
console.log(`signet dev: operator key ${operator.publicKeyBase58} (signs receipts)`);
console.log(`signet dev: verifier key ${verifier.publicKeyBase58} (signs hosted verdicts)`);
console.log(`signet dev: starting Next.js on ${cfg.baseUrl}`);

const nextBin = createRequire(import.meta.url).resolve("next/dist/bin/next");
const child = spawn(process.execPath, [nextBin, "dev", "--port", String(cfg.PORT)], {
  stdio: "inherit",
  env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" },
});
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => child.kill(signal));
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
