// An EVM chain held in memory, with the facilitator and the payment gateway the payment code reaches it through. The
// test decides every step: what the next settle does (lands, is sent and not seen within the wait, is refused, fails
// on chain, throws), and later what happens to a transaction still out (it lands, stays dropped, its validBefore
// passes, a reorg takes it back). Nothing waits on a timer. The payment code's chain lookups go through the real
// family adapter (server/chain/evm-family.ts) to this chain's read client, which answers exactly the reads that
// adapter makes and throws on any other; every other facilitator part a test should never reach throws too.
import { randomBytes } from "node:crypto";
import { encodePaymentSignatureHeader } from "@x402/core/http";
import type {
  PaymentPayload,
  PaymentRequired,
  PaymentRequirements,
  SettleResponse,
  VerifyResponse,
} from "@x402/core/types";
import type { PublicClient } from "viem";
import type { Facilitator } from "../../../facilitator/create-facilitator";
import type { EvmFacilitator } from "../../../facilitator/create-evm-facilitator";
import type { PaymentGateway } from "../../../x402/payment-gateway";
import type { OfferReceipts } from "../../../x402/offer-receipt";
import type { NetworkId, NetworkRegistry, NetworkRow } from "../../../verify";

/** What the next settle does. */
export type SettleScript =
  /** Sent and confirmed within the wait: the authorization is spent, the money moved. */
  | "land"
  /** Sent, and its confirmation not seen within the wait (the stock scheme's `settlement_pending`): it is out there. */
  | "unconfirmed"
  /** Refused before anything was sent (the scheme's own verification failed). */
  | "refuse"
  /** Sent, never seen, and the head passed its validBefore during the wait: it can never land. */
  | "expire"
  /** Sent and failed on chain: the authorization is cancelled, no money moved. */
  | "fail"
  /** The facilitator threw (an RPC fault mid-settle). */
  | "throw"
  /** Sent and landed, and then the facilitator threw while it waited for the confirmation. */
  | "land-then-throw";

/** A refused verification, as the stock scheme words it. */
export interface VerifyRefusal {
  invalidReason: string;
  invalidMessage?: string;
}

interface Authorization {
  from: string;
  to: string;
  value: bigint;
  validBefore: bigint;
  nonce: string;
}

/** One authorization's fate on the chain. */
interface Spend {
  state: "unused" | "sent" | "used" | "cancelled";
  transaction: string | null;
}

/** A payment built for a test: its header, and the payload the service will decode from it. */
export interface FakePayment {
  header: string;
  payload: PaymentPayload;
  payer: string;
  nonce: string;
}

/** A verification held until the test lets it go: `reached` resolves once the service asked. */
export interface HeldStep {
  reached: Promise<void>;
  release(): void;
}

export interface FakeChain {
  network: NetworkRow;
  facilitator: Facilitator;
  gateway: PaymentGateway;
  /** A payment of `requirements` by `payer` (a fresh one each call unless given). */
  pay(
    requirements: PaymentRequirements,
    options?: { payer?: string; nonce?: string; validBefore?: bigint; paymentId?: string; value?: bigint },
  ): FakePayment;
  /** Gives `payer` `units` of USDC (a payer holds none until funded). */
  fund(payer: string, units: bigint): void;
  /** What the next settles do, in order; after them, each settle lands. */
  scriptSettles(...steps: SettleScript[]): void;
  /** The next verifications are refused so, in order. */
  refuseVerifies(...refusals: VerifyRefusal[]): void;
  /** The next verification throws (the RPC did not answer). */
  failNextVerify(): void;
  /** Holds the next verification until released. */
  holdNextVerify(): HeldStep;
  /** Holds the next settle until released (a server stopped mid-settlement, until the test lets it go on). */
  holdNextSettle(): HeldStep;
  /** The transaction sent for `payment` and not confirmed yet lands now. */
  land(payment: FakePayment): string;
  /** The transaction sent for `payment` is dropped: the authorization is unused again, and can still be sent. */
  drop(payment: FakePayment): void;
  /** The transaction sent for `payment` fails on chain (its authorization cancelled): no money moved. */
  cancel(payment: FakePayment): void;
  /** The chain's head passes `payment`'s validBefore: an unused authorization can never land any more. */
  expire(payment: FakePayment): void;
  /**
   * A reorg takes back `payment`'s landed transaction: the authorization is unused again and the transaction is back
   * out, unconfirmed (it may land again, or be dropped).
   */
  reorg(payment: FakePayment): void;
  /** The spend state of `payment`'s authorization. */
  spendOf(payment: FakePayment): Spend;
  /** The payer's USDC. */
  balanceOf(payer: string): bigint;
  /** Every call the service made, by name ("verify", "settle", "readContract", …), in order. */
  calls: string[];
}

