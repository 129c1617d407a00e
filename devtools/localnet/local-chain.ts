// A Solana chain in process: LiteSVM (the real SPL Token, ATA, Memo and Compute Budget programs) plus what LiteSVM
// lacks and an RPC node must answer: a transaction history with pre/post SOL and token balances, per-address
// signature lists, a moving clock, duplicate refusal, and a snapshot on disk so yesterday's receipts still verify.
import "server-only";
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import { LiteSVM, FailedTransactionMetadata, Clock } from "litesvm";
import {
  address,
  appendTransactionMessageInstructions,
  createKeyPairSignerFromBytes,
  createTransactionMessage,
  getBase58Decoder,
  getBase64EncodedWireTransaction,
  getCompiledTransactionMessageDecoder,
  getTransactionDecoder,
  lamports as toLamports,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  some,
  none,
  type Blockhash,
  type KeyPairSigner,
  type Transaction,
} from "@solana/kit";
import {
  findAssociatedTokenPda,
  getCreateAssociatedTokenIdempotentInstructionAsync,
  getMintDecoder,
  getMintEncoder,
  getMintToInstruction,
  TOKEN_PROGRAM_ADDRESS,
} from "@solana-program/token";
import { generateKeypair, parseSecretKey, toSolanaCliJson } from "../../server/keys/parse-secret-key";
import { PROFILES, type LocalnetProfile, type ProfileInfo } from "./profiles";
import type { FaultDice } from "./fault-profile";

const TOKEN_PROGRAM = TOKEN_PROGRAM_ADDRESS as string;
/** SPL token account data length. */
const TOKEN_ACCOUNT_LEN = 165;
/** The base fee per signature, as on mainnet. */
const LAMPORTS_PER_SIGNATURE = 5_000;
/** How long after a state change the snapshot is written. */
const SNAPSHOT_DEBOUNCE_MS = 1_000;
/** A Solana blockhash lives 150 blocks (MAX_PROCESSING_AGE in the validator); the local chain keeps the same window. */
export const BLOCKHASH_VALIDITY_BLOCKS = 150;
/** A block is finalized once 31 more are confirmed on top of it (the validator's MAX_LOCKOUT_HISTORY + 1 = 32). */
export const FINALIZATION_DEPTH_SLOTS = 32;
/** How many recent slots keep their blockhash for `getLatestBlockhash` at a lagging commitment. */
const SLOT_HASHES_KEPT = FINALIZATION_DEPTH_SLOTS + 8;
/** The mint authority's SOL: it pays the fee and the token-account rent (~0.002 SOL) of every funding. */
const MINT_AUTHORITY_LAMPORTS = 1_000_000_000_000n;
/** Below this the mint authority is topped up before it funds anything: enough for hundreds of fundings. */
const MINT_AUTHORITY_FLOOR_LAMPORTS = 1_000_000_000n;

export type Commitment = "processed" | "confirmed" | "finalized";

/**
 * How the chain keeps time. "real" (what startLocalnet runs by default): slots move on a clock every `slotMs`, the
 * blockhash changes every slot and lives 150 slots, and a transaction is processed, then confirmed one slot later, then
 * finalized 32 slots later, as on a real cluster. "instant": the slot moves one per transaction and a transaction is
 * finalized at once.
 */
export type ChainTiming = { mode: "instant" } | { mode: "real"; slotMs: number; clock?: ChainClock };

/**
 * What real timing reads the time from (epoch ms): the wall clock unless a test passes one it moves. The chain keeps
 * every rule either way; a moved clock only decides when a slot has passed.
 */
export interface ChainClock {
  now(): number;
}

/** A slot lasts ~400 ms on Solana mainnet and devnet. */
export const DEFAULT_SLOT_MS = 400;

interface TokenBalanceEntry {
  accountIndex: number;
  mint: string;
  owner: string;
  programId: string;
  uiTokenAmount: { amount: string; decimals: number; uiAmount: number | null; uiAmountString: string };
}

export interface StoredTransaction {
  signature: string;
  slot: number;
  blockTime: number;
  wire: string;
  version: 0 | "legacy";
  accountKeys: { pubkey: string; signer: boolean; writable: boolean }[];
  recentBlockhash: string;
  instructions: { programIdIndex: number; accounts: number[]; data: string }[];
  meta: {
    err: unknown;
    fee: number;
    preBalances: number[];
    postBalances: number[];
    preTokenBalances: TokenBalanceEntry[];
    postTokenBalances: TokenBalanceEntry[];
    logMessages: string[];
    computeUnitsConsumed: number;
  };
}

