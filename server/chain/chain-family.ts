// One adapter per chain family (svm-family.ts, evm-family.ts): what the payment path, pending settlements and
// reconcile do differently on a family's chains. Its pure facts are the family's ChainFamilyFacts (browser-safe, in
// server/verify); its behaviour takes the facilitator, and what it needs of its callers as arguments. family-adapter.ts
// picks a row's adapter; nothing else compares a row's family (eslint.config.mjs forbids it).
import type { PaymentPayload, SettleResponse, VerifyResponse } from "@x402/core/types";
import type { Facilitator } from "../facilitator/create-facilitator";
import type { ChainFamilyFacts } from "../verify/chain-family-facts";
import type { NetworkId } from "../verify";
import type { Inflow } from "./chain-inflows";
import type { ReorgedPayment } from "./evm-reorgs";

export type LandedSettlement = { state: "landed"; transaction: string } | { state: "failed" } | { state: "absent" };
/** A broadcast settlement's fate: as LandedSettlement, or `expired`: absent, and it can never land any more. */
export type PendingSettlementState = LandedSettlement | { state: "expired" };

/** What decides when a payload's settlement can no longer land: a Solana blockhash, or an authorization's validBefore. */
export interface SettlementExpiry {
  blockhash: string | null;
  validBefore: Date | null;
}

/** Whether a settlement may be sent now, after another of its payer's was sent since it verified. */
type RecheckVerdict = { proceed: true } | { proceed: false; verdict: VerifyResponse | null };

/** A pending settlement sent again: it landed (as `transaction`), or it is still to be looked for as `transaction`. */
type RebroadcastResult = { landed: boolean; transaction: string };

/** A pending settlement as its row holds it. */
interface PendingTransfer {
  payload: PaymentPayload;
  /** The transaction broadcast for it. */
  transaction: string;
  /** The blockhash its Solana transaction was built on, when recorded. */
  blockhash: string | null;
}

export interface ChainFamilyAdapter extends ChainFamilyFacts {
  /**
   * Asks the chain again right before sending a settlement (another of its payer's was sent since it verified), so a
   * payer funded for one call cannot make the facilitator send transactions bound to fail. `verify` verifies the
   * payment afresh (null when the chain could not be reached).
   */
  recheckBeforeSend(
    facilitator: Facilitator,
    payload: PaymentPayload,
    caip2: string,
    verify: () => Promise<VerifyResponse | null>,
  ): Promise<RecheckVerdict>;
  /** Whether the settlement of `payload` is on chain, from the payload alone. Throws when the chain cannot be read. */
  findLandedSettlement(
    facilitator: Facilitator,
    network: NetworkId,
    payload: PaymentPayload,
  ): Promise<LandedSettlement>;
  /** Whether a settlement with this expiry can no longer land (as of the chain's head). Throws when the chain cannot be read. */
  settlementExpired(facilitator: Facilitator, network: NetworkId, expiry: SettlementExpiry): Promise<boolean>;
  /** How long after a pending settlement's last broadcast it may be sent again, given the base gap and the settle wait. */
  rebroadcastGapMs(gapMs: number, confirmWaitMs: number): number;
  /**
   * Where the relayer broadcasts its own recorded transactions again (EVM's relay ledger): waits up to `waitMs` for
   * `transaction` to be mined instead of sending anything. Null where nobody rebroadcasts for the service.
   */
  awaitOwnRelay:
    ((facilitator: Facilitator, network: NetworkId, transaction: string, waitMs: number) => Promise<void>) | null;
  /**
   * Sends a pending settlement again and waits up to `waitMs` for it: Solana the identical transaction; EVM the same
   * authorization through `settleAgain` (settle verifies it again first; it can be spent once).
   */
  rebroadcast(
    facilitator: Facilitator,
    network: NetworkId,
    pending: PendingTransfer,
    waitMs: number,
    settleAgain: () => Promise<SettleResponse | null>,
  ): Promise<RebroadcastResult>;
  /** Every USDC transfer into `deposit` on the network, back to `sinceSeconds`. Throws when the chain cannot be read. */
  readInflows(
    facilitator: Facilitator,
    network: NetworkId,
    deposit: string,
    sinceSeconds: number | null,
  ): Promise<Inflow[]>;
  /** Which recorded settlements a reorg took out of the canonical chain (none on a family whose confirmed blocks stay). */
  findReorgedPayments(
    facilitator: Facilitator,
    network: NetworkId,
    recorded: { id: string; txSignature: string | null; units: bigint }[],
  ): Promise<ReorgedPayment[]>;
}
