// The in-process x402 facilitator (no third-party facilitator is trusted with settlement): @x402/core's x402Facilitator with @x402/svm's exact scheme,
// registered directly with explicit fee-griefing limits. Its key is both the fee payer and the devnet deposit address.
import "server-only";
import { createKeyPairSignerFromBytes, type KeyPairSigner, type Rpc, type SolanaRpcApi } from "@solana/kit";
import { x402Facilitator } from "@x402/core/facilitator";
import { ExactSvmScheme } from "@x402/svm/exact/facilitator";
import { toFacilitatorSvmSigner, type FacilitatorSvmSigner } from "@x402/svm";
import type { SchemeNetworkFacilitator } from "@x402/core/types";
import { ConfigError, type Config } from "../env";
import type { DbClient } from "../db";
import type { SignetMetrics } from "../metrics/registry";
import { createLogger, logEvent, type Logger } from "../log";
import { systemClock, type Clock } from "../clock";
import { loadSigningKey } from "../keys/load-signing-key";
import type { Ed25519Keypair } from "../keys/parse-secret-key";
import { ed25519RoleKey, refuseSharedKeys } from "../keys/refuse-shared-keys";
import { OPERATOR_DEV_KEY_FILE } from "../keys/service-keys";
import type { NetworkId, NetworkRegistry } from "../verify";
import { createBackoffSolanaRpc, type RpcGates } from "./rpc-backoff";
import { oneSimulationPerPayment } from "./one-simulation-per-payment";
import { oneVerifyPerPayment, type VerificationMemory } from "./one-verify-per-payment";
import { markChainUnavailable } from "./chain-unavailable";
import { feePayerRefusal } from "./isolate-fee-payer";
import { refuseBeforeVerify } from "./refuse-before-verify";
import { createEvmFacilitator, type EvmFacilitator } from "./create-evm-facilitator";
import { createPgNonceLock } from "./evm-nonce-lock";
import { confirmWithRebroadcast } from "./confirm-with-rebroadcast";
import { NO_PENDING_MEMORY } from "./no-pending-memory";
import { createSvmSchemeV1, type FeeLimits } from "./svm-v1-scheme";

export const FACILITATOR_DEV_KEY_FILE = "facilitator-key.json";

/**
 * Fee-griefing limits: a payer must not be able to spend the fee payer's SOL. A payment transaction may ask the fee payer for at most
 * MAX_COMPUTE_UNITS × MAX_PRIORITY_FEE_MICROLAMPORTS / 1e6 = 2,500 lamports of priority fee on top of the
 * 5,000-lamport base fee per signature. Stock clients ask for 20,000 CU at 1 µlamport/CU.
 */
const MAX_COMPUTE_UNITS = 50_000;
const MAX_PRIORITY_FEE_MICROLAMPORTS = 50_000;
/** The agent and the fee payer: nothing else may be asked to sign. */
const MAX_REQUIRED_SIGNATURES = 2;
/** The limits above, as both exact SVM schemes (x402 v2 and v1) are given them. */
const FEE_LIMITS: FeeLimits = {
  maxComputeUnits: MAX_COMPUTE_UNITS,
  maxPriorityFeeMicroLamports: MAX_PRIORITY_FEE_MICROLAMPORTS,
  maxRequiredSignatures: MAX_REQUIRED_SIGNATURES,
};

/**
 * The exact SVM scheme as the facilitator registers it, over `signer` (which signs, simulates and sends), its
 * verifications remembered in `verifications` when given. A payment that lists the fee payer in any instruction is
 * refused before the stock scheme simulates or co-signs it.
 */
export function createSvmScheme(
  signer: FacilitatorSvmSigner,
  verifications?: VerificationMemory,
): SchemeNetworkFacilitator {
  const created = new ExactSvmScheme(signer, undefined, { ...FEE_LIMITS, pendingSettlementStore: NO_PENDING_MEMORY });
  const stock = verifications ? verifications.remember(created) : created;
  // SECURITY: the stock verify allows Lighthouse and Memo instructions without looking at their accounts.
  return refuseBeforeVerify(stock, feePayerRefusal);
}

