// The EVM half of the in-process facilitator: @x402/evm's exact scheme (EIP-3009
// transferWithAuthorization), one instance per Base network with an RPC configured, all signing with one key. That
// key's address pays the gas and is the EVM deposit address; the agent signs an authorization and needs no ETH.
import "server-only";
import type { x402Facilitator } from "@x402/core/facilitator";
import { toFacilitatorEvmSigner } from "@x402/evm";
import { ExactEvmScheme } from "@x402/evm/exact/facilitator";
import { concatHex, createPublicClient, createWalletClient, defineChain, encodeFunctionData, isAddressEqual, keccak256, publicActions, recoverTypedDataAddress, type Abi, type Chain, type Hex, type LocalAccount, type PublicClient, type Transport } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { db } from "../db";
import { ConfigError, type Config } from "../env";
import { loadEvmKey } from "../keys/evm-key";
import { NETWORKS, type NetworkId } from "../chain/networks";
import { createBackoffHttpTransport, surfaceRpcUnavailable } from "../chain/rpc-backoff";
import { evmPayloadRefusal } from "./accept-eip3009-only";
import { refuseBeforeVerify } from "./refuse-before-verify";
import { createPgNonceLock, isNonceTaken, sendWithLockedNonce, type NonceLock } from "./evm-nonce-lock";
import { NO_PENDING_MEMORY } from "./no-pending-memory";

export const FACILITATOR_EVM_DEV_KEY_FILE = "facilitator-evm-key.txt";

/**
 * Base and Base Sepolia make a block every 2 s. viem polls for a receipt (and caches the block number) every half block
 * time of the chain it is given, and every 4 s when the chain names none: two blocks' wait on every settlement.
 */
const BASE_BLOCK_TIME_MS = 2_000;

export interface EvmFacilitator {
  /** Lower-case 0x address: gas payer and deposit address on every EVM network. */
  address: `0x${string}`;
  rpcUrls: Partial<Record<NetworkId, string>>;
  /** Read-only clients, for fee-payer health and diagnostics. */
  clients: Partial<Record<NetworkId, PublicClient>>;
}

/** How long settle waits for a relayed transaction's receipt when the caller names no wait. */
const DEFAULT_CONFIRMATION_TIMEOUT_MS = 30_000;

/**
 * The relayer as @x402/evm's facilitator sees it. Every transaction it sends takes its nonce from the node's pending
 * count under `nonceLock`, keyed by (chain id, address): instances sharing the key and the database never collide.
 */
export function createEvmRelaySigner(opts: { account: LocalAccount; chain: Chain; transport: Transport; nonceLock: NonceLock; confirmationTimeoutMs?: number }) {
  const { account, chain, nonceLock } = opts;
  const wallet = createWalletClient({ account, chain, transport: opts.transport }).extend(publicActions);
  const lockKey = `${chain.id}:${account.address.toLowerCase()}`;
  const pendingCount = () => wallet.getTransactionCount({ address: account.address, blockTag: "pending" });
  /** Signs and sends with `nonce`; a node saying it already has this very transaction (a resent request) answers its hash. */
  const signAndSend = async (request: { to: Hex; data: Hex; gas?: bigint }, nonce: number): Promise<Hex> => {
    const prepared = await wallet.prepareTransactionRequest({ account, chain, ...request, nonce });
    const serializedTransaction = await wallet.signTransaction(prepared as never);
    try {
      return await wallet.sendRawTransaction({ serializedTransaction });
    } catch (err) {
      const hash = keccak256(serializedTransaction);
      if (isNonceTaken(err) && (await wallet.getTransaction({ hash }).catch(() => null))) return hash;
      throw err;
    }
  };
  const send = (request: { to: Hex; data: Hex; gas?: bigint }) => sendWithLockedNonce(nonceLock, lockKey, pendingCount, (nonce) => signAndSend(request, nonce));
  return toFacilitatorEvmSigner(
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
        return send({ to: address, data: dataSuffix ? concatHex([data, dataSuffix]) : data, ...(gas !== undefined ? { gas } : {}) });
      },
      sendTransaction: ({ to, data }) => send({ to, data }),
      waitForTransactionReceipt: (args) => wallet.waitForTransactionReceipt(args),
      getCode: (args) => wallet.getCode(args).catch(surfaceRpcUnavailable),
    },
    // Past this wait, the stock scheme answers `settlement_pending` with the hash: the payment is pending.
    { confirmationTimeoutMs: opts.confirmationTimeoutMs ?? DEFAULT_CONFIRMATION_TIMEOUT_MS },
  );
}

/** Registers the EVM scheme on `x402` for every Base network with an RPC; null when none has one. */
export function createEvmFacilitator(cfg: Config, x402: x402Facilitator, nonceLock: NonceLock = createPgNonceLock(db)): EvmFacilitator | null {
  const rpcUrls: Partial<Record<NetworkId, string>> = {};
  if (cfg.evmRpcUrl.baseSepolia) rpcUrls["base-sepolia"] = cfg.evmRpcUrl.baseSepolia;
  if (cfg.evmRpcUrl.base) rpcUrls.base = cfg.evmRpcUrl.base;
  if (Object.keys(rpcUrls).length === 0) return null;

  const key = loadEvmKey({
    envVar: "FACILITATOR_EVM_SECRET_KEY",
    value: cfg.FACILITATOR_EVM_SECRET_KEY,
    isProduction: cfg.isProduction,
    dataDir: cfg.dataDir,
    devFile: FACILITATOR_EVM_DEV_KEY_FILE,
  });
  // No in-process nonce manager: instances sharing this key take nonces under the database lock instead.
  const account = privateKeyToAccount(key);
  const address = account.address.toLowerCase() as `0x${string}`;
  if (cfg.SERVICE_EVM_DEPOSIT_ADDRESS && cfg.SERVICE_EVM_DEPOSIT_ADDRESS.toLowerCase() !== address) {
    // SECURITY: the deposit address must be the facilitator's own; anything else is a typo that would send every
    // payment somewhere the service does not control.
    throw new ConfigError(`SERVICE_EVM_DEPOSIT_ADDRESS (${cfg.SERVICE_EVM_DEPOSIT_ADDRESS}) must equal the EVM facilitator key's address ${account.address}`);
  }

  const clients: Partial<Record<NetworkId, PublicClient>> = {};
  for (const [id, url] of Object.entries(rpcUrls) as [NetworkId, string][]) {
    const info = NETWORKS[id];
    const chain = defineChain({
      id: Number(info.caip2.split(":")[1]),
      name: info.label,
      nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
      rpcUrls: { default: { http: [url] } },
      blockTime: BASE_BLOCK_TIME_MS,
    });
    const transport = createBackoffHttpTransport(url, { network: info.caip2 });
    const signer = createEvmRelaySigner({ account, chain, transport, nonceLock, confirmationTimeoutMs: cfg.SETTLEMENT_CONFIRM_WAIT_MS });
    // SECURITY: EIP-3009 only; a Permit2 payload is refused before the stock scheme reads or sends anything.
    x402.register([info.caip2] as never, refuseBeforeVerify(new ExactEvmScheme(signer, { pendingSettlementStore: NO_PENDING_MEMORY }), evmPayloadRefusal));
    clients[id] = createPublicClient({ chain, transport });
  }
  return { address, rpcUrls, clients };
}