/** What awaiting, printing or matching a value looks up without using it. */
const INSPECTED = new Set([
  "then",
  "toJSON",
  "constructor",
  "asymmetricMatch",
  "$$typeof",
  "nodeType",
  "tagName",
  "@@__IMMUTABLE_ITERABLE__@@",
  "@@__IMMUTABLE_RECORD__@@",
]);

/** Throws on any property no caller should reach: a fake that should not be called says so. */
function unreachable<T extends object>(name: string, present: Partial<T>): T {
  return new Proxy(present, {
    get(target, prop, receiver) {
      if (prop in target || typeof prop === "symbol" || INSPECTED.has(prop))
        return Reflect.get(target, prop, receiver) as unknown;
      throw new Error(`fake ${name}: unexpected use of ${String(prop)}`);
    },
  }) as T;
}

/** A step held until the test releases it. */
interface Held {
  reached(): void;
  gate: Promise<void>;
}

function holdStep(): { held: Held; step: HeldStep } {
  let reached!: () => void;
  let release!: () => void;
  const reachedP = new Promise<void>((r) => (reached = r));
  const gate = new Promise<void>((r) => (release = r));
  return { held: { reached, gate }, step: { reached: reachedP, release } };
}

async function pass(held: Held): Promise<void> {
  held.reached();
  await held.gate;
}

const hex = (bytes: number) => `0x${randomBytes(bytes).toString("hex")}`;