export interface Facilitator {
  /** The networks the service is configured with (cfg.networks): every network fact the chain code reads. */
  networks: NetworkRegistry;
  x402: x402Facilitator;
  signer: KeyPairSigner;
  address: string;
  /** Solana networks with an RPC configured, and their RPC clients. */
  rpcs: Partial<Record<NetworkId, Rpc<SolanaRpcApi>>>;
  rpcUrls: Partial<Record<NetworkId, string>>;
  /** The EVM side, when an EVM network has an RPC configured. */
  evm: EvmFacilitator | null;
  /** Makes settle verify and simulate this Solana transaction again instead of reusing verify's verdict and simulation. */
  forgetSimulation(transaction: string, network: string): void;
  /** How long a settlement waits for its confirmation before it is pending (SETTLEMENT_CONFIRM_WAIT_MS). */
  confirmWaitMs: number;
  /** Where the chain code's waits and deadlines read time: the runtime's clock. */
  clock: Clock;
}

/**
 * Refuses a fee-payer key that is also an operator key: the receipt-signing key (SERVICE_OPERATOR_SECRET_KEY, or the
 * dev key) or a key listed in SERVICE_OPERATOR_PUBKEYS. Production without the operator key is left to its own check.
 */
function refuseOperatorKeyAsFeePayer(cfg: Config, feePayer: Ed25519Keypair): void {
  // SECURITY: the fee payer is a hot key that co-signs transactions payers build; a receipt signature or a dashboard
  // sign-in must never be made with it, nor a leak of one role's key hand over the other.
  if (cfg.SERVICE_OPERATOR_SECRET_KEY !== undefined || !cfg.isProduction) {
    const operator = loadSigningKey({
      envVar: "SERVICE_OPERATOR_SECRET_KEY",
      value: cfg.SERVICE_OPERATOR_SECRET_KEY,
      isProduction: cfg.isProduction,
      dataDir: cfg.dataDir,
      devFile: OPERATOR_DEV_KEY_FILE,
    });
    refuseSharedKeys([
      ed25519RoleKey("SERVICE_OPERATOR_SECRET_KEY", operator),
      ed25519RoleKey("FACILITATOR_SECRET_KEY", feePayer),
    ]);
  }
  const operators = cfg.SERVICE_OPERATOR_PUBKEYS.split(",").map((k) => k.trim());
  if (operators.includes(feePayer.publicKeyBase58)) {
    throw new ConfigError(
      `SERVICE_OPERATOR_PUBKEYS must not list the facilitator's fee-payer key ${feePayer.publicKeyBase58}: the dashboard's operators sign in with keys of their own`,
    );
  }
}

/** What a facilitator is built with beyond its config: a runtime's database, RPC gates, metrics, clock and logger. */
export interface FacilitatorDeps {
  /** The database the EVM relays take their nonces under; default: none (an EVM relay then refuses to send). */
  db?: () => Promise<DbClient>;
  /** The RPC gates every chain client shares; default: the facilitator's own. */
  rpcGates?: RpcGates;
  /** Where RPC retries are counted; default: nowhere. */
  metrics?: SignetMetrics;
  /** Where waits, deadlines and RPC gates read time; default: the wall clock. */
  clock?: Clock;
  /** Where the facilitator logs (its ready line, a relay's failed send); default: a logger at info of its own. */
  log?: Logger;
  /**
   * Whether to log `facilitator.kms.ready`, once per distinct set of keys and networks: a runtime rebuilt in the same
   * process passes the same memory and does not repeat it. Default: not logged (a check build, such as `npm start`'s
   * before it spawns the server, which announces its own).
   */
  announced?: ReadyAnnouncements;
}

/** The `facilitator.kms.ready` lines already logged (their fields, as JSON). */
export type ReadyAnnouncements = Set<string>;

const NO_DATABASE = () =>
  Promise.reject(new Error("this facilitator was built without a database: EVM relays cannot take nonces"));

/** The fee payer's key that `cfg` names (FACILITATOR_SECRET_KEY, or the dev key in its data dir). */
export function loadFeePayerKey(cfg: Config): Ed25519Keypair {
  return loadSigningKey({
    envVar: "FACILITATOR_SECRET_KEY",
    value: cfg.FACILITATOR_SECRET_KEY,
    isProduction: cfg.isProduction,
    dataDir: cfg.dataDir,
    devFile: FACILITATOR_DEV_KEY_FILE,
  });
}

