// The local chain over JSON-RPC, with real SPL transfers built by @solana/kit and a second signer as fee payer.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  appendTransactionMessageInstructions,
  createKeyPairSignerFromBytes,
  createTransactionMessage,
  getBase64EncodedWireTransaction,
  partiallySignTransactionMessageWithSigners,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransaction,
  type Blockhash,
  type KeyPairSigner,
} from "@solana/kit";
import { findAssociatedTokenPda, getTransferCheckedInstruction, TOKEN_PROGRAM_ADDRESS } from "@solana-program/token";
import { address } from "@solana/kit";
import { DEFAULT_SLOT_MS, startLocalnet, type Localnet } from "../../../devtools/localnet";
import { generateKeypair } from "../../keys/parse-secret-key";
import { tempDataDir } from "../support/env";
import { manualClock } from "../support/manual-clock";

async function newSigner(): Promise<KeyPairSigner> {
  const kp = generateKeypair();
  return createKeyPairSignerFromBytes(new Uint8Array([...kp.seed, ...kp.publicKey]));
}

let net: Localnet;
let dataDir: string;
/** The chain's clock: a slot passes when the test moves it. */
const clock = manualClock();
const rpc = async (method: string, params: unknown[] = []) => {
  const res = await fetch(net.url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- results of many RPC methods, asserted field by field
  return (await res.json()) as { result?: any; error?: { code: number; message: string } };
};

beforeAll(async () => {
  dataDir = tempDataDir("signet-localnet-");
  net = await startLocalnet({ profile: "devnet", port: 0, dataDir, clock });
});
afterAll(async () => net?.close());

/** An agent (token authority, no SOL) pays `amount` USDC to `payTo`; `feePayer` pays the fee and signs last. */
async function transfer(
  agent: KeyPairSigner,
  feePayer: KeyPairSigner,
  payTo: string,
  amount: bigint,
  signFeePayer = true,
): Promise<string> {
  const mint = address(net.usdcMint);
  const [source] = await findAssociatedTokenPda({ owner: agent.address, mint, tokenProgram: TOKEN_PROGRAM_ADDRESS });
  const [destination] = await findAssociatedTokenPda({
    owner: address(payTo),
    mint,
    tokenProgram: TOKEN_PROGRAM_ADDRESS,
  });
  const { result } = await rpc("getLatestBlockhash");
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayer(feePayer.address, m),
    (m) =>
      setTransactionMessageLifetimeUsingBlockhash(
        {
          blockhash: result.value.blockhash as Blockhash,
          lastValidBlockHeight: BigInt(result.value.lastValidBlockHeight),
        },
        m,
      ),
    (m) =>
      appendTransactionMessageInstructions(
        [getTransferCheckedInstruction({ source, mint, destination, authority: agent, amount, decimals: 6 })],
        m,
      ),
  );
  let tx = await partiallySignTransactionMessageWithSigners(message);
  if (signFeePayer) tx = await signTransaction([feePayer.keyPair], tx);
  return getBase64EncodedWireTransaction(tx);
}

/** Moves the chain a slot on: real timing confirms `signature` a slot after the one it landed in. */
async function nextSlotConfirms(signature: string): Promise<void> {
  clock.advance(DEFAULT_SLOT_MS);
  expect((await rpc("getSignatureStatuses", [[signature]])).result.value[0]).toMatchObject({
    confirmationStatus: "confirmed",
  });
}

