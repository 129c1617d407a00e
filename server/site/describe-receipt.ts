// What the public receipt page says about a stored receipt, worked out on the server: its network by name, when it
// was issued, and for a paid call what was paid, what the call cost and what stayed as the paying key's credit.
// The money follows the ledger: a paid call's settlement credits the whole payment to its payer on the payment's
// network and holds it for the call (ledger/credit-agent.ts); the capture debits the cost, never more than the hold,
// and returns the rest to the spendable balance (ledger/credit-holds.ts). The receipt's fields are the signed ones;
// nothing here is read from anywhere else.
import "server-only";
import { formatUnitsAsUsdc, usdcNumberToUnits, type NetworkRegistry } from "../verify";
import { familyFacts } from "../verify/chain-family-facts";

export interface ReceiptNetwork {
  /** The network as the receipt names it (a CAIP-2 id). */
  id: string;
  /** Its name for people ("Solana devnet"), or null for a network this service does not know. */
  label: string | null;
  /** What a request's `network` field calls it ("devnet", "base-sepolia"), or null when unknown. */
  requestName: string | null;
  family: "svm" | "evm" | null;
  /** What the page calls its payer ("key" on Solana, "address" on an EVM network); "key" when unknown. */
  payerNoun: "key" | "address";
  /** Its payer's key signs prepaid calls, so what a payment kept as credit is spendable by it (false when unknown). */
  payerSignsPrepaid: boolean;
}

/** A paid call's money: paid − min(paid, cost) stays as credit for the payer on the payment's network. */
export interface PaidCallMoney {
  kind: "paid";
  paidUsdc: string;
  costUsdc: string;
  /** What the ledger kept as the payer's prepaid credit. */
  keptUsdc: string;
  /** The cost ran past the payment: the call was charged the whole payment and nothing was kept. */
  costExceededPayment: boolean;
  network: ReceiptNetwork;
  /** The key (Solana) or address (Base) that paid: the credit is its. */
  payer: string;
  /**
   * How the kept credit can be spent: `prepaid` (an Ed25519 key signs prepaid calls on that network), or `not_spendable`
   * (an EVM address cannot sign prepaid requests, which take only Ed25519 keys, so the credit stays on the ledger).
   */
  spending: "prepaid" | "not_spendable";
}

/** A prepaid call: its cost came out of credit already on the ledger; no on-chain payment. */
interface PrepaidCallMoney {
  kind: "prepaid";
  costUsdc: string;
}

export interface ReceiptField {
  key: string;
  /** The signed value as written in the receipt. */
  raw: string;
  /** A Unix-millisecond time, for the page to show in UTC and in the reader's own time. */
  timeMs?: number;
  /** A network's name beside its id. */
  networkLabel?: string | null;
  /** A USDC amount, written as a decimal. */
  usdc?: string;
}

export interface ReceiptDescription {
  inferenceId: string;
  /** When the receipt was issued (its `timestamp`, Unix ms), or null when it has none that reads as a time. */
  issuedAtMs: number | null;
  /** The money of the call, or null when the receipt's amounts do not read as USDC (a malformed receipt). */
  money: PaidCallMoney | PrepaidCallMoney | null;
  /** Every signed field but the signature, with the readable forms the page shows beside the signed values. */
  fields: ReceiptField[];
  /** The payment block's fields, likewise (empty for a prepaid receipt). */
  paymentFields: ReceiptField[];
}

/**
 * The network a receipt names, among `networks` (the service's configured registry): exact CAIP-2 ids and aliases,
 * and Solana's full genesis-hash form; a family name (`solana`) names no one network.
 */
export function describeNetwork(network: string, networks: NetworkRegistry): ReceiptNetwork {
  const id = networks.resolve(network);
  const byName = id === null ? null : networks.get(id);
  // A family name resolves to a default network, which a receipt's network cannot mean.
  const info = byName && byName.familyName !== network.trim() ? byName : networks.ofReceiptNetwork(network);
  if (!info)
    return { id: network, label: null, requestName: null, family: null, payerNoun: "key", payerSignsPrepaid: false };
  const facts = familyFacts(info);
  return {
    id: network,
    label: info.label,
    requestName: info.aliases[0],
    family: info.family,
    payerNoun: facts.payerNoun,
    payerSignsPrepaid: facts.payerSignsPrepaid,
  };
}

/** What the receipt page shows of `receipt`, its network named from `networks` (the service's configured registry). */
export function describeReceipt(receipt: Record<string, unknown>, networks: NetworkRegistry): ReceiptDescription {
  const issuedAtMs = timeOf(receipt.timestamp);
  const payment = isObject(receipt.payment) ? receipt.payment : null;
  const fields = Object.entries(receipt)
    .filter(([key]) => key !== "payment" && key !== "service_signature")
    .map(([key, value]): ReceiptField => {
      const field: ReceiptField = { key, raw: rawText(value) };
      if (key === "timestamp" && issuedAtMs !== null) field.timeMs = issuedAtMs;
      if (key === "cost_usdc") field.usdc = usdcText(value) ?? undefined;
      return field;
    });
  if (typeof receipt.service_signature === "string")
    fields.push({ key: "service_signature", raw: receipt.service_signature });
  const paymentFields = payment
    ? Object.entries(payment).map(([key, value]): ReceiptField => {
        const field: ReceiptField = { key, raw: rawText(value) };
        if (key === "network" && typeof value === "string") field.networkLabel = describeNetwork(value, networks).label;
        if (key === "amount_usdc") field.usdc = usdcText(value) ?? undefined;
        return field;
      })
    : [];
  return {
    inferenceId: rawText(receipt.inference_id),
    issuedAtMs,
    money: moneyOf(receipt, payment, networks),
    fields,
    paymentFields,
  };
}

function moneyOf(
  receipt: Record<string, unknown>,
  payment: Record<string, unknown> | null,
  networks: NetworkRegistry,
): PaidCallMoney | PrepaidCallMoney | null {
  const cost = usdcNumberToUnits(receipt.cost_usdc);
  if (cost === null) return null;
  if (!payment) return { kind: "prepaid", costUsdc: formatUnitsAsUsdc(cost) };
  const paid = usdcNumberToUnits(payment.amount_usdc);
  if (paid === null || typeof payment.network !== "string") return null;
  const charged = cost < paid ? cost : paid;
  const network = describeNetwork(payment.network, networks);
  return {
    kind: "paid",
    paidUsdc: formatUnitsAsUsdc(paid),
    costUsdc: formatUnitsAsUsdc(cost),
    keptUsdc: formatUnitsAsUsdc(paid - charged),
    costExceededPayment: cost > paid,
    network,
    payer: rawText(receipt.agent_pubkey),
    // The prepaid route authenticates an Ed25519 signature by a base58 key (prepaid/signed-request.ts): a Solana
    // payer's key can sign; an EVM payer is a 0x address, which cannot.
    spending: network.payerSignsPrepaid ? "prepaid" : "not_spendable",
  };
}

/** A Unix-millisecond timestamp within the years 2000–2200, else null (an older receipt in seconds reads as null). */
function timeOf(value: unknown): number | null {
  if (typeof value !== "number" || !Number.isSafeInteger(value)) return null;
  return value >= Date.UTC(2000, 0, 1) && value < Date.UTC(2200, 0, 1) ? value : null;
}

function usdcText(value: unknown): string | null {
  const units = usdcNumberToUnits(value);
  return units === null ? null : formatUnitsAsUsdc(units);
}

function rawText(value: unknown): string {
  if (value === undefined) return "";
  return typeof value === "string" ? value : JSON.stringify(value);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