export type SendOutcome =
  | { ok: true; signature: string }
  | {
      ok: false;
      kind: "duplicate" | "signature" | "simulation" | "blockhash";
      err: unknown;
      logs: string[];
      message: string;
    };

const BLOCKHASH_NOT_FOUND: SendOutcome = {
  ok: false,
  kind: "blockhash",
  err: "BlockhashNotFound",
  logs: [],
  message: "Transaction simulation failed: Blockhash not found",
};

export interface SimulateOutcome {
  err: unknown;
  logs: string[];
  unitsConsumed: number;
}

interface HistoryFile {
  slot: number;
  transactions: StoredTransaction[];
}

/** One local chain. Not safe for use from several processes at once: one process owns the snapshot files. */
export class LocalChain {
  readonly info: ProfileInfo;
  private readonly history = new Map<string, StoredTransaction>();
  private readonly byAddress = new Map<string, string[]>();
  private snapshotTimer: NodeJS.Timeout | null = null;
  private slotCounter: number;
  /** Real timing: the blockhashes still valid, each with the last block height that accepts it. */
  private readonly validBlockhashes = new Map<string, { slot: number; lastValidBlockHeight: number }>();
  /** Real timing: the blockhash of each recent slot, for answers at a lagging commitment. */
  private readonly slotHashes = new Map<number, string>();
  /** Who waits for a transaction to land, by signature (see `landed`). */
  private readonly landWaiters = new Map<string, (() => void)[]>();
  /** Sends that a fault holds back: they land when their timer fires. */
  private readonly delayed = new Map<string, NodeJS.Timeout>();
  private readonly clockStart = { ms: 0, slot: 0 };

  private constructor(
    readonly profile: LocalnetProfile,
    private readonly svm: LiteSVM,
    readonly mintAuthority: KeyPairSigner,
    private readonly files: { svm: string; history: string } | null,
    history: HistoryFile | null,
    readonly timing: ChainTiming,
    readonly faults: FaultDice | null,
  ) {
    this.info = PROFILES[profile];
    this.slotCounter = history?.slot ?? 1;
    for (const tx of history?.transactions ?? []) this.remember(tx);
    this.clockStart.slot = this.slotCounter;
    this.clockStart.ms = this.now();
    if (timing.mode === "real") this.admitBlockhash(this.slotCounter);
    this.tickClock();
  }

  /**
   * Opens the chain from its snapshot in `dataDir`, or creates it (forging the USDC mint). `dataDir` null: in memory.
   * `faults` apply to what arrives over RPC (see `submit`), never to in-process funding.
   */
  static async open(
    profile: LocalnetProfile,
    dataDir: string | null,
    timing: ChainTiming = { mode: "real", slotMs: DEFAULT_SLOT_MS },
    faults: FaultDice | null = null,
  ): Promise<LocalChain> {
    if (timing.mode === "real" && !(Number.isInteger(timing.slotMs) && timing.slotMs > 0))
      throw new Error(`slotMs must be a positive integer, got ${String(timing.slotMs)}`);
    const files = dataDir
      ? { svm: path.join(dataDir, `localnet-${profile}.svm`), history: path.join(dataDir, `localnet-${profile}.json`) }
      : null;
    if (dataDir) mkdirSync(dataDir, { recursive: true });
    const authorityFile = dataDir ? path.join(dataDir, `localnet-${profile}-mint-authority.json`) : null;
    let authorityKey = generateKeypair();
    if (authorityFile) {
      // Created only if absent ("wx"), then read back: two first starts on one folder agree on one key.
      try {
        writeFileSync(authorityFile, toSolanaCliJson(authorityKey), { mode: 0o600, flag: "wx" });
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      }
      authorityKey = parseSecretKey(readFileSync(authorityFile, "utf8"));
    }
    const mintAuthority = await createKeyPairSignerFromBytes(
      new Uint8Array([...authorityKey.seed, ...authorityKey.publicKey]),
    );
    if (files && existsSync(files.svm) && existsSync(files.history)) {
      const svm = LiteSVM.fromBytes(readFileSync(files.svm));
      const history = JSON.parse(readFileSync(files.history, "utf8")) as HistoryFile;
      const chain = new LocalChain(profile, svm, mintAuthority, files, history, timing, faults);
      chain.ensureFundingSource();
      return chain;
    }
    const svm = new LiteSVM();
    const chain = new LocalChain(profile, svm, mintAuthority, files, null, timing, faults);
    chain.forgeUsdcMint();
    chain.ensureFundingSource();
    chain.scheduleSnapshot();
    return chain;
  }

