// Starts the whole offline stack for the browser suite: a fresh PostgreSQL database, the local chain, the demo agent
// and Next, through the same launcher as `npm run dev` (bin/dev.ts), on the e2e ports.
import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { E2E_OPERATOR } from "./test-wallet";
import { generateKeypair } from "../server/keys/parse-secret-key";

const ADMIN = process.env.TEST_DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";
const name = `signet_e2e_${Date.now().toString(36)}`;
const admin = new pg.Client({ connectionString: ADMIN });
await admin.connect();
// Old e2e databases from interrupted runs are dropped first.
const stale = await admin.query<{ datname: string }>("SELECT datname FROM pg_database WHERE datname LIKE 'signet_e2e_%'");
for (const row of stale.rows) await admin.query(`DROP DATABASE IF EXISTS "${row.datname}" WITH (FORCE)`);
await admin.query(`CREATE DATABASE "${name}"`);
await admin.end();
const url = new URL(ADMIN);
url.pathname = `/${name}`;

const dataDir = mkdtempSync(path.join(tmpdir(), "signet-e2e-"));
const child = spawn(process.execPath, [path.resolve("node_modules/tsx/dist/cli.mjs"), "bin/dev.ts"], {
  stdio: "inherit",
  env: {
    ...process.env,
    PORT: "3210",
    LOCALNET_RPC_PORT: "18999",
    LOCALNET_MAINNET_RPC_PORT: "18998",
    SIGNET_DATA_DIR: dataDir,
    DATABASE_URL: url.toString(),
    SERVICE_BASE_URL: "http://localhost:3210",
    X402_FLAT_PRICE_USDC: "0.001",
    SERVICE_OPERATOR_PUBKEYS: E2E_OPERATOR.publicKeyBase58,
    SERVICE_MAINNET_DEPOSIT_ADDRESS: generateKeypair().publicKeyBase58,
    LOG_LEVEL: "warn",
  },
});
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => child.kill(signal));
child.on("exit", (code) => process.exit(code ?? 0));
