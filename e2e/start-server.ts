// Starts the whole offline stack for the browser suite: a fresh PostgreSQL database, the local chains, the demo agent
// and a production build of Next, through `npm run preview`'s own path (bin/dev/dev.ts --production: `next build` when the
// build is stale, then `npm start`), on the e2e ports. Production mode because dev-mode Fast Refresh reloads pages mid-connect, and
// because it is what operators run: production refuses to start without keys, so this passes test-only ones.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import bs58 from "bs58";
import pg from "pg";
import { generatePrivateKey } from "viem/accounts";
import { E2E_OPERATOR } from "./test-wallet";
import { generateKeypair } from "../server/keys/parse-secret-key";
import { childEnv, devtoolsSetting, loadDevtoolsEnv } from "../devtools/devtools-env";

const PORT = 3210;
const DEVNET_RPC_PORT = 18999;
const MAINNET_RPC_PORT = 18998;
const BASE_SEPOLIA_RPC_PORT = 18997;

const ADMIN = loadDevtoolsEnv().TEST_DATABASE_URL;
const name = `signet_e2e_${Date.now().toString(36)}`;
const admin = new pg.Client({ connectionString: ADMIN });
await admin.connect();
// Old e2e databases from interrupted runs are dropped first.
const stale = await admin.query<{ datname: string }>(
  "SELECT datname FROM pg_database WHERE datname LIKE 'signet_e2e_%'",
);
for (const row of stale.rows) await admin.query(`DROP DATABASE IF EXISTS "${row.datname}" WITH (FORCE)`);
await admin.query(`CREATE DATABASE "${name}"`);
await admin.end();
const url = new URL(ADMIN);
url.pathname = `/${name}`;

/** A fresh test-only base58 Ed25519 seed (these keys exist for one run and are never written anywhere). */
const testKey = () => bs58.encode(generateKeypair().seed);

// The chains keep bin/dev/dev.ts's real-timing defaults (400 ms Solana slots, 2 s Base blocks): no spec needs instant.
const env: NodeJS.ProcessEnv = childEnv({
  NODE_ENV: "production",
  NEXT_TELEMETRY_DISABLED: "1",
  SIGNET_NEXT_MODE: "start",
  // `npm test` builds once for the soak, the multi-instance test and this suite; run alone, this builds its own.
  SIGNET_NEXT_DIST_DIR: devtoolsSetting("SIGNET_SHARED_BUILD_DIR") ?? ".next-e2e",
  PORT: String(PORT),
  LOCALNET_RPC_PORT: String(DEVNET_RPC_PORT),
  LOCALNET_MAINNET_RPC_PORT: String(MAINNET_RPC_PORT),
  RPC_URL_SOLANA_DEVNET: `http://127.0.0.1:${DEVNET_RPC_PORT}`,
  RPC_URL_SOLANA_MAINNET: `http://127.0.0.1:${MAINNET_RPC_PORT}`,
  LOCALNET_EVM_RPC_PORT: String(BASE_SEPOLIA_RPC_PORT),
  RPC_URL_BASE_SEPOLIA: `http://127.0.0.1:${BASE_SEPOLIA_RPC_PORT}`,
  // No spec pays on Polygon Amoy or Avalanche Fuji: their chains are not started, and they show as having no RPC.
  LOCALNET_POLYGON_AMOY_RPC_PORT: "0",
  LOCALNET_AVALANCHE_FUJI_RPC_PORT: "0",
  FACILITATOR_EVM_SECRET_KEY: generatePrivateKey(),
  VERIFIER_ALLOW_PRIVATE_NETWORKS: "true",
  // The local chains carry no provider keys: let the explorer tell the browser about them.
  EXPLORER_ADVERTISE_RPC: "true",
  SIGNET_DATA_DIR: mkdtempSync(path.join(tmpdir(), "signet-e2e-")),
  DATABASE_URL: url.toString(),
  SERVICE_BASE_URL: `http://localhost:${PORT}`,
  SERVICE_OPERATOR_SECRET_KEY: testKey(),
  VERIFIER_SECRET_KEY: testKey(),
  LOG_SECRET_KEY: testKey(),
  FACILITATOR_SECRET_KEY: testKey(),
  SESSION_SECRET: randomBytes(32).toString("hex"),
  IP_HASH_SALT: randomBytes(16).toString("hex"),
  X402_FLAT_PRICE_USDC: "0.001",
  SERVICE_OPERATOR_PUBKEYS: E2E_OPERATOR.publicKeyBase58,
  SERVICE_MAINNET_DEPOSIT_ADDRESS: generateKeypair().publicKeyBase58,
  LOG_LEVEL: "warn",
  // The browser connects to the server directly: the client IP is the connection's own address.
  TRUSTED_PROXY_HOPS: "0",
  METRICS_TOKEN: "e2e-metrics-token-not-a-secret",
});

const child = spawn(
  process.execPath,
  [path.resolve("node_modules/tsx/dist/cli.mjs"), "--conditions=react-server", "bin/dev/dev.ts", "--production"],
  { stdio: "inherit", env },
);
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => child.kill(signal));
child.on("exit", (code) => process.exit(code ?? 0));