  /**
   * Makes the mint authority able to fund: the USDC mint answers to it and it holds SOL for fees and rent. The
   * snapshot and the authority's key are separate files in the data dir, and nothing else ties them together: a
   * snapshot restored beside another authority key (a key file replaced or recreated, a snapshot written by another
   * process over the folder) would otherwise leave every funding failing with AccountNotFound, as would an authority
   * whose creation airdrop failed unnoticed or whose SOL ran out. On this simulated chain the harness re-points the
   * mint and tops the authority up instead.
   */
  private ensureFundingSource(): void {
    const mintAddress = address(this.info.usdcMint);
    const mint = this.svm.getAccount(mintAddress);
    if (!mint.exists) {
      this.forgeUsdcMint();
    } else {
      const decoded = getMintDecoder().decode(mint.data);
      if (decoded.mintAuthority.__option !== "Some" || decoded.mintAuthority.value !== this.mintAuthority.address) {
        const data = getMintEncoder().encode({ ...decoded, mintAuthority: some(this.mintAuthority.address) });
        this.svm.setAccount({
          address: mintAddress,
          programAddress: TOKEN_PROGRAM_ADDRESS,
          lamports: mint.lamports,
          data: new Uint8Array(data),
          executable: false,
          space: BigInt(data.length),
        } as never);
        this.scheduleSnapshot();
      }
    }
    const balance = this.svm.getBalance(this.mintAuthority.address) ?? 0n;
    if (balance >= MINT_AUTHORITY_FLOOR_LAMPORTS) return;
    let result = this.svm.airdrop(this.mintAuthority.address, toLamports(MINT_AUTHORITY_LAMPORTS - balance));
    if (!result || result instanceof FailedTransactionMetadata) {
      // The same top-up under the same blockhash is a duplicate transaction: move to a new blockhash once and retry.
      this.svm.expireBlockhash();
      if (this.timing.mode === "real") this.admitBlockhash(this.slotCounter);
      result = this.svm.airdrop(this.mintAuthority.address, toLamports(MINT_AUTHORITY_LAMPORTS - balance));
    }
    if (!result || result instanceof FailedTransactionMetadata)
      throw new Error(`the local chain's mint authority ${this.mintAuthority.address} could not be funded`);
    this.scheduleSnapshot();
  }

  /** The processed slot (and block height: the local chain skips no slot). */
  get slot(): number {
    this.syncSlots();
    return this.slotCounter;
  }

  latestBlockhash(): string {
    this.syncSlots();
    return this.svm.latestBlockhash();
  }

  /** The slot a reader at `commitment` sees: real timing lags 1 slot for confirmed and 32 for finalized. */
  slotAt(commitment: Commitment): number {
    const slot = this.slot;
    if (this.timing.mode === "instant" || commitment === "processed") return slot;
    return Math.max(this.clockStart.slot, slot - (commitment === "confirmed" ? 1 : FINALIZATION_DEPTH_SLOTS));
  }

  /** The blockhash `getLatestBlockhash` answers at `commitment`, with the slot it belongs to and its last valid height. */
  blockhashAt(commitment: Commitment): { blockhash: string; slot: number; lastValidBlockHeight: number } {
    const latest = this.latestBlockhash();
    if (this.timing.mode === "instant")
      return { blockhash: latest, slot: this.slotCounter, lastValidBlockHeight: this.blockHeightWindow() };
    const slot = this.slotAt(commitment);
    const blockhash = this.slotHashes.get(slot) ?? latest;
    const entry = this.validBlockhashes.get(blockhash);
    // SECURITY: the promised height is the normal 150-slot window even for a blockhash a fault expires early: that
    // is the fault (a node handing out a blockhash the leader has not seen).
    return {
      blockhash,
      slot: entry?.slot ?? slot,
      lastValidBlockHeight: (entry?.slot ?? slot) + BLOCKHASH_VALIDITY_BLOCKS,
    };
  }

  /** Whether a transaction built on `blockhash` would be accepted now. */
  isBlockhashValid(blockhash: string): boolean {
    if (this.timing.mode === "instant") return blockhash === this.svm.latestBlockhash();
    this.syncSlots();
    const entry = this.validBlockhashes.get(blockhash);
    return entry !== undefined && this.slotCounter <= entry.lastValidBlockHeight;
  }

