// After a crash between claiming a payment and recording its settlement, the chain is the only witness of whether the
// money moved. These lookups answer it from the payment payload itself, without trusting any stored state:
// - Solana: the transaction id is the fee payer's signature, and Ed25519 signatures are deterministic, so the
//   facilitator can compute the id its settlement had (or would have) and ask for its status;
// - EVM: an EIP-3009 authorization is spent at most once; `authorizationState(from, nonce)` says whether it was, and
//   the token's AuthorizationUsed log names the transaction (an AuthorizationCanceled one: the payer cancelled it).
import "server-only";
import { getBase58Decoder, getBase64EncodedWireTransaction, getTransactionDecoder, signBytes, type Signature } from "@solana/kit";
import type { PaymentPayload } from "@x402/core/types";
import { eip3009ABI } from "@x402/evm";
import { parseAbiItem } from "viem";
import type { Facilitator } from "../facilitator/create-facilitator";
import type { NetworkId } from "../verify";
import { blockhashOfWire } from "../facilitator/confirm-with-rebroadcast";

export type LandedSettlement = { state: "landed"; transaction: string } | { state: "failed" } | { state: "absent" };
/** A broadcast settlement's fate: as LandedSettlement, or `expired`: absent, and it can never land any more. */
export type PendingSettlementState = LandedSettlement | { state: "expired" };

const AUTHORIZATION_USED = parseAbiItem("event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)");
/** EIP-3009's cancelAuthorization: the payer spends its own authorization, and no money moves. */
const AUTHORIZATION_CANCELED = parseAbiItem("event AuthorizationCanceled(address indexed authorizer, bytes32 indexed nonce)");
/** How far back an authorization's transaction is looked for (a claim is minutes old; Base makes a block per 2 s). */
const EVM_LOG_LOOKBACK_BLOCKS = 10_000n;

/** Whether the settlement of `payload` is on chain. Throws when the chain cannot be read (try again later). */
export async function findLandedSettlement(facilitator: Facilitator, network: NetworkId, payload: PaymentPayload): Promise<LandedSettlement> {
  return facilitator.networks.get(network).family === "evm" ? findEvmSettlement(facilitator, network, payload) : findSolanaSettlement(facilitator, network, payload);
}

/** The id the facilitator's settlement of this payload has: its own signature over the transaction message. */
async function expectedSolanaTransactionId(facilitator: Facilitator, payload: PaymentPayload): Promise<string | null> {
  const signed = await coSign(facilitator, payload);
  return signed ? getBase58Decoder().decode(signed.signature) : null;
}

/** The client's transaction and the fee payer's signature over its message; null when the payload carries none. */
async function coSign(facilitator: Facilitator, payload: PaymentPayload) {
  const wire = (payload.payload as { transaction?: unknown }).transaction;
  if (typeof wire !== "string") return null;
  try {
    const tx = getTransactionDecoder().decode(Buffer.from(wire, "base64"));
    const signature = await signBytes(facilitator.signer.keyPair.privateKey, tx.messageBytes as unknown as Uint8Array);
    return { tx, signature };
  } catch {
    return null;
  }
}

async function findSolanaSettlement(facilitator: Facilitator, network: NetworkId, payload: PaymentPayload): Promise<LandedSettlement> {
  const rpc = facilitator.rpcs[network];
  if (!rpc) throw new Error(`no RPC for ${network}`);
  const id = await expectedSolanaTransactionId(facilitator, payload);
  if (!id) return { state: "absent" };
  const { value } = await rpc.getSignatureStatuses([id as Signature], { searchTransactionHistory: true }).send();
  const status = value[0];
  if (!status) return { state: "absent" };
  // SECURITY: a transaction seen only at `processed` can still be dropped with its fork; it is neither landed nor
  // failed until `confirmed`. Until then the chain cannot say, and the claim waits for a later retry.
  if (status.confirmationStatus !== "confirmed" && status.confirmationStatus !== "finalized") {
    throw new Error(`settlement ${id} is only ${status.confirmationStatus ?? "seen"}, not yet confirmed`);
  }
  return status.err === null ? { state: "landed", transaction: id } : { state: "failed" };
}

