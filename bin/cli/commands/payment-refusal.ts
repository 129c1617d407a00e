// What `signet chat` says when the service refuses its payment (HTTP 402): the refusal in plain words (nothing was
// charged), and, when the payer holds too little USDC, how to fund it: on a service and chain on this machine (dev)
// with `signet localnet fund`; elsewhere, the payer, the network and the amount the challenge asks for, or a grant.
import { formatUnitsAsUsdc } from "../../../server/verify";

/** The fewest USDC `localnet fund` is told to mint: enough for many calls at a dev price. */
const LOCAL_FUND_UNITS = 1_000_000n;

export interface PaymentRefusal {
  /** The error's stable `reason` (insufficient_balance, payment_expired, …); null when it named none. */
  reason: string | null;
  /** The error's message. */
  message: string;
  /** The address that paid: a base58 key, or a 0x address. */
  payer: string;
  /** What the 402's challenge asks for; null when it carried none that could be read. */
  asks: { units: bigint; networkLabel: string; asset: string } | null;
  /** The service's origin. */
  endpoint: string;
  /** Both the service and the chain paid on are on this machine: a dev stack, whose local chain funds any address. */
  local: boolean;
  /** The RPC `signet localnet fund` must be given (the chain paid on is not its default one); null when its default is it. */
  fundRpc: string | null;
}

/** The lines to print on stderr, the refusal first. */
export function paymentRefusalLines(r: PaymentRefusal): string[] {
  // The reason's code once: the service's message often ends with it already.
  const said =
    r.reason === null
      ? r.message || "no reason given"
      : !r.message
        ? r.reason
        : r.message.includes(r.reason)
          ? r.message
          : `${r.reason}: ${r.message}`;
  const lines = [`signet: the service refused the payment (HTTP 402 payment_required): ${said}; nothing was charged`];
  if (r.reason !== "insufficient_balance") return lines;
  const price = r.asks ? `${formatUnitsAsUsdc(r.asks.units)} USDC` : null;
  lines.push(
    r.asks
      ? `  the payer ${r.payer} holds less than ${price} on ${r.asks.networkLabel}, the price of this call.`
      : `  the payer ${r.payer} holds too little USDC for this call.`,
  );
  if (r.local) {
    const units = r.asks && r.asks.units > LOCAL_FUND_UNITS ? r.asks.units : LOCAL_FUND_UNITS;
    lines.push(
      `  fund it on the local chain: npm run -s signet -- localnet fund ${r.payer} --usdc ${formatUnitsAsUsdc(units)}${r.fundRpc ? ` --rpc ${r.fundRpc}` : ""}`,
    );
    return lines;
  }
  if (r.asks)
    lines.push(
      `  fund it: send at least ${price} (USDC, asset ${r.asks.asset}) on ${r.asks.networkLabel} to ${r.payer}, then run the command again.`,
    );
  else lines.push(`  fund it with USDC on the network paid on, then run the command again.`);
  lines.push(
    `  or, with a Solana key, claim a free grant (${r.endpoint}/grants, or signet grant) and spend it with prepaid calls (signet infer).`,
  );
  return lines;
}