  /** How far a landed transaction has got: instant timing finalizes at once; real timing after 1 and 32 slots. */
  commitmentOf(tx: StoredTransaction): Commitment {
    if (this.timing.mode === "instant") return "finalized";
    const age = this.slot - tx.slot;
    return age >= FINALIZATION_DEPTH_SLOTS ? "finalized" : age >= 1 ? "confirmed" : "processed";
  }

  /**
   * Refuses every transaction built on a blockhash handed out before now (tests of expired payments). Instant timing
   * drops its one blockhash. Real timing moves the clock on past a blockhash's 150-slot life, as if a minute had gone
   * by: dropping only the newest would leave the confirmed and finalized ones a client signs with still valid.
   */
  expireBlockhash(): void {
    if (this.timing.mode === "real") {
      this.clockStart.ms -= (BLOCKHASH_VALIDITY_BLOCKS + 1) * this.timing.slotMs;
      this.syncSlots();
    } else {
      this.svm.expireBlockhash();
    }
    this.scheduleSnapshot();
  }

  getAccount(
    addr: string,
  ): { lamports: bigint; owner: string; data: Uint8Array; executable: boolean; space: number } | null {
    const account = this.svm.getAccount(address(addr));
    if (!account.exists) return null;
    return {
      lamports: account.lamports,
      owner: account.programAddress,
      data: account.data,
      executable: account.executable,
      space: account.data.length,
    };
  }

  minimumBalanceForRentExemption(len: number): bigint {
    return this.svm.minimumBalanceForRentExemption(BigInt(len));
  }

  getTransaction(signature: string): StoredTransaction | null {
    return this.history.get(signature) ?? null;
  }

  /** Signatures touching `addr`, newest first. */
  signaturesFor(addr: string): StoredTransaction[] {
    return (this.byAddress.get(addr) ?? []).map((s) => this.history.get(s)!).reverse();
  }

  transactionCount(): number {
    return this.history.size;
  }

  /**
   * Processes a wire transaction (base64) like a node with preflight: failures do not land. `harness` sends (the chain's
   * own funding) skip the blockhash window, so a fault profile's early expiry never refuses the harness itself.
   */
  send(wireBase64: string, opts: { harness?: boolean } = {}): SendOutcome {
    const tx = decodeWire(wireBase64);
    if (!tx)
      return {
        ok: false,
        kind: "simulation",
        err: "InvalidTransaction",
        logs: [],
        message: "failed to deserialize transaction",
      };
    const signature = firstSignature(tx);
    if (signature && this.history.has(signature)) {
      return {
        ok: false,
        kind: "duplicate",
        err: "AlreadyProcessed",
        logs: [],
        message: "This transaction has already been processed",
      };
    }
    const message = getCompiledTransactionMessageDecoder().decode(tx.messageBytes);
    const keys = message.staticAccounts.map(String);
    const real = this.timing.mode === "real";
    // Real timing: LiteSVM knows only its latest blockhash, so we check the transaction's against our window of valid
    // ones and let LiteSVM skip its own check.
    if (real && !opts.harness && !this.isBlockhashValid(message.lifetimeToken)) return BLOCKHASH_NOT_FOUND;
    this.tickClock();
    const before = this.snapshotAccounts(keys);
    if (real) this.svm.withBlockhashCheck(false);
    let result;
    try {
      result = this.svm.sendTransaction(tx);
    } finally {
      if (real) this.svm.withBlockhashCheck(true);
    }
    if (result instanceof FailedTransactionMetadata) {
      const err = describeError(result);
      const logs = result.meta().logs();
      const kind = /signature/i.test(String(err)) ? "signature" : "simulation";
      return {
        ok: false,
        kind,
        err,
        logs,
        message:
          kind === "signature"
            ? "Transaction signature verification failure"
            : `Transaction simulation failed: ${String(err)}`,
      };
    }
    const after = this.snapshotAccounts(keys);
    const numSigners = message.header.numSignerAccounts;
    const stored: StoredTransaction = {
      signature: signature!,
      slot: this.slotCounter,
      blockTime: Math.floor(this.now() / 1000),
      wire: wireBase64,
      version: message.version === "legacy" ? "legacy" : 0,
      accountKeys: keys.map((pubkey, i) => ({
        pubkey,
        signer: i < numSigners,
        writable: isWritable(i, message.header, keys.length),
      })),
      recentBlockhash: message.lifetimeToken,
      instructions: ("instructions" in message ? message.instructions : []).map((ix) => ({
        programIdIndex: ix.programAddressIndex,
        accounts: [...(ix.accountIndices ?? [])],
        data: getBase58Decoder().decode(ix.data ?? new Uint8Array()),
      })),
      meta: {
        err: null,
        fee: LAMPORTS_PER_SIGNATURE * numSigners,
        preBalances: before.map((b) => Number(b.lamports)),
        postBalances: after.map((b) => Number(b.lamports)),
        preTokenBalances: tokenBalances(before),
        postTokenBalances: tokenBalances(after),
        logMessages: result.logs(),
        computeUnitsConsumed: Number(result.computeUnitsConsumed()),
      },
    };
    this.remember(stored);
    if (!real) this.slotCounter++;
    this.scheduleSnapshot();
    return { ok: true, signature: stored.signature };
  }

