// A Solana payment built as a stock client builds one (a TransferChecked of USDC from the payer's token account,
// signed by the payer, the fee payer's signature left for the facilitator), and a Solana RPC held in memory that
// answers the reads the payment code makes of one (a token account's balance, a signature's status, whether a
// blockhash is still valid) from what the test set, and throws on any other.
import {
  AccountRole,
  address,
  appendTransactionMessageInstruction,
  compileTransaction,
  createTransactionMessage,
  generateKeyPairSigner,
  getBase64EncodedWireTransaction,
  partiallySignTransaction,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
  type Blockhash,
  type Rpc,
  type SolanaRpcApi,
} from "@solana/kit";
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";

const TOKEN_PROGRAM = address("TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA");
/** SPL Token's TransferChecked instruction tag. */
const TRANSFER_CHECKED = 12;

/** A Solana payment's payload, and the accounts it names. */
export interface FakeSolanaPayment {
  payload: PaymentPayload;
  /** The payer's USDC token account: the transfer's source. */
  source: string;
  owner: string;
  blockhash: string;
}

/** A payment of `amount` USDC units to `destination`, fee payer `feePayer`, on `blockhash`, for `accepted`. */
export async function solanaPayment(opts: {
  accepted: PaymentRequirements;
  feePayer: string;
  amount: bigint;
  blockhash?: string;
}): Promise<FakeSolanaPayment> {
  const owner = await generateKeyPairSigner();
  const [source, destination] = [(await generateKeyPairSigner()).address, (await generateKeyPairSigner()).address];
  const blockhash = (opts.blockhash ?? (await generateKeyPairSigner()).address) as string as Blockhash;
  const data = new Uint8Array(10);
  data[0] = TRANSFER_CHECKED;
  new DataView(data.buffer).setBigUint64(1, opts.amount, true);
  data[9] = 6;
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayer(address(opts.feePayer), m),
    (m) => setTransactionMessageLifetimeUsingBlockhash({ blockhash, lastValidBlockHeight: 1_000n }, m),
    (m) =>
      appendTransactionMessageInstruction(
        {
          programAddress: TOKEN_PROGRAM,
          accounts: [
            { address: source, role: AccountRole.WRITABLE },
            { address: address(opts.accepted.asset), role: AccountRole.READONLY },
            { address: destination, role: AccountRole.WRITABLE },
            { address: owner.address, role: AccountRole.READONLY_SIGNER },
          ],
          data,
        },
        m,
      ),
  );
  const signed = await partiallySignTransaction([owner.keyPair], compileTransaction(message));
  const transaction = getBase64EncodedWireTransaction(signed);
  const payload = {
    x402Version: 2,
    resource: { url: "https://signet.test/api/v1/chat/completions" },
    accepted: opts.accepted,
    payload: { transaction },
  } as PaymentPayload;
  return { payload, source, owner: owner.address, blockhash };
}

/** What the fake RPC answers from: token accounts' balances (absent: no such account). */
export interface FakeSolanaLedger {
  balances: Map<string, bigint>;
  /** Every read the service made, by method name, in order. */
  calls: string[];
}

/** A Solana RPC answering getTokenAccountBalance from `ledger`; any other method throws. */
export function fakeSolanaRpc(ledger: FakeSolanaLedger): Rpc<SolanaRpcApi> {
  const methods: Record<string, (...args: unknown[]) => { send(): Promise<unknown> }> = {
    getTokenAccountBalance: (account) => ({
      async send() {
        ledger.calls.push("getTokenAccountBalance");
        const units = ledger.balances.get(String(account));
        if (units === undefined) throw new Error(`fake Solana RPC: could not find account ${String(account)}`);
        return {
          context: { slot: 1n },
          value: { amount: units.toString(), decimals: 6, uiAmount: null, uiAmountString: "" },
        };
      },
    }),
  };
  return new Proxy(methods, {
    get(target, prop) {
      if (typeof prop === "string" && prop in target) return target[prop];
      if (prop === "then" || typeof prop === "symbol") return undefined;
      throw new Error(`fake Solana RPC: unexpected use of ${String(prop)}`);
    },
  }) as unknown as Rpc<SolanaRpcApi>;
}
