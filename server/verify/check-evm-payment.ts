// On-chain checks 4 and 5 of docs/receipts.md for EVM receipts: the transaction succeeded and the network's USDC
// contract logged a Transfer of exactly the amount to `pay_to`, from the agent. Reads `eth_getTransactionReceipt`.
// `tx.from` is the facilitator that relayed the EIP-3009 authorization, so the payer is the Transfer log's `from`,
// never it.
import { formatUnitsAsUsdc } from "./amounts";
import { jsonRpcCall, type BoundedFetchOptions } from "./json-rpc";
import type { PaymentCheckOutcome } from "./check-solana-payment";

/** keccak256("Transfer(address,address,uint256)"). */
export const ERC20_TRANSFER_TOPIC = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef";

export interface EvmPaymentCheckInput {
  txHash: string;
  payTo: string;
  agentAddress: string;
  usdcContract: string;
  amountUnits: bigint;
  rpcUrl: string;
}

interface TransferLog {
  from: string;
  to: string;
  value: bigint;
}

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const TX_HASH = /^0x[0-9a-fA-F]{64}$/;

/** Runs the two payment checks against an EVM JSON-RPC node. Throws VerifierFetchError when the RPC fails. */
export async function checkEvmPayment(
  input: EvmPaymentCheckInput,
  opts: BoundedFetchOptions,
): Promise<PaymentCheckOutcome> {
  const fail = (why: string): PaymentCheckOutcome => ({
    payment_on_chain_ok: false,
    payer_matches: false,
    reasons: { payment_on_chain_ok: why, payer_matches: why },
  });
  if (!TX_HASH.test(input.txHash)) return fail("tx_signature is not a 0x-prefixed 32-byte EVM transaction hash");
  if (!ADDRESS.test(input.payTo)) return fail("pay_to is not a 0x EVM address");
  if (!ADDRESS.test(input.agentAddress)) return fail("agent_pubkey is not a 0x EVM address");

  const result = await jsonRpcCall(input.rpcUrl, "eth_getTransactionReceipt", [input.txHash], opts);
  const where = `tx ${short(input.txHash)}`;
  if (result === null) return fail(`transaction ${short(input.txHash)} not found`);
  const receipt = asRecord(result);
  if (!receipt) return fail("RPC returned a malformed transaction receipt");
  if (receipt.status !== "0x1") return fail(`transaction ${short(input.txHash)} failed on chain`);
  const block =
    typeof receipt.blockNumber === "string" && /^0x[0-9a-f]+$/i.test(receipt.blockNumber)
      ? ` in block ${BigInt(receipt.blockNumber)}`
      : "";

  const usdc = input.usdcContract.toLowerCase();
  const payTo = input.payTo.toLowerCase();
  const agent = input.agentAddress.toLowerCase();
  const amountText = `${formatUnitsAsUsdc(input.amountUnits)} USDC`;
  // Check 4: a Transfer log of the network's USDC contract, to pay_to, for exactly the amount.
  const payments = readTransferLogs(receipt.logs, usdc).filter((t) => t.to === payTo && t.value === input.amountUnits);
  // Check 5: that transfer came from the agent.
  const fromAgent = payments.some((t) => t.from === agent);

  return {
    payment_on_chain_ok: payments.length > 0,
    payer_matches: fromAgent,
    reasons: {
      payment_on_chain_ok:
        payments.length > 0
          ? `transfer of ${amountText} to ${input.payTo} found in ${where}${block}`
          : `no USDC Transfer (contract ${short(input.usdcContract)}) of exactly ${amountText} to ${input.payTo} in ${where}`,
      payer_matches: fromAgent
        ? `payer ${input.agentAddress} authorized and paid`
        : payments.length > 0
          ? `the transfer to ${input.payTo} came from ${payments[0]!.from}, not ${input.agentAddress}`
          : `no transfer from ${input.agentAddress} in ${where}`,
    },
  };
}

/** The ERC-20 Transfer logs emitted by `contract` (lower-case), decoded. Malformed logs are skipped. */
function readTransferLogs(logs: unknown, contract: string): TransferLog[] {
  if (!Array.isArray(logs)) return [];
  const out: TransferLog[] = [];
  for (const item of logs) {
    const log = asRecord(item);
    if (!log || typeof log.address !== "string" || log.address.toLowerCase() !== contract) continue;
    if (log.removed === true) continue;
    const topics = log.topics;
    if (!Array.isArray(topics) || topics.length !== 3 || typeof log.data !== "string") continue;
    const [topic0, fromTopic, toTopic] = topics as unknown[];
    if (typeof topic0 !== "string" || topic0.toLowerCase() !== ERC20_TRANSFER_TOPIC) continue;
    const from = topicAddress(fromTopic);
    const to = topicAddress(toTopic);
    if (!from || !to || !/^0x[0-9a-fA-F]{64}$/.test(log.data)) continue;
    out.push({ from, to, value: BigInt(log.data) });
  }
  return out;
}

/** An indexed address topic (32 bytes, 12 zero bytes then the address) as a lower-case 0x address. */
function topicAddress(topic: unknown): string | null {
  if (typeof topic !== "string" || !/^0x0{24}[0-9a-fA-F]{40}$/.test(topic)) return null;
  return `0x${topic.slice(26).toLowerCase()}`;
}

function asRecord(value: unknown): Record<string, unknown> | null {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : null;
}

function short(text: string): string {
  return text.length > 12 ? `${text.slice(0, 6)}…${text.slice(-4)}` : text;
}