  /**
   * A transaction arriving over RPC, handled like a node's sendTransaction: with preflight, a doomed one is refused;
   * without it (`skipPreflight`), a node forwards whatever it gets, so an expired one is answered with its signature
   * and never lands. Faults may drop a send (signature, never lands) or delay it (it lands later, if its blockhash
   * is still valid then).
   */
  submit(wireBase64: string, opts: { skipPreflight: boolean }): SendOutcome {
    const tx = decodeWire(wireBase64);
    const signature = tx ? firstSignature(tx) : null;
    if (!tx || !signature || (this.timing.mode === "instant" && !this.faults)) return this.send(wireBase64);
    if (this.delayed.has(signature)) return { ok: true, signature };
    const blockhash = getCompiledTransactionMessageDecoder().decode(tx.messageBytes).lifetimeToken;
    if (!this.isBlockhashValid(blockhash) && !this.history.has(signature))
      return opts.skipPreflight ? { ok: true, signature } : BLOCKHASH_NOT_FOUND;
    const fate = this.faults && !this.history.has(signature) ? this.faults.sendFate() : { kind: "land" as const };
    if (fate.kind === "land") return this.send(wireBase64);
    if (!opts.skipPreflight) {
      const refusal = this.preflight(wireBase64);
      if (refusal) return refusal;
    }
    if (fate.kind === "delay") {
      const timer = setTimeout(() => {
        this.delayed.delete(signature);
        this.send(wireBase64);
      }, fate.delayMs);
      timer.unref();
      this.delayed.set(signature, timer);
    }
    return { ok: true, signature };
  }

  /** Stops the timers of delayed sends (they never land). */
  dispose(): void {
    for (const timer of this.delayed.values()) clearTimeout(timer);
    this.delayed.clear();
  }

  private preflight(wireBase64: string): SendOutcome | null {
    let outcome: SimulateOutcome | null;
    try {
      outcome = this.simulate(wireBase64, { sigVerify: true, replaceRecentBlockhash: false });
    } catch {
      return {
        ok: false,
        kind: "signature",
        err: "SignatureFailure",
        logs: [],
        message: "Transaction signature verification failure",
      };
    }
    if (!outcome)
      return {
        ok: false,
        kind: "simulation",
        err: "InvalidTransaction",
        logs: [],
        message: "failed to deserialize transaction",
      };
    if (outcome.err === null) return null;
    if (outcome.err === "BlockhashNotFound") return BLOCKHASH_NOT_FOUND;
    return {
      ok: false,
      kind: "simulation",
      err: outcome.err,
      logs: outcome.logs,
      message: `Transaction simulation failed: ${String(outcome.err)}`,
    };
  }

  /** Simulates without landing anything. */
  simulate(wireBase64: string, opts: { sigVerify: boolean; replaceRecentBlockhash: boolean }): SimulateOutcome | null {
    const tx = decodeWire(wireBase64);
    if (!tx) return null;
    const real = this.timing.mode === "real";
    if (real && !opts.replaceRecentBlockhash) {
      const blockhash = getCompiledTransactionMessageDecoder().decode(tx.messageBytes).lifetimeToken;
      if (!this.isBlockhashValid(blockhash)) return { err: "BlockhashNotFound", logs: [], unitsConsumed: 0 };
    }
    this.svm.withSigverify(opts.sigVerify);
    // Real timing has checked the blockhash against its own window above; LiteSVM knows only the latest one.
    this.svm.withBlockhashCheck(!real && !opts.replaceRecentBlockhash);
    try {
      const result = this.svm.simulateTransaction(tx);
      if (result instanceof FailedTransactionMetadata) {
        return {
          err: describeError(result),
          logs: result.meta().logs(),
          unitsConsumed: Number(result.meta().computeUnitsConsumed()),
        };
      }
      const meta = result.meta();
      return { err: null, logs: meta.logs(), unitsConsumed: Number(meta.computeUnitsConsumed()) };
    } finally {
      this.svm.withSigverify(true);
      this.svm.withBlockhashCheck(true);
    }
  }

