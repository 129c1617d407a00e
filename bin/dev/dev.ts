// `npm run dev`: the whole service offline on one machine: dev keys in .data/, the local Solana chain (it plays
// devnet, and optionally a second one plays mainnet), anvil playing Base Sepolia (and optionally Base), funded demo
// agents, then Next.js on PORT (default 3000).
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { assertReadyToServe, loadConfig, localChainPorts, processEnv } from "../../server/env";
import { createServiceKeys } from "../../server/keys/service-keys";
import { checkServiceKeys } from "../../server/runtime/check-service-keys";
import { loadDevtoolsEnv } from "../../devtools/devtools-env";
import { frontServerArgs } from "../start/serve-next-args";
import { loadOrCreateDevKey } from "../../server/keys/load-signing-key";
import { createFacilitator } from "../../server/facilitator/create-facilitator";
import { ensureDepositTokenAccount } from "../../server/facilitator/ensure-deposit-token-account";
import { DEMO_AGENT_FILE, DEMO_EVM_AGENT_FILE } from "../cli/commands/chat";
import { startLocalChains } from "../../devtools/start-local-chains";
import { evmAddressOf, loadOrCreateDevEvmKey } from "../../server/keys/evm-key";
import { devOperatorSignInKey, signedLoginLink } from "../../server/operator-auth/dev-operator";
import { SIGN_IN_TTL_MS } from "../../server/operator-auth/sign-in";
import { ensureProductionBuild, localProductionEnv } from "./local-production";
import { printDeploymentReport } from "../../server/runtime/read-deployment-report";
import { systemClock } from "../../server/clock";
import { createLogger } from "../../server/log";

/** The dev mainnet deposit address's key, made in .data/ when mainnet runs in dev and none is configured. */
const MAINNET_DEPOSIT_DEV_KEY_FILE = "mainnet-deposit-key.json";

/** What a new demo agent gets: enough USDC for many calls, no SOL (the facilitator pays fees). */
const DEMO_AGENT_USDC_UNITS = 10_000_000n;
/** The fee payer's SOL on the local chain: the runbook's funding advice is at least 0.5 SOL. */
const FACILITATOR_LAMPORTS = 10_000_000_000n;
/** The EVM gas payer's ETH on each anvil chain. */
const FACILITATOR_WEI = 10n ** 18n;

const env = processEnv();
const cfg = loadConfig(env);
const dev = loadDevtoolsEnv(env);
assertReadyToServe(cfg);
const keys = createServiceKeys(cfg);
// Each role's dev key is its own file in the data dir; a key set in the environment must still differ from the others.
checkServiceKeys(cfg, keys);
const operator = keys.operator();
const verifier = keys.verifier();
const log = (line: string) => console.log(`signet dev: ${line}`);
log(`data dir ${cfg.dataDir}`);
log(`operator key ${operator.publicKeyBase58} (signs receipts)`);
log(`verifier key ${verifier.publicKeyBase58} (signs hosted verdicts)`);

// Timing and faults come from LOCALNET_TIMING, LOCALNET_SLOT_MS, LOCALNET_FAULTS, ANVIL_BLOCK_TIME_SEC and ANVIL_FAULTS
// (real 400 ms slots, 2 s blocks and none by default); `signet localnet start` starts the same chains on their own.
const localChains = await startLocalChains({
  // Each network's chain on its LOCALNET_*_RPC_PORT: Solana devnet, Base Sepolia, Polygon Amoy and Avalanche Fuji by
  // default, the mainnets when their port is set.
  ports: localChainPorts(cfg),
  networks: cfg.networks,
  dataDir: cfg.dataDir,
  timing: dev,
  log,
});
const chains = localChains.solana;
const evmChains = localChains.evm;
// LOCALNET_MAINNET_RPC_PORT is the one switch for mainnet in dev: the chain playing it, and a deposit address for it
// (kept in .data/) unless SERVICE_MAINNET_DEPOSIT_ADDRESS names one. The kill switch still starts off.
let mainnetDeposit: string | null = null;
if (cfg.LOCALNET_MAINNET_RPC_PORT > 0) {
  mainnetDeposit =
    cfg.SERVICE_MAINNET_DEPOSIT_ADDRESS ??
    loadOrCreateDevKey(path.join(cfg.dataDir, MAINNET_DEPOSIT_DEV_KEY_FILE)).publicKeyBase58;
  log(
    `mainnet deposit address ${mainnetDeposit}; mainnet is off until an operator turns it on (dashboard, or SERVICE_MAINNET_ENABLED=true)`,
  );
}

const facilitator = await createFacilitator(cfg);
for (const chain of chains) await chain.fundAccount(facilitator.address, { lamports: FACILITATOR_LAMPORTS });
const devnetRpc = facilitator.rpcs["solana-devnet"];
const devnet = cfg.networks.byId("solana-devnet");
if (devnetRpc && devnet)
  await ensureDepositTokenAccount(devnetRpc, facilitator.signer, facilitator.address, devnet.usdcAsset, devnet.caip2, {
    clock: systemClock,
    log: createLogger("info"),
  });
log(`facilitator (fee payer, devnet deposit address) ${facilitator.address}`);

