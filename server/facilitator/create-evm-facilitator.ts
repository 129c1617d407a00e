// The EVM half of the in-process facilitator: @x402/evm's exact scheme (EIP-3009
// transferWithAuthorization), one instance per EVM network with an RPC configured, all signing with one key. That
// key's address pays the gas and is the EVM deposit address; the agent signs an authorization and needs no gas money.
import "server-only";
import type { x402Facilitator } from "@x402/core/facilitator";
import { toFacilitatorEvmSigner } from "@x402/evm";
import { ExactEvmScheme } from "@x402/evm/exact/facilitator";
import { ExactEvmSchemeV1 } from "@x402/evm/exact/v1/facilitator";
import {
  concatHex,
  createPublicClient,
  createWalletClient,
  defineChain,
  encodeFunctionData,
  isAddressEqual,
  publicActions,
  recoverTypedDataAddress,
  type Abi,
  type Chain,
  type Hex,
  type LocalAccount,
  type PublicClient,
  type Transport,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { ConfigError, type Config } from "../env";
import { loadEvmKey, type EvmPrivateKey } from "../keys/evm-key";
import type { EvmNetworkRow, NetworkId } from "../verify";
import { isEvmRow } from "../verify/chain-family-facts";
import { createBackoffHttpTransport, surfaceRpcUnavailable, type RpcBackoffOptions } from "./rpc-backoff";
import { evmPayloadRefusal } from "./accept-eip3009-only";
import { refuseBeforeVerify } from "./refuse-before-verify";
import type { NonceLock } from "./evm-nonce-lock";
import { nodeKnows, relayTransaction, sweepRelays, type RelayChain } from "./evm-relay-ledger";
import { NO_PENDING_MEMORY } from "./no-pending-memory";
import type { Logger } from "../log";

export const FACILITATOR_EVM_DEV_KEY_FILE = "facilitator-evm-key.txt";

export interface EvmFacilitator {
  /** Lower-case 0x address: gas payer and deposit address on every EVM network. */
  address: `0x${string}`;
  rpcUrls: Partial<Record<NetworkId, string>>;
  /** Read-only clients, for fee-payer health and diagnostics. */
  clients: Partial<Record<NetworkId, PublicClient>>;
  /** Broadcasts again, on every network, the relays the chain has not mined yet (the relay sweeper's one round). */
  sweepRelays(): Promise<void>;
  /**
   * The proof that this key, the payee of every EVM payment, belongs to the service at `origin`: its EIP-191 signature
   * of the origin string, as x402 crawlers (x402scan) check an ownership proof. It signs the origin and nothing else.
   */
  proveOwnership(origin: string): Promise<`0x${string}`>;
}

/** Origins whose ownership proof is kept signed: a service answers for its one public origin. */
const MAX_PROVEN_ORIGINS = 8;

/** How long settle waits for a relayed transaction's receipt when the caller names no wait. */
const DEFAULT_CONFIRMATION_TIMEOUT_MS = 30_000;

/**
 * The relayer as @x402/evm's facilitator sees it. Every transaction it sends takes its nonce under `nonceLock`, keyed by
 * (chain id, address), from the relay ledger (evm-relay-ledger.ts): never a nonce already given to another transaction,
 * however far the node's pending count lags, so instances sharing the key and the database never collide. `sweep`
 * broadcasts again what the node has not mined yet.
 */
export function createEvmRelaySigner(opts: {
  account: LocalAccount;
  chain: Chain;
  transport: Transport;
  nonceLock: NonceLock;
  confirmationTimeoutMs?: number;
  log?: Logger;
}) {
  const { account, chain, nonceLock } = opts;
  const wallet = createWalletClient({ account, chain, transport: opts.transport }).extend(publicActions);
  const relayChain: RelayChain = {
    chainId: chain.id,
    address: account.address.toLowerCase(),
    minedCount: () => wallet.getTransactionCount({ address: account.address, blockTag: "latest" }),
    pendingCount: () => wallet.getTransactionCount({ address: account.address, blockTag: "pending" }),
    sendRaw: (serializedTransaction) => wallet.sendRawTransaction({ serializedTransaction }),
    knows: (hash) => nodeKnows(wallet, hash),
    ...(opts.log ? { log: opts.log } : {}),
  };
  /** Gas and fees are read before the lock is taken; only the nonce is chosen (and the bytes signed) under it. */
  const send = async (request: { to: Hex; data: Hex; gas?: bigint }): Promise<Hex> => {
    const prepared = await wallet.prepareTransactionRequest({
      account,
      chain,
      ...request,
      parameters: ["chainId", "fees", "gas", "type"],
    });
    return relayTransaction(nonceLock, relayChain, (nonce) => wallet.signTransaction({ ...prepared, nonce } as never));
  };
  const signer = toFacilitatorEvmSigner(
    {
      address: account.address,
      // @x402/evm's verify turns a failed simulation read into an invalid payment with the error's message: an RPC
      // that could not be reached must read as chain_unavailable there, never as the payer's fault.
      readContract: (args) => wallet.readContract(args as never).catch(surfaceRpcUnavailable),
      verifyTypedData: async (args) => {
        // An EOA's signature is checked here without the RPC. viem's own check asks the chain (for smart wallets) and
        // answers false when that call fails, so a false is trusted only while the RPC answers.
        const recovered = await recoverTypedDataAddress(args as never).catch(() => null);
        if (recovered && isAddressEqual(recovered, args.address as Hex)) return true;
        const valid = await wallet.verifyTypedData(args as never).catch(surfaceRpcUnavailable);
        if (!valid) await wallet.getBlockNumber({ cacheTime: 0 }).catch(surfaceRpcUnavailable);
        return valid;
      },
      writeContract: ({ address, abi, functionName, args, gas, dataSuffix }) => {
        const data = encodeFunctionData({ abi: abi as Abi, functionName, args } as never);
        return send({
          to: address,
          data: dataSuffix ? concatHex([data, dataSuffix]) : data,
          ...(gas !== undefined ? { gas } : {}),
        });
      },
      sendTransaction: ({ to, data }) => send({ to, data }),
      waitForTransactionReceipt: (args) => wallet.waitForTransactionReceipt(args),
      getCode: (args) => wallet.getCode(args).catch(surfaceRpcUnavailable),
    },
    // Past this wait, the stock scheme answers `settlement_pending` with the hash: the payment is pending.
    { confirmationTimeoutMs: opts.confirmationTimeoutMs ?? DEFAULT_CONFIRMATION_TIMEOUT_MS },
  );
  return Object.assign(signer, { sweep: () => sweepRelays(nonceLock, relayChain) });
}

/** The EVM networks `cfg` gives an RPC, with their URLs: the networks the EVM side serves. */
function evmNetworksOf(cfg: Config): { network: EvmNetworkRow; url: string }[] {
  return cfg.networks.rows.flatMap((network) => {
    const url = cfg.rpcUrls[network.id];
    return isEvmRow(network) && url !== undefined ? [{ network, url }] : [];
  });
}

/**
 * The relayer's key that `cfg` names (FACILITATOR_EVM_SECRET_KEY, or the dev key in its data dir); null when no EVM
 * network has an RPC, since the service then never reads it.
 */
export function loadRelayerKey(cfg: Config): EvmPrivateKey | null {
  if (evmNetworksOf(cfg).length === 0) return null;
  return loadEvmKey({
    envVar: "FACILITATOR_EVM_SECRET_KEY",
    value: cfg.FACILITATOR_EVM_SECRET_KEY,
    isProduction: cfg.isProduction,
    dataDir: cfg.dataDir,
    devFile: FACILITATOR_EVM_DEV_KEY_FILE,
  });
}

/** Registers the EVM scheme on `x402` for every EVM network with an RPC; null when none has one. */
export function createEvmFacilitator(
  cfg: Config,
  x402: x402Facilitator,
  nonceLock: NonceLock,
  backoff: Pick<RpcBackoffOptions, "gates" | "metrics" | "clock"> & { log?: Logger } = {},
): EvmFacilitator | null {
  const key = loadRelayerKey(cfg);
  if (key === null) return null;
  // No in-process nonce manager: instances sharing this key take nonces under the database lock instead.
  const account = privateKeyToAccount(key);
  const address = account.address.toLowerCase() as `0x${string}`;
  if (cfg.SERVICE_EVM_DEPOSIT_ADDRESS && cfg.SERVICE_EVM_DEPOSIT_ADDRESS.toLowerCase() !== address) {
    // SECURITY: the deposit address must be the facilitator's own; anything else is a typo that would send every
    // payment somewhere the service does not control.
    throw new ConfigError(
      `SERVICE_EVM_DEPOSIT_ADDRESS (${cfg.SERVICE_EVM_DEPOSIT_ADDRESS}) must equal the EVM facilitator key's address ${account.address}`,
    );
  }

  const rpcUrls: Partial<Record<NetworkId, string>> = {};
  const clients: Partial<Record<NetworkId, PublicClient>> = {};
  const sweeps: (() => Promise<number>)[] = [];
  for (const { network: info, url } of evmNetworksOf(cfg)) {
    const id = info.id;
    const { name, symbol, decimals } = info.nativeCurrency;
    // viem polls for a receipt (and caches the block number) every half block time of the chain it is given, and
    // every 4 s when the chain names none: on a 2 s chain, two blocks' wait on every settlement.
    const chain = defineChain({
      id: info.chainId,
      name: info.label,
      nativeCurrency: { name, symbol, decimals },
      rpcUrls: { default: { http: [url] } },
      blockTime: info.blockTimeMs,
    });
    rpcUrls[id] = url;
    const { log, ...rpcBackoff } = backoff;
    const transport = createBackoffHttpTransport(url, { network: info.caip2, ...rpcBackoff });
    const signer = createEvmRelaySigner({
      account,
      chain,
      transport,
      nonceLock,
      confirmationTimeoutMs: cfg.SETTLEMENT_CONFIRM_WAIT_MS,
      ...(log ? { log } : {}),
    });
    // SECURITY: EIP-3009 only; a Permit2 payload is refused before the stock scheme reads or sends anything.
    x402.register(
      [info.caip2] as never,
      refuseBeforeVerify(new ExactEvmScheme(signer, { pendingSettlementStore: NO_PENDING_MEMORY }), evmPayloadRefusal),
    );
    // x402 v1 clients pay the same chain under its v1 name, through @x402/evm's stock v1 scheme.
    x402.registerV1([info.x402V1Name] as never, refuseBeforeVerify(new ExactEvmSchemeV1(signer), evmPayloadRefusal));
    clients[id] = createPublicClient({ chain, transport });
    sweeps.push(signer.sweep);
  }
  const sweepAll = async () => {
    // One network's outage does not stop the others' sweep.
    const results = await Promise.allSettled(sweeps.map((sweep) => sweep()));
    const failed = results.find((r) => r.status === "rejected");
    if (failed) throw failed.reason;
  };
  // Bounded memo cache: one proof per origin, at most MAX_PROVEN_ORIGINS (a service has one public origin).
  const proofs = new Map<string, Promise<`0x${string}`>>();
  const proveOwnership = (origin: string) => {
    const message = new URL(origin).origin;
    let proof = proofs.get(message);
    if (!proof) {
      if (proofs.size >= MAX_PROVEN_ORIGINS) proofs.clear();
      proof = account.signMessage({ message });
      proofs.set(message, proof);
    }
    return proof;
  };
  return { address, rpcUrls, clients, sweepRelays: sweepAll, proveOwnership };
}