  /** Forges another 6-decimal mint under our mint authority (tests of payments in the wrong token). */
  forgeMint(mintAddress: string): void {
    this.forgeMintAt(mintAddress);
    this.scheduleSnapshot();
  }

  /** The owner's balance of `mint` (default: USDC) in its associated token account, in atomic units; 0 without one. */
  async tokenBalance(owner: string, mint: string = this.info.usdcMint): Promise<bigint> {
    const [ata] = await findAssociatedTokenPda({
      owner: address(owner),
      mint: address(mint),
      tokenProgram: TOKEN_PROGRAM_ADDRESS,
    });
    const account = this.getAccount(ata);
    return account ? readTokenAmount(account.data) : 0n;
  }

  /**
   * Dev funding: airdrops SOL and mints USDC (or `mint`, a forged test mint) to the owner's token account, created
   * if missing, with real SPL instructions.
   */
  async fund(
    owner: string,
    amounts: { lamports?: bigint; usdcUnits?: bigint; mint?: string },
  ): Promise<{ ata: string; lamports: string; usdcUnits: string; signature: string }> {
    this.ensureFundingSource();
    if (amounts.lamports && amounts.lamports > 0n) this.airdrop(owner, amounts.lamports);
    const mint = address(amounts.mint ?? this.info.usdcMint);
    const [ata] = await findAssociatedTokenPda({ owner: address(owner), mint, tokenProgram: TOKEN_PROGRAM_ADDRESS });
    const create = await getCreateAssociatedTokenIdempotentInstructionAsync({
      payer: this.mintAuthority,
      owner: address(owner),
      mint,
    });
    const instructions = [create];
    if (amounts.usdcUnits && amounts.usdcUnits > 0n) {
      instructions.push(
        getMintToInstruction({
          mint,
          token: ata,
          mintAuthority: this.mintAuthority,
          amount: amounts.usdcUnits,
        }) as never,
      );
    }
    const message = pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayerSigner(this.mintAuthority, m),
      (m) =>
        setTransactionMessageLifetimeUsingBlockhash(
          {
            blockhash: this.svm.latestBlockhash() as Blockhash,
            lastValidBlockHeight: BigInt(this.slotCounter + BLOCKHASH_VALIDITY_BLOCKS),
          },
          m,
        ),
      (m) => appendTransactionMessageInstructions(instructions, m),
    );
    const signed = await signTransactionMessageWithSigners(message);
    const outcome = this.send(getBase64EncodedWireTransaction(signed), { harness: true });
    if (!outcome.ok) throw new Error(`funding ${owner} failed: ${outcome.message}`);
    this.scheduleSnapshot();
    const account = this.getAccount(ata);
    return {
      ata,
      lamports: String(this.svm.getBalance(address(owner)) ?? 0n),
      usdcUnits: account ? readTokenAmount(account.data).toString() : "0",
      signature: outcome.signature,
    };
  }

  /** Airdrops SOL like a faucet and records the transfer, so its signature has a status and a transaction. */
  airdrop(owner: string, lamports: bigint): string {
    this.tickClock();
    const before = this.svm.getBalance(address(owner)) ?? 0n;
    let result = this.svm.airdrop(address(owner), toLamports(lamports));
    if (!result || result instanceof FailedTransactionMetadata) {
      // The same airdrop under the same blockhash (a restart from the snapshot funds the fee payer again) is a
      // duplicate transaction: move to a new blockhash once and retry.
      this.svm.expireBlockhash();
      if (this.timing.mode === "real") this.admitBlockhash(this.slotCounter);
      result = this.svm.airdrop(address(owner), toLamports(lamports));
    }
    if (!result || result instanceof FailedTransactionMetadata) throw new Error(`airdrop to ${owner} failed`);
    const after = this.svm.getBalance(address(owner)) ?? 0n;
    const signature = getBase58Decoder().decode(result.signature());
    this.remember({
      signature,
      slot: this.slotCounter,
      blockTime: Math.floor(this.now() / 1000),
      wire: "",
      version: "legacy",
      accountKeys: [{ pubkey: owner, signer: false, writable: true }],
      recentBlockhash: this.svm.latestBlockhash(),
      instructions: [],
      meta: {
        err: null,
        fee: 0,
        preBalances: [Number(before)],
        postBalances: [Number(after)],
        preTokenBalances: [],
        postTokenBalances: [],
        logMessages: result.logs(),
        computeUnitsConsumed: Number(result.computeUnitsConsumed()),
      },
    });
    if (this.timing.mode === "instant") this.slotCounter++;
    this.scheduleSnapshot();
    return signature;
  }

  blockHeightWindow(): number {
    return this.slot + BLOCKHASH_VALIDITY_BLOCKS;
  }

  /** Real timing: moves the slot to where the clock says it is, with a new blockhash for every slot passed. */
  private syncSlots(): void {
    if (this.timing.mode !== "real") return;
    const target = this.clockStart.slot + Math.floor((this.now() - this.clockStart.ms) / this.timing.slotMs);
    if (target <= this.slotCounter) return;
    // After a long idle, only the last window's blockhashes can still be valid: skip straight past the rest.
    if (target - this.slotCounter > BLOCKHASH_VALIDITY_BLOCKS + 1)
      this.slotCounter = target - BLOCKHASH_VALIDITY_BLOCKS - 1;
    while (this.slotCounter < target) {
      this.slotCounter++;
      this.svm.expireBlockhash();
      this.admitBlockhash(this.slotCounter);
    }
    for (const [hash, entry] of this.validBlockhashes)
      if (entry.lastValidBlockHeight < this.slotCounter) this.validBlockhashes.delete(hash);
    for (const slot of this.slotHashes.keys())
      if (slot < this.slotCounter - SLOT_HASHES_KEPT) this.slotHashes.delete(slot);
  }

  private admitBlockhash(slot: number): void {
    const blockhash = this.svm.latestBlockhash();
    const lifetime = this.faults
      ? this.faults.blockhashLifetime(slot, BLOCKHASH_VALIDITY_BLOCKS)
      : BLOCKHASH_VALIDITY_BLOCKS;
    this.validBlockhashes.set(blockhash, { slot, lastValidBlockHeight: slot + lifetime });
    this.slotHashes.set(slot, blockhash);
  }

  /** Writes the snapshot now. */
  flush(): void {
    if (this.snapshotTimer) clearTimeout(this.snapshotTimer);
    this.snapshotTimer = null;
    if (!this.files) return;
    writeAtomic(this.files.svm, this.svm.toBytes());
    const history: HistoryFile = { slot: this.slotCounter, transactions: [...this.history.values()] };
    writeAtomic(this.files.history, JSON.stringify(history));
  }

  private scheduleSnapshot(): void {
    if (!this.files || this.snapshotTimer) return;
    this.snapshotTimer = setTimeout(() => this.flush(), SNAPSHOT_DEBOUNCE_MS);
    this.snapshotTimer.unref();
  }

  /** Resolves when the transaction `signature` lands (at once if it has): a test waits for it, not for a guess. */
  landed(signature: string): Promise<void> {
    if (this.history.has(signature)) return Promise.resolve();
    return new Promise((resolve) =>
      this.landWaiters.set(signature, [...(this.landWaiters.get(signature) ?? []), resolve]),
    );
  }

  /**
   * Resolves once the transaction `signature` has landed and is confirmed: the chain's own notification, as a
   * signature subscription at `confirmed` gives it. Real timing confirms it when the slot after its own begins, by the
   * chain's clock (a moved clock: when the test moves it there).
   */
  async confirmed(signature: string): Promise<void> {
    await this.landed(signature);
    const tx = this.history.get(signature)!;
    while (this.commitmentOf(tx) === "processed" && this.timing.mode === "real") {
      const nextSlotAt = this.clockStart.ms + (tx.slot + 1 - this.clockStart.slot) * this.timing.slotMs;
      await new Promise((r) => setTimeout(r, Math.max(1, nextSlotAt - this.now())));
    }
  }

  private remember(tx: StoredTransaction): void {
    this.history.set(tx.signature, tx);
    for (const resolve of this.landWaiters.get(tx.signature) ?? []) resolve();
    this.landWaiters.delete(tx.signature);
    for (const key of tx.accountKeys) {
      const list = this.byAddress.get(key.pubkey) ?? [];
      list.push(tx.signature);
      this.byAddress.set(key.pubkey, list);
    }
    // Token balances name owners that are not account keys (the owner of a token account): index them too.
    for (const b of tx.meta.postTokenBalances) {
      if (tx.accountKeys.some((k) => k.pubkey === b.owner)) continue;
      const list = this.byAddress.get(b.owner) ?? [];
      if (list.at(-1) !== tx.signature) list.push(tx.signature);
      this.byAddress.set(b.owner, list);
    }
  }

  /** Epoch ms by the chain's clock. */
  private now(): number {
    return this.timing.mode === "real" && this.timing.clock ? this.timing.clock.now() : Date.now();
  }

  private tickClock(): void {
    const now = BigInt(Math.floor(this.now() / 1000));
    const clock = this.svm.getClock();
    this.svm.setClock(
      new Clock(BigInt(this.slotCounter), clock.epochStartTimestamp, clock.epoch, clock.leaderScheduleEpoch, now),
    );
  }

  private forgeUsdcMint(): void {
    this.forgeMintAt(this.info.usdcMint);
  }

  private forgeMintAt(mintAddress: string): void {
    const data = getMintEncoder().encode({
      mintAuthority: some(this.mintAuthority.address),
      supply: 0n,
      decimals: 6,
      isInitialized: true,
      freezeAuthority: none(),
    });
    this.svm.setAccount({
      address: address(mintAddress),
      programAddress: TOKEN_PROGRAM_ADDRESS,
      lamports: toLamports(this.svm.minimumBalanceForRentExemption(BigInt(data.length))),
      data: new Uint8Array(data),
      executable: false,
      space: BigInt(data.length),
    } as never);
  }

  private snapshotAccounts(
    keys: string[],
  ): { lamports: bigint; token: { mint: string; owner: string; amount: bigint } | null }[] {
    return keys.map((k) => {
      const account = this.svm.getAccount(address(k));
      if (!account.exists) return { lamports: 0n, token: null };
      const token =
        account.programAddress === TOKEN_PROGRAM && account.data.length === TOKEN_ACCOUNT_LEN
          ? readTokenAccount(account.data)
          : null;
      return { lamports: account.lamports, token };
    });
  }
}