/** An EVM chain for `networkId` of `networks`; its head starts at `headSeconds` (unix seconds). */
export function createFakeChain(opts: {
  networks: NetworkRegistry;
  networkId: NetworkId;
  headSeconds: number;
  confirmWaitMs?: number;
  offerReceipts: OfferReceipts;
}): FakeChain {
  const { networks } = opts;
  const network = networks.get(opts.networkId);
  if (!network.eip712) throw new Error(`fake chain: ${network.id} is not an EVM network`);
  const relayer = hex(20) as `0x${string}`;
  const spends = new Map<string, Spend>();
  const balances = new Map<string, bigint>();
  const settles: SettleScript[] = [];
  const refusals: VerifyRefusal[] = [];
  let verifyThrows = false;
  let heldVerify: Held | null = null;
  let heldSettle: Held | null = null;
  let headSeconds = BigInt(opts.headSeconds);
  const calls: string[] = [];

  const keyOf = (from: string, nonce: string) => `${from.toLowerCase()}:${nonce.toLowerCase()}`;
  const spendOf = (from: string, nonce: string): Spend => {
    const key = keyOf(from, nonce);
    let spend = spends.get(key);
    if (!spend) spends.set(key, (spend = { state: "unused", transaction: null }));
    return spend;
  };
  const authorizationOf = (payload: PaymentPayload): Authorization => {
    const auth = (payload.payload as { authorization?: Record<string, string> }).authorization;
    if (!auth) throw new Error("fake chain: not an EIP-3009 payload");
    return {
      from: auth.from!,
      to: auth.to!,
      value: BigInt(auth.value!),
      validBefore: BigInt(auth.validBefore!),
      nonce: auth.nonce!,
    };
  };
  const balanceOf = (payer: string) => balances.get(payer.toLowerCase()) ?? 0n;

  /** The chain's own verdict on an authorization, as the stock EVM scheme's verify simulates it. */
  const chainVerdict = (auth: Authorization, requirements: PaymentRequirements): VerifyResponse => {
    const spend = spendOf(auth.from, auth.nonce);
    if (spend.state !== "unused")
      return { isValid: false, invalidReason: "invalid_exact_evm_payload_authorization_nonce_used", payer: auth.from };
    if (headSeconds >= auth.validBefore)
      return {
        isValid: false,
        invalidReason: "invalid_exact_evm_payload_authorization_valid_before",
        payer: auth.from,
      };
    if (auth.to.toLowerCase() !== requirements.payTo.toLowerCase())
      return { isValid: false, invalidReason: "invalid_exact_evm_payload_recipient_mismatch", payer: auth.from };
    if (balanceOf(auth.from) < auth.value)
      return { isValid: false, invalidReason: "insufficient_funds", payer: auth.from };
    return { isValid: true, payer: auth.from };
  };

  const spend = (auth: Authorization, transaction: string) => {
    const s = spendOf(auth.from, auth.nonce);
    s.state = "used";
    s.transaction = transaction;
    balances.set(auth.from.toLowerCase(), balanceOf(auth.from) - auth.value);
  };

  async function verify(payload: PaymentPayload, requirements: PaymentRequirements): Promise<VerifyResponse> {
    calls.push("verify");
    const throws = verifyThrows;
    verifyThrows = false;
    const refusal = refusals.shift();
    const auth = authorizationOf(payload);
    // The verdict is the chain's as the verification found it; a held one answers only when released.
    const verdict: VerifyResponse = refusal
      ? { isValid: false, ...refusal, payer: auth.from }
      : chainVerdict(auth, requirements);
    const held = heldVerify;
    heldVerify = null;
    if (held) await pass(held);
    if (throws) throw new Error("fake chain: the RPC did not answer");
    return verdict;
  }

  async function settle(payload: PaymentPayload, requirements: PaymentRequirements): Promise<SettleResponse> {
    calls.push("settle");
    const held = heldSettle;
    heldSettle = null;
    if (held) await pass(held);
    const step = settles.shift() ?? "land";
    const auth = authorizationOf(payload);
    const caip2 = network.caip2 as SettleResponse["network"];
    if (step === "throw") throw new Error("fake chain: the RPC failed mid-settle");
    const verdict = chainVerdict(auth, requirements);
    if (step === "land-then-throw" && verdict.isValid) {
      spend(auth, hex(32));
      throw new Error("fake chain: the RPC failed while the settlement was confirmed");
    }
    if (step === "refuse" || !verdict.isValid) {
      return {
        success: false,
        errorReason: verdict.invalidReason ?? "invalid_exact_evm_payload_signature",
        transaction: "",
        network: caip2,
        payer: auth.from,
      };
    }
    const transaction = hex(32);
    if (step === "land") {
      spend(auth, transaction);
      return { success: true, transaction, network: caip2, payer: auth.from };
    }
    const s = spendOf(auth.from, auth.nonce);
    if (step === "unconfirmed" || step === "expire") {
      s.state = "sent";
      s.transaction = transaction;
      if (step === "expire" && headSeconds < auth.validBefore) headSeconds = auth.validBefore;
      return { success: false, errorReason: "settlement_pending", transaction, network: caip2, payer: auth.from };
    }
    s.state = "cancelled";
    s.transaction = transaction;
    return { success: false, errorReason: "transaction_failed", transaction, network: caip2, payer: auth.from };
  }

  // The reads evm-family.ts makes: authorizationState, the head, the authorization's logs, the latest block's time.
  const client = unreachable<PublicClient>("EVM read client", {
    readContract: (async (args: { functionName: string; args: readonly [string, string] }) => {
      calls.push("readContract");
      if (args.functionName !== "authorizationState")
        throw new Error(`fake EVM read client: unexpected readContract ${args.functionName}`);
      const [from, nonce] = args.args;
      const state = spendOf(from, nonce).state;
      return state === "used" || state === "cancelled";
    }) as never,
    getBlockNumber: (async () => {
      calls.push("getBlockNumber");
      return 1_000_000n;
    }) as never,
    getLogs: (async (args: { event: { name: string }; args: { authorizer: string; nonce: string } }) => {
      calls.push(`getLogs:${args.event.name}`);
      const s = spendOf(args.args.authorizer, args.args.nonce);
      const wanted =
        args.event.name === "AuthorizationUsed"
          ? "used"
          : args.event.name === "AuthorizationCanceled"
            ? "cancelled"
            : null;
      if (wanted === null) throw new Error(`fake EVM read client: unexpected log ${args.event.name}`);
      return s.state === wanted ? [{ transactionHash: s.transaction }] : [];
    }) as never,
    getBlock: (async (args: { blockTag?: string }) => {
      calls.push("getBlock");
      if (args.blockTag !== "latest") throw new Error("fake EVM read client: only the latest block is kept");
      return { timestamp: headSeconds };
    }) as never,
  });

  const facilitator = unreachable<Facilitator>("facilitator", {
    networks,
    address: "FakeFeePayer1111111111111111111111111111111",
    rpcs: {},
    rpcUrls: {},
    evm: unreachable<EvmFacilitator>("EVM facilitator", {
      address: relayer,
      rpcUrls: { [network.id]: "http://fake-chain.invalid" },
      clients: { [network.id]: client },
    }),
    forgetSimulation: () => {
      throw new Error("fake facilitator: forgetSimulation is Solana's, and this chain is EVM");
    },
    confirmWaitMs: opts.confirmWaitMs ?? 10_000,
  });

  const requirementsOf = (id: NetworkId, amountUnits: bigint, payTo: string): PaymentRequirements => {
    const info = networks.get(id);
    return {
      scheme: "exact",
      network: info.caip2 as PaymentRequirements["network"],
      asset: info.usdcAsset,
      amount: amountUnits.toString(),
      payTo,
      maxTimeoutSeconds: 120,
      extra: {
        ...(info.eip712 ? { ...info.eip712, primaryType: "TransferWithAuthorization" } : {}),
        paymentFlow: "upfront",
      },
    };
  };

  const gateway = unreachable<PaymentGateway>("payment gateway", {
    facilitator,
    offerReceipts: opts.offerReceipts,
    supports: (id) => id === network.id,
    requirements: async (id, amountUnits, payTo) => {
      if (id !== network.id) throw new Error(`fake gateway: no chain for ${id}`);
      return requirementsOf(id, amountUnits, payTo);
    },
    paymentRequired: async (requirements, resource, error): Promise<PaymentRequired> => ({
      x402Version: 2,
      ...(error ? { error } : {}),
      resource: { url: resource.url, description: resource.description, mimeType: "application/json" },
      accepts: [requirements],
    }),
    declaredExtensions: () => ({}),
    match(requirements, payload) {
      const a = payload.accepted;
      const same =
        a.scheme === requirements.scheme &&
        a.network === requirements.network &&
        a.amount === requirements.amount &&
        a.asset.toLowerCase() === requirements.asset.toLowerCase() &&
        a.payTo.toLowerCase() === requirements.payTo.toLowerCase();
      return same ? requirements : null;
    },
    verify,
    settle,
  });

  const find = (payment: FakePayment) => spendOf(payment.payer, payment.nonce);

  return {
    network,
    facilitator,
    gateway,
    calls,
    pay(requirements, options = {}) {
      const payer = (options.payer ?? hex(20)).toLowerCase();
      const nonce = options.nonce ?? hex(32);
      const authorization = {
        from: payer,
        to: requirements.payTo,
        value: (options.value ?? BigInt(requirements.amount)).toString(),
        validAfter: "0",
        validBefore: (options.validBefore ?? headSeconds + 120n).toString(),
        nonce,
      };
      const payload = {
        x402Version: 2,
        resource: {
          url: "https://signet.test/api/v1/chat/completions",
          description: "chat",
          mimeType: "application/json",
        },
        accepted: requirements,
        payload: { signature: hex(65), authorization },
        ...(options.paymentId
          ? { extensions: { "payment-identifier": { info: { required: false, id: options.paymentId } } } }
          : {}),
      } as PaymentPayload;
      return { header: encodePaymentSignatureHeader(payload), payload, payer, nonce };
    },
    fund(payer, units) {
      balances.set(payer.toLowerCase(), balanceOf(payer) + units);
    },
    scriptSettles: (...steps) => void settles.push(...steps),
    refuseVerifies: (...list) => void refusals.push(...list),
    failNextVerify: () => void (verifyThrows = true),
    holdNextVerify() {
      const { held, step } = holdStep();
      heldVerify = held;
      return step;
    },
    holdNextSettle() {
      const { held, step } = holdStep();
      heldSettle = held;
      return step;
    },
    land(payment) {
      const s = find(payment);
      if (s.state !== "sent" || !s.transaction)
        throw new Error(`fake chain: no transaction of this payment is out (${s.state})`);
      const auth = authorizationOf(payment.payload);
      spend(auth, s.transaction);
      return s.transaction;
    },
    drop(payment) {
      const s = find(payment);
      if (s.state !== "sent") throw new Error(`fake chain: no transaction of this payment is out (${s.state})`);
      s.state = "unused";
      s.transaction = null;
    },
    cancel(payment) {
      const s = find(payment);
      if (s.state !== "sent") throw new Error(`fake chain: no transaction of this payment is out (${s.state})`);
      s.state = "cancelled";
    },
    expire(payment) {
      const auth = authorizationOf(payment.payload);
      if (headSeconds < auth.validBefore) headSeconds = auth.validBefore;
    },
    reorg(payment) {
      const s = find(payment);
      if (s.state !== "used") throw new Error(`fake chain: this payment's transaction has not landed (${s.state})`);
      const auth = authorizationOf(payment.payload);
      balances.set(auth.from.toLowerCase(), balanceOf(auth.from) + auth.value);
      s.state = "sent";
    },
    spendOf: (payment) => ({ ...find(payment) }),
    balanceOf,
  };
}