describe("local chain JSON-RPC", () => {
  it("plays devnet: genesis hash, health, version, forged USDC mint", async () => {
    expect((await rpc("getGenesisHash")).result).toBe("EtWTRABZaYq6iMfeYKouRu166VU2xqa1aFoKMcMZ9YTs");
    expect((await rpc("getHealth")).result).toBe("ok");
    const mint = await rpc("getAccountInfo", [net.usdcMint, { encoding: "jsonParsed" }]);
    expect(mint.result.value.data.parsed).toMatchObject({ type: "mint", info: { decimals: 6, isInitialized: true } });
  });

  it("funds an owner with SOL and USDC over localnet_fund", async () => {
    const owner = await newSigner();
    const funded = await rpc("localnet_fund", [owner.address, { usdcUnits: "2500000", lamports: "1000000000" }]);
    expect(funded.result.usdcUnits).toBe("2500000");
    expect((await rpc("getBalance", [owner.address])).result.value).toBe(1_000_000_000);
    expect((await rpc("getTokenAccountBalance", [funded.result.ata])).result.value).toMatchObject({
      amount: "2500000",
      decimals: 6,
    });
    expect((await rpc("localnet_fund", [owner.address, { usdcUnits: "-5" }])).error?.code).toBe(-32602);
    const airdrop = await rpc("requestAirdrop", [owner.address, 5_000]);
    expect((await rpc("getSignatureStatuses", [[airdrop.result]])).result.value[0]).toMatchObject({ err: null });
    expect((await rpc("getBalance", [owner.address])).result.value).toBe(1_000_005_000);
  });

  it("lands a partially signed transfer co-signed by a fee payer, with jsonParsed pre/post token balances", async () => {
    const agent = await newSigner();
    const feePayer = await newSigner();
    const payTo = await newSigner();
    await net.fundAccount(agent.address, { usdcUnits: 5_000_000n });
    await net.fundAccount(feePayer.address, { lamports: 1_000_000_000n });
    await net.fundAccount(payTo.address, {});
    const wire = await transfer(agent, feePayer, payTo.address, 10_000n);

    const partial = await transfer(agent, feePayer, payTo.address, 10_000n, false);
    const verified = await rpc("simulateTransaction", [partial, { encoding: "base64", sigVerify: true }]);
    expect(verified.error?.code ?? (verified.result.value.err === null ? 0 : -32003)).toBe(-32003);
    expect(
      (await rpc("simulateTransaction", [partial, { encoding: "base64", sigVerify: false }])).result.value.err,
    ).toBeNull();

    const sent = await rpc("sendTransaction", [wire, { encoding: "base64" }]);
    expect(typeof sent.result).toBe("string");
    const dup = await rpc("sendTransaction", [wire, { encoding: "base64" }]);
    expect(dup.error?.message).toMatch(/already been processed/);

    const status = await rpc("getSignatureStatuses", [[sent.result]]);
    expect(status.result.value[0]).toMatchObject({ err: null });
    expect(status.result.value[0].confirmationStatus).toBe("processed");
    await nextSlotConfirms(sent.result);
    const tx = (
      await rpc("getTransaction", [
        sent.result,
        { encoding: "jsonParsed", commitment: "confirmed", maxSupportedTransactionVersion: 0 },
      ])
    ).result;
    expect(tx.meta.err).toBeNull();
    expect(tx.transaction.message.accountKeys[0]).toMatchObject({ pubkey: feePayer.address, signer: true });
    expect(
      tx.transaction.message.accountKeys.find((k: { pubkey: string }) => k.pubkey === agent.address),
    ).toMatchObject({ signer: true });
    const owned = (list: { owner: string; uiTokenAmount: { amount: string } }[], owner: string) =>
      list.find((b) => b.owner === owner)?.uiTokenAmount.amount;
    expect(owned(tx.meta.preTokenBalances, agent.address)).toBe("5000000");
    expect(owned(tx.meta.postTokenBalances, agent.address)).toBe("4990000");
    expect(owned(tx.meta.postTokenBalances, payTo.address)).toBe("10000");
    expect(tx.transaction.message.instructions.at(-1).parsed).toMatchObject({
      type: "transferChecked",
      info: { authority: agent.address },
    });
    expect(tx.blockTime).toBeGreaterThan(1_700_000_000);
    const history = (await rpc("getSignaturesForAddress", [payTo.address, { limit: 5, commitment: "confirmed" }]))
      .result;
    expect(history[0].signature).toBe(sent.result);
  });

  it("refuses a transaction on an expired blockhash", async () => {
    const agent = await newSigner();
    const feePayer = await newSigner();
    await net.fundAccount(agent.address, { usdcUnits: 1_000_000n });
    await net.fundAccount(feePayer.address, { lamports: 1_000_000_000n });
    const wire = await transfer(agent, feePayer, feePayer.address, 1n);
    await rpc("localnet_expireBlockhash");
    const sent = await rpc("sendTransaction", [wire, { encoding: "base64" }]);
    expect(sent.error?.code).toBe(-32002);
  });

  it.each([
    ["an unknown method", "nope", []],
    ["a bad pubkey", "getBalance", ["not-a-key"]],
    ["a bad signature", "getTransaction", ["xyz"]],
  ])("answers %s with a JSON-RPC error", async (_label, method, params) => {
    expect((await rpc(method, params)).error).toBeDefined();
  });

  it("keeps state and history across a restart from its snapshot", async () => {
    const owner = await newSigner();
    const funded = await net.fundAccount(owner.address, { usdcUnits: 777n });
    const sigs = net.chain.signaturesFor(owner.address).map((t) => t.signature);
    await net.close();
    net = await startLocalnet({ profile: "devnet", port: 0, dataDir, clock });
    expect((await rpc("getTokenAccountBalance", [funded.ata])).result.value.amount).toBe("777");
    await nextSlotConfirms(sigs[0]!);
    expect(
      (await rpc("getTransaction", [sigs[0], { encoding: "jsonParsed", commitment: "confirmed" }])).result,
    ).not.toBeNull();
  });

  it("airdrops the same amount to the same key again after a restart (npm run dev funds its fee payer on every start)", async () => {
    const owner = await newSigner();
    await net.fundAccount(owner.address, { lamports: 1_000_000_000n });
    await net.close();
    net = await startLocalnet({ profile: "devnet", port: 0, dataDir, clock });
    await net.fundAccount(owner.address, { lamports: 1_000_000_000n });
    expect((await rpc("getBalance", [owner.address])).result.value).toBe(2_000_000_000);
  });
});