function tokenBalances(
  accounts: { token: { mint: string; owner: string; amount: bigint } | null }[],
): TokenBalanceEntry[] {
  const out: TokenBalanceEntry[] = [];
  accounts.forEach((a, accountIndex) => {
    if (!a.token) return;
    const amount = a.token.amount;
    const ui = Number(amount) / 1e6;
    out.push({
      accountIndex,
      mint: a.token.mint,
      owner: a.token.owner,
      programId: TOKEN_PROGRAM,
      uiTokenAmount: { amount: amount.toString(), decimals: 6, uiAmount: ui, uiAmountString: String(ui) },
    });
  });
  return out;
}

/** Reads mint, owner and amount from SPL token account data (layout: mint 32, owner 32, amount u64 LE). */
export function readTokenAccount(data: Uint8Array): { mint: string; owner: string; amount: bigint } {
  const b58 = getBase58Decoder();
  return { mint: b58.decode(data.slice(0, 32)), owner: b58.decode(data.slice(32, 64)), amount: readTokenAmount(data) };
}

function readTokenAmount(data: Uint8Array): bigint {
  return new DataView(data.buffer, data.byteOffset + 64, 8).getBigUint64(0, true);
}

function isWritable(
  index: number,
  header: { numSignerAccounts: number; numReadonlySignerAccounts: number; numReadonlyNonSignerAccounts: number },
  total: number,
): boolean {
  if (index < header.numSignerAccounts) return index < header.numSignerAccounts - header.numReadonlySignerAccounts;
  return index < total - header.numReadonlyNonSignerAccounts;
}