const demoFile = path.join(cfg.dataDir, DEMO_AGENT_FILE);
const isNewDemo = !existsSync(demoFile);
const demo = loadOrCreateDevKey(demoFile);
if (isNewDemo) await chains[0]!.fundAccount(demo.publicKeyBase58, { usdcUnits: DEMO_AGENT_USDC_UNITS });
log(`demo agent ${demo.publicKeyBase58} (${demoFile}); try: npm run -s signet -- chat "hello"`);
if (facilitator.evm) {
  for (const chain of evmChains) await chain.fund(facilitator.evm.address, { wei: FACILITATOR_WEI });
  log(`EVM facilitator (gas payer, deposit address on every EVM network) ${facilitator.evm.address}`);
}
// The demo EVM agent holds USDC on every EVM testnet's chain (Base Sepolia, Polygon Amoy, Avalanche Fuji by default).
const evmTestnets = evmChains.flatMap((chain) => {
  const row = cfg.networks.byCaip2(`eip155:${chain.chainId}`);
  return row && !row.isMainnet ? [{ chain, row }] : [];
});
if (evmTestnets.length > 0) {
  const evmDemoFile = path.join(cfg.dataDir, DEMO_EVM_AGENT_FILE);
  const evmDemo = evmAddressOf(loadOrCreateDevEvmKey(evmDemoFile));
  for (const { chain } of evmTestnets) {
    // Top the demo EVM agent up to its starting balance (a restored chain keeps what it had).
    const held = await chain.usdcBalance(evmDemo);
    if (held < DEMO_AGENT_USDC_UNITS) await chain.fund(evmDemo, { usdcUnits: DEMO_AGENT_USDC_UNITS - held });
  }
  log(
    `demo EVM agent ${evmDemo} (${evmDemoFile}); try: npm run -s signet -- chat "hello" --network ${evmTestnets.map((t) => t.row.aliases[0]).join("|")}`,
  );
}

// The operator's first minute: outside production the service lets in a sign-in key it keeps in .data/; here is a
// one-time link signed with it (`signet operator login-link` signs another).
const signInKey = devOperatorSignInKey({ isProduction: false, dataDir: cfg.dataDir })!;
log(
  `dashboard sign-in (one-time link, valid ${SIGN_IN_TTL_MS / 60_000} minutes; npm run -s signet -- operator login-link for another):`,
);
log(`  ${signedLoginLink(cfg.baseUrl, signInKey, Date.now())}`);

const childEnv: NodeJS.ProcessEnv = { ...env, PORT: String(cfg.PORT), NEXT_TELEMETRY_DISABLED: "1" };
if (mainnetDeposit) childEnv.SERVICE_MAINNET_DEPOSIT_ADDRESS = mainnetDeposit;

// `npm run preview` (--production, or SIGNET_NEXT_MODE=start) serves the production build, built first when any input
// is newer than it, through `npm start`'s own launcher, against these keys and chains; the browser suite uses it,
// since dev-mode Fast Refresh reloads pages while a wallet is connecting. Otherwise `next dev`.
const production = process.argv.includes("--production") || dev.SIGNET_NEXT_MODE === "start";
let child;
if (production) {
  const productionEnv = localProductionEnv(childEnv, cfg, localChains.urls, {
    operatorSignInKey: signInKey.publicKeyBase58,
    ...(mainnetDeposit ? { mainnetDepositAddress: mainnetDeposit } : {}),
  });
  // A local rehearsal of production: beside the dev keys in the data dir, and on the embedded database unless the
  // environment names one. Production refuses both unless told, and logs each at every start.
  productionEnv.SIGNET_DEV_KEYS_IN_PRODUCTION ??= "true";
  productionEnv.SIGNET_EMBEDDED_DATABASE_IN_PRODUCTION ??= "true";
  if (!ensureProductionBuild(productionEnv, log)) {
    log("next build failed");
    await localChains.close();
    process.exit(1);
  }
  log(`starting the production build (npm start) on ${cfg.baseUrl}, with the dev keys in ${cfg.dataDir}`);
  // As `npm start` runs it: server modules resolve `server-only` under the react-server condition.
  child = spawn(
    process.execPath,
    ["--conditions=react-server", "--import", "tsx", path.join(import.meta.dirname, "..", "start", "start.ts")],
    { stdio: "inherit", env: productionEnv },
  );
} else {
  // The start-up report, before Next opens the database (the embedded one takes one process at a time).
  await printDeploymentReport(loadConfig(childEnv), { facilitator }, (line) => console.log(line));
  log(`starting Next.js (dev) on ${cfg.baseUrl}`);
  // Through bin/start/serve-next.ts, which tells route code each connection's own address (the client IP for per-IP limits).
  child = spawn(
    process.execPath,
    ["--import", "tsx", path.join(import.meta.dirname, "..", "start", "serve-next.ts"), ...frontServerArgs("dev", cfg)],
    { stdio: "inherit", env: childEnv },
  );
}
async function shutdown(code: number): Promise<never> {
  await localChains.close();
  process.exit(code);
}
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    child.kill(signal);
  });
}
child.on("exit", (code, signal) => void shutdown(code ?? (signal ? 1 : 0)));
