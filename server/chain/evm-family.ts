// The EVM family's adapter. A payment is an EIP-3009 authorization the facilitator's key relays (paying the gas) to
// itself: it is spent at most once, `authorizationState(from, nonce)` says whether it was, and the token's
// AuthorizationUsed log names the transaction (an AuthorizationCanceled one: the payer cancelled it). It lands only
// in a block before its validBefore. The relayer's ledger broadcasts its own transactions again; blocks can reorg.
import "server-only";
import type { PaymentPayload } from "@x402/core/types";
import { eip3009ABI } from "@x402/evm";
import { parseAbiItem, type PublicClient } from "viem";
import type { Facilitator } from "../facilitator/create-facilitator";
import { CHAIN_FAMILY_FACTS } from "../verify/chain-family-facts";
import type { NetworkId } from "../verify";
import type { ChainFamilyAdapter, LandedSettlement } from "./chain-family";
import { evmInflows } from "./chain-inflows";
import { findReorgedPayments } from "./evm-reorgs";

const AUTHORIZATION_USED = parseAbiItem("event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)");
/** EIP-3009's cancelAuthorization: the payer spends its own authorization, and no money moves. */
const AUTHORIZATION_CANCELED = parseAbiItem(
  "event AuthorizationCanceled(address indexed authorizer, bytes32 indexed nonce)",
);
/** How far back an authorization's transaction is looked for (a claim is minutes old; Base makes a block per 2 s). */
const EVM_LOG_LOOKBACK_BLOCKS = 10_000n;

function clientOf(facilitator: Facilitator, network: NetworkId): PublicClient {
  const client = facilitator.evm?.clients[network];
  if (!client) throw new Error(`no RPC for ${network}`);
  return client;
}

async function findEvmSettlement(
  facilitator: Facilitator,
  network: NetworkId,
  payload: PaymentPayload,
): Promise<LandedSettlement> {
  const client = clientOf(facilitator, network);
  const auth = (payload.payload as { authorization?: { from?: unknown; nonce?: unknown } }).authorization;
  // Only EIP-3009 can be looked up. Anything else (Permit2) is refused by the facilitator at verify and at settle, so
  // it is never claimed, and a recovery that settles it is refused before anything is sent.
  if (typeof auth?.from !== "string" || typeof auth.nonce !== "string") return { state: "absent" };
  const from = auth.from as `0x${string}`;
  const nonce = auth.nonce as `0x${string}`;
  const usdc = facilitator.networks.get(network).usdcAsset as `0x${string}`;
  const used = await client.readContract({
    address: usdc,
    abi: eip3009ABI,
    functionName: "authorizationState",
    args: [from, nonce],
  });
  if (!used) return { state: "absent" };
  // The head as of now: viem would answer from its cache, up to its polling interval old, and the block that spent the
  // authorization (just read as spent) could lie past a cached head.
  const latest = await client.getBlockNumber({ cacheTime: 0 });
  const logsOf = (event: typeof AUTHORIZATION_USED | typeof AUTHORIZATION_CANCELED) =>
    client.getLogs({
      address: usdc,
      event,
      args: { authorizer: from, nonce },
      fromBlock: latest > EVM_LOG_LOOKBACK_BLOCKS ? latest - EVM_LOG_LOOKBACK_BLOCKS : 0n,
      toBlock: latest,
    });
  const hash = (await logsOf(AUTHORIZATION_USED))[0]?.transactionHash;
  if (hash) return { state: "landed", transaction: hash };
  // Spent, and no transfer found. An authorization is spent by a transfer to its `to` (this payment's payee: the money
  // moved) or by the payer cancelling it (nothing moved). Only a cancellation seen on chain says failed; otherwise the
  // transfer is there but not visible yet (a node behind the one that answered authorizationState, a reorg between the
  // reads): the chain cannot say, and the payment waits for a later look rather than being failed with its money moved.
  if ((await logsOf(AUTHORIZATION_CANCELED)).length > 0) return { state: "failed" };
  throw new Error(
    `authorization ${nonce} of ${from} is spent, but neither its transfer nor its cancellation is visible yet`,
  );
}

export const EVM_FAMILY: ChainFamilyAdapter & { readonly family: "evm" } = {
  ...CHAIN_FAMILY_FACTS.evm,
  async recheckBeforeSend(_facilitator, _payload, _caip2, verify) {
    // Verify simulates the transfer against the chain as it is now.
    const verdict = await verify();
    return verdict?.isValid ? { proceed: true } : { proceed: false, verdict };
  },
  findLandedSettlement: findEvmSettlement,
  async settlementExpired(facilitator, network, { validBefore }) {
    const client = clientOf(facilitator, network);
    // transferWithAuthorization needs block.timestamp < validBefore; a block already past it means every later one is.
    return validBefore
      ? (await client.getBlock({ blockTag: "latest" })).timestamp * 1000n >= BigInt(validBefore.getTime())
      : false;
  },
  // Settle waits up to the confirm wait for its receipt; nobody else sends the authorization meanwhile (a second
  // transaction for it could only revert, at the relay's expense).
  rebroadcastGapMs: (gapMs, confirmWaitMs) => gapMs + confirmWaitMs,
  async awaitOwnRelay(facilitator, network, transaction, waitMs) {
    // SECURITY: the relayer broadcasts its recorded transaction again itself (evm-relay-ledger.ts) until its nonce is
    // mined; a new transaction for the same authorization would take a second nonce, to revert at best.
    const client = facilitator.evm?.clients[network];
    if (client && waitMs > 0)
      await client
        .waitForTransactionReceipt({ hash: transaction as `0x${string}`, timeout: waitMs })
        .catch(() => undefined);
  },
  async rebroadcast(_facilitator, _network, { transaction }, _waitMs, settleAgain) {
    // Settle verifies the authorization again (unused, still valid) before it sends; a second transaction for it can
    // only revert.
    const result = await settleAgain();
    if (result?.success && result.transaction) return { landed: true, transaction: result.transaction };
    return { landed: false, transaction: result?.transaction || transaction };
  },
  readInflows: (facilitator, network, deposit, sinceSeconds) =>
    evmInflows(
      clientOf(facilitator, network),
      deposit as `0x${string}`,
      facilitator.networks.get(network).usdcAsset as `0x${string}`,
      sinceSeconds,
    ),
  findReorgedPayments: (facilitator, network, recorded) =>
    findReorgedPayments(clientOf(facilitator, network), recorded),
};