async function findEvmSettlement(facilitator: Facilitator, network: NetworkId, payload: PaymentPayload): Promise<LandedSettlement> {
  const client = facilitator.evm?.clients[network];
  if (!client) throw new Error(`no RPC for ${network}`);
  const auth = (payload.payload as { authorization?: { from?: unknown; nonce?: unknown } }).authorization;
  // Only EIP-3009 can be looked up. Anything else (Permit2) is refused by the facilitator at verify and at settle, so
  // it is never claimed, and a recovery that settles it is refused before anything is sent.
  if (typeof auth?.from !== "string" || typeof auth.nonce !== "string") return { state: "absent" };
  const from = auth.from as `0x${string}`;
  const nonce = auth.nonce as `0x${string}`;
  const usdc = facilitator.networks.get(network).usdcAsset as `0x${string}`;
  const used = await client.readContract({ address: usdc, abi: eip3009ABI, functionName: "authorizationState", args: [from, nonce] });
  if (!used) return { state: "absent" };
  // The head as of now: viem would answer from its cache, up to its polling interval old, and the block that spent the
  // authorization (just read as spent) could lie past a cached head.
  const latest = await client.getBlockNumber({ cacheTime: 0 });
  const logsOf = (event: typeof AUTHORIZATION_USED | typeof AUTHORIZATION_CANCELED) =>
    client.getLogs({ address: usdc, event, args: { authorizer: from, nonce }, fromBlock: latest > EVM_LOG_LOOKBACK_BLOCKS ? latest - EVM_LOG_LOOKBACK_BLOCKS : 0n, toBlock: latest });
  const hash = (await logsOf(AUTHORIZATION_USED))[0]?.transactionHash;
  if (hash) return { state: "landed", transaction: hash };
  // Spent, and no transfer found. An authorization is spent by a transfer to its `to` (this payment's payee: the money
  // moved) or by the payer cancelling it (nothing moved). Only a cancellation seen on chain says failed; otherwise the
  // transfer is there but not visible yet (a node behind the one that answered authorizationState, a reorg between the
  // reads): the chain cannot say, and the payment waits for a later look rather than being failed with its money moved.
  if ((await logsOf(AUTHORIZATION_CANCELED)).length > 0) return { state: "failed" };
  throw new Error(`authorization ${nonce} of ${from} is spent, but neither its transfer nor its cancellation is visible yet`);
}

/** What decides when a payload's settlement can no longer land: a Solana blockhash, or an authorization's validBefore. */
export function settlementExpiry(payload: PaymentPayload): { blockhash: string | null; validBefore: Date | null } {
  const inner = payload.payload as { transaction?: unknown; authorization?: { validBefore?: unknown } };
  const blockhash = typeof inner.transaction === "string" ? blockhashOfWire(inner.transaction) : null;
  const before = inner.authorization?.validBefore;
  const validBefore = typeof before === "string" && /^\d{1,15}$/.test(before) ? new Date(Number(before) * 1000) : null;
  return { blockhash, validBefore };
}

/**
 * Whether a broadcast settlement of `payload` landed, failed, can still land (`absent`), or never can (`expired`).
 * What decides expiry is read FIRST and the settlement after, so one that lands between the two reads is seen as
 * landed, never as expired. Throws when the chain cannot be read.
 */
export async function findPendingSettlement(facilitator: Facilitator, network: NetworkId, payload: PaymentPayload): Promise<PendingSettlementState> {
  const { blockhash, validBefore } = settlementExpiry(payload);
  let expired = false;
  if (facilitator.networks.get(network).family === "svm") {
    const rpc = facilitator.rpcs[network];
    if (!rpc) throw new Error(`no RPC for ${network}`);
    if (blockhash) expired = !(await rpc.isBlockhashValid(blockhash as never, { commitment: "confirmed" }).send()).value;
  } else {
    const client = facilitator.evm?.clients[network];
    if (!client) throw new Error(`no RPC for ${network}`);
    // transferWithAuthorization needs block.timestamp < validBefore; a block already past it means every later one is.
    if (validBefore) expired = (await client.getBlock({ blockTag: "latest" })).timestamp * 1000n >= BigInt(validBefore.getTime());
  }
  const landed = await findLandedSettlement(facilitator, network, payload);
  return landed.state === "absent" && expired ? { state: "expired" } : landed;
}

/** The fully signed wire of a Solana payload's settlement: the client's transaction with the fee payer's signature. */
export async function solanaSettlementWire(facilitator: Facilitator, payload: PaymentPayload): Promise<string | null> {
  const signed = await coSign(facilitator, payload);
  if (!signed) return null;
  const { tx, signature } = signed;
  return getBase64EncodedWireTransaction({ ...tx, signatures: { ...tx.signatures, [facilitator.signer.address]: signature } } as never);
}