describe("signet localnet fund", () => {
  // The chain's RPC server lives in this process: the CLI must run asynchronously, or neither side can proceed.
  const signet = (args: string[]) => {
    const root = path.resolve(__dirname, "../../..");
    return promisify(execFile)(process.execPath, [path.join(root, "bin/cli/signet.mjs"), ...args], {
      cwd: root,
      encoding: "utf8",
    }).then(
      (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
      (e: { code?: number; stdout?: string; stderr?: string }) => ({
        code: e.code ?? 1,
        stdout: e.stdout ?? "",
        stderr: e.stderr ?? "",
      }),
    );
  };

  it("funds a fresh key through the running chain's RPC", async () => {
    const owner = generateKeypair().publicKeyBase58;
    const r = await signet(["localnet", "fund", owner, "--usdc", "1.5", "--sol", "0.25", "--rpc", net.url]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ usdcUnits: "1500000", lamports: "250000000" });
    expect((await signet(["localnet", "fund", "nope", "--rpc", net.url])).code).toBe(2);
  });

  it("funds only SOL when only --sol is given: no USDC reaches the address (a deposit address funded for fees gets no payment-less USDC)", async () => {
    const owner = generateKeypair().publicKeyBase58;
    const r = await signet(["localnet", "fund", owner, "--sol", "0.5", "--rpc", net.url]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ usdcUnits: "0", lamports: "500000000" });
    expect(await net.usdcBalance(owner)).toBe(0n);
    expect((await rpc("getBalance", [owner])).result.value).toBe(500_000_000);
  });

  it("rejects malformed input: nothing to fund, --eth for a Solana key, and a bad amount are usage errors that fund nothing", async () => {
    const owner = generateKeypair().publicKeyBase58;
    const nothing = await signet(["localnet", "fund", owner, "--rpc", net.url]);
    expect(nothing.code).toBe(2);
    expect(nothing.stderr.trim()).toBe("signet: nothing to fund: give --usdc N and/or --sol N");
    const eth = await signet(["localnet", "fund", owner, "--eth", "1", "--rpc", net.url]);
    expect(eth.code).toBe(2);
    expect(eth.stderr.trim()).toBe(
      "signet: --eth funds a 0x address on the local Base chain; a Solana key takes --sol",
    );
    expect((await signet(["localnet", "fund", owner, "--sol", "-1", "--rpc", net.url])).code).toBe(2);
    expect((await rpc("getBalance", [owner])).result.value).toBe(0);
  });
});

describe("the JSON-RPC request reader", () => {
  it("rejects malformed input: a body that is not JSON gets -32700 Parse error, as a real node answers", async () => {
    const res = await fetch(net.url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{not json",
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } });
  });
});