function decodeWire(wireBase64: string): Transaction | null {
  try {
    return getTransactionDecoder().decode(Buffer.from(wireBase64, "base64")) as Transaction;
  } catch {
    return null;
  }
}

function firstSignature(tx: Transaction): string | null {
  const sig = Object.values(tx.signatures)[0];
  return sig ? getBase58Decoder().decode(sig) : null;
}

function describeError(result: FailedTransactionMetadata): unknown {
  const text = result.toString();
  const err = result.err() as unknown;
  if (typeof err === "number" || typeof err === "string") return errorName(text, err);
  return errorName(text, err);
}

function errorName(text: string, fallback: unknown): unknown {
  const m = /err:\s*([A-Za-z]+)(?:\((.*)\))?/.exec(text);
  if (m?.[1] === "InstructionError" && m[2]) {
    const idx = /^(\d+)/.exec(m[2])?.[1];
    return { InstructionError: [Number(idx ?? 0), m[2].replace(/^\d+,\s*/, "")] };
  }
  return m?.[1] ?? (typeof fallback === "object" ? JSON.stringify(fallback) : String(fallback));
}

function writeAtomic(file: string, data: Uint8Array | string): void {
  const tmp = `${file}.tmp-${process.pid}`;
  writeFileSync(tmp, data);
  renameSync(tmp, file);
}