/** Builds the facilitator for every network of `cfg.networks` that has an RPC configured. */
export async function createFacilitator(cfg: Config, deps: FacilitatorDeps = {}): Promise<Facilitator> {
  const rpcGates = deps.rpcGates ?? new Map<string, number>();
  const clock = deps.clock ?? systemClock;
  const log = deps.log ?? createLogger("info");
  const key = loadFeePayerKey(cfg);
  refuseOperatorKeyAsFeePayer(cfg, key);
  const signer = await createKeyPairSignerFromBytes(new Uint8Array([...key.seed, ...key.publicKey]));
  if (cfg.SERVICE_DEPOSIT_ADDRESS && cfg.SERVICE_DEPOSIT_ADDRESS !== signer.address) {
    // SECURITY: the deposit address must be the fee payer's own address; anything else is a typo that
    // would send every payment somewhere the facilitator does not control.
    throw new ConfigError(
      `SERVICE_DEPOSIT_ADDRESS (${cfg.SERVICE_DEPOSIT_ADDRESS}) must equal the facilitator key's address ${signer.address}`,
    );
  }

  const { networks } = cfg;
  const rpcUrls: Partial<Record<NetworkId, string>> = {};
  const rpcs: Partial<Record<NetworkId, Rpc<SolanaRpcApi>>> = {};
  const rpcByCaip2: Record<string, Rpc<SolanaRpcApi>> = {};
  const v1Names: string[] = [];
  for (const network of networks.ofFamily("svm")) {
    const url = cfg.rpcUrls[network.id];
    if (url === undefined) continue;
    // Rate limits are honoured for every request, settlement's included (a resent transaction has the same signature).
    const rpc = createBackoffSolanaRpc(url, {
      network: network.caip2,
      gates: rpcGates,
      clock,
      ...(deps.metrics ? { metrics: deps.metrics } : {}),
    });
    rpcUrls[network.id] = url;
    rpcs[network.id] = rpc;
    rpcByCaip2[network.caip2] = rpc;
    v1Names.push(network.x402V1Name);
  }

  const svmSigner = oneSimulationPerPayment(
    markChainUnavailable(
      confirmWithRebroadcast(
        toFacilitatorSvmSigner(signer, rpcByCaip2 as never),
        rpcByCaip2,
        cfg.SETTLEMENT_CONFIRM_WAIT_MS,
        clock,
      ),
    ),
    clock,
  );
  const verifications = oneVerifyPerPayment(clock, svmSigner.forgetSimulation);
  const x402 = new x402Facilitator();
  const caip2s = Object.keys(rpcByCaip2);
  if (caip2s.length > 0) {
    x402.register(caip2s as never, createSvmScheme(svmSigner, verifications));
    // x402 v1 clients pay the same networks under their v1 names.
    x402.registerV1(v1Names as never, createSvmSchemeV1(svmSigner, FEE_LIMITS, networks));
  }
  const evm = createEvmFacilitator(cfg, x402, createPgNonceLock(deps.db ?? NO_DATABASE), {
    gates: rpcGates,
    clock,
    log,
    ...(deps.metrics ? { metrics: deps.metrics } : {}),
  });
  if (deps.announced)
    announceReady(log, deps.announced, {
      address: signer.address,
      networks: caip2s,
      ...(evm
        ? { evm_address: evm.address, evm_networks: Object.keys(evm.rpcUrls).map((id) => networks.get(id).caip2) }
        : {}),
    });
  return {
    networks,
    x402,
    signer,
    address: signer.address,
    rpcs,
    rpcUrls,
    evm,
    forgetSimulation: (transaction, network) => {
      verifications.forget(transaction, network);
      svmSigner.forgetSimulation(transaction, network);
    },
    confirmWaitMs: cfg.SETTLEMENT_CONFIRM_WAIT_MS,
    clock,
  };
}

/** Logs `facilitator.kms.ready` unless exactly these fields were announced before with the same memory. */
function announceReady(log: Logger, announced: ReadyAnnouncements, fields: Record<string, unknown>): void {
  const line = JSON.stringify(fields);
  if (announced.has(line)) return;
  announced.add(line);
  logEvent(log, "facilitator.kms.ready", fields);
}
