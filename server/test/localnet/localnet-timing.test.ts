// The local Solana chain with real timing, over JSON-RPC: slots on a clock, a blockhash per slot that lives 150 slots,
// and processed → confirmed → finalized. The rules are the real cluster's; the clock is the test's, moved slot by slot,
// so each read lands in the slot it is meant for, however busy the machine. That the wall clock drives the chain by
// default is checked with vitest's fake Date.
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  BLOCKHASH_VALIDITY_BLOCKS,
  DEFAULT_SLOT_MS,
  FINALIZATION_DEPTH_SLOTS,
  startLocalnet,
  type Localnet,
} from "../../../devtools/localnet";
import { manualClock, type ManualClock } from "../support/manual-clock";
import { newSigner, signedTransfer, solanaRpc } from "../support/solana-rpc";

let net: Localnet | null = null;
afterEach(async () => {
  vi.useRealTimers();
  await net?.close();
  net = null;
});

const SLOT_MS = DEFAULT_SLOT_MS;
let clock: ManualClock;

async function realChain(): Promise<Localnet> {
  clock = manualClock();
  net = await startLocalnet({ profile: "devnet", port: 0, dataDir: null, timing: "real", slotMs: SLOT_MS, clock });
  return net;
}

/** A funded payer and a payee with a USDC account. */
async function parties(n: Localnet) {
  const payer = await newSigner();
  const payTo = await newSigner();
  await n.fundAccount(payer.address, { usdcUnits: 5_000_000n, lamports: 1_000_000_000n });
  await n.fundAccount(payTo.address, {});
  return { payer, payTo };
}

/** Moves the clock until the processed block height is `height` (the local chain skips no slot). */
async function toHeight(n: Localnet, height: number): Promise<void> {
  const now = (await solanaRpc(n.url, "getBlockHeight", [{ commitment: "processed" }])).result as number;
  if (height > now) clock.advance((height - now) * SLOT_MS);
  expect((await solanaRpc(n.url, "getBlockHeight", [{ commitment: "processed" }])).result).toBe(Math.max(height, now));
}

/** One look of a client's confirmation strategy: the status, or "block height exceeded" once the blockhash is past. */
async function confirmation(n: Localnet, signature: string, lastValidBlockHeight: number): Promise<string | null> {
  const status = (await solanaRpc(n.url, "getSignatureStatuses", [[signature]])).result.value[0];
  if (status && status.confirmationStatus !== "processed") return status.confirmationStatus as string;
  const height = (await solanaRpc(n.url, "getBlockHeight", [{ commitment: "confirmed" }])).result as number;
  if (height > lastValidBlockHeight) throw new Error(`signature ${signature} has expired: block height exceeded`);
  return null;
}

describe('startLocalnet({ timing: "real" })', () => {
  it("advances the slot on a clock and rotates the blockhash every slot", async () => {
    const n = await realChain();
    const first = await solanaRpc(n.url, "getLatestBlockhash", [{ commitment: "processed" }]);
    // Short of a slot, nothing moves.
    clock.advance(SLOT_MS - 1);
    expect(await solanaRpc(n.url, "getLatestBlockhash", [{ commitment: "processed" }])).toMatchObject({
      result: first.result,
    });
    clock.advance(1 + 7 * SLOT_MS);
    const later = await solanaRpc(n.url, "getLatestBlockhash", [{ commitment: "processed" }]);
    // Eight slots of time, with no transaction sent: the clock alone moved it.
    expect(later.result.context.slot - first.result.context.slot).toBe(8);
    expect(later.result.value.blockhash).not.toBe(first.result.value.blockhash);
    expect(later.result.value.lastValidBlockHeight).toBe(later.result.context.slot + BLOCKHASH_VALIDITY_BLOCKS);
    const seen = new Set<string>();
    for (let i = 0; i < 5; i++) {
      clock.advance(SLOT_MS);
      seen.add(
        (await solanaRpc(n.url, "getLatestBlockhash", [{ commitment: "processed" }])).result.value.blockhash as string,
      );
    }
    expect(seen.size).toBe(5);
    // An older blockhash is still valid within its window.
    expect(
      (await solanaRpc(n.url, "isBlockhashValid", [first.result.value.blockhash, { commitment: "processed" }])).result
        .value,
    ).toBe(true);
  });

  it("lands a transaction on a blockhash 100 slots old, and refuses one older than 150 slots with Blockhash not found", async () => {
    const n = await realChain();
    const { payer, payTo } = await parties(n);
    const old = (await solanaRpc(n.url, "getLatestBlockhash", [{ commitment: "processed" }])).result.value;
    const young = await signedTransfer(n.usdcMint, payer, payTo.address, 1n, old);
    const stale = await signedTransfer(n.usdcMint, payer, payTo.address, 2n, old);

    await toHeight(n, old.lastValidBlockHeight - 50);
    const landed = await solanaRpc(n.url, "sendTransaction", [young.wire, { encoding: "base64" }]);
    expect(landed.result).toBe(young.signature);

    // Valid through its last block height, refused the slot after.
    await toHeight(n, old.lastValidBlockHeight);
    expect(
      (await solanaRpc(n.url, "isBlockhashValid", [old.blockhash, { commitment: "processed" }])).result.value,
    ).toBe(true);
    await toHeight(n, old.lastValidBlockHeight + 1);
    expect(
      (await solanaRpc(n.url, "isBlockhashValid", [old.blockhash, { commitment: "processed" }])).result.value,
    ).toBe(false);
    const simulated = await solanaRpc(n.url, "simulateTransaction", [stale.wire, { encoding: "base64" }]);
    expect(simulated.result.value.err).toBe("BlockhashNotFound");
    const sent = await solanaRpc(n.url, "sendTransaction", [stale.wire, { encoding: "base64" }]);
    expect(sent.error).toMatchObject({
      code: -32002,
      message: "Transaction simulation failed: Blockhash not found",
      data: { err: "BlockhashNotFound" },
    });
    expect(await n.usdcBalance(payTo.address)).toBe(1n);
  });

  it("answers an expired transaction sent without preflight with its signature, and it never lands: block height exceeded", async () => {
    const n = await realChain();
    const { payer, payTo } = await parties(n);
    const old = (await solanaRpc(n.url, "getLatestBlockhash", [{ commitment: "processed" }])).result.value;
    const tx = await signedTransfer(n.usdcMint, payer, payTo.address, 3n, old);
    await toHeight(n, old.lastValidBlockHeight + 1);
    const sent = await solanaRpc(n.url, "sendTransaction", [tx.wire, { encoding: "base64", skipPreflight: true }]);
    expect(sent.result).toBe(tx.signature);
    // Slots pass, and the confirmed height passes the blockhash's last valid one: never landed.
    await toHeight(n, old.lastValidBlockHeight + 3);
    await expect(confirmation(n, tx.signature, old.lastValidBlockHeight)).rejects.toThrow(/block height exceeded/);
    expect((await solanaRpc(n.url, "getSignatureStatuses", [[tx.signature]])).result.value[0]).toBeNull();
    expect(await n.usdcBalance(payTo.address)).toBe(0n);
  });

  it("moves a sent transaction from processed to confirmed a slot later and to finalized 32 slots later", async () => {
    const n = await realChain();
    const { payer, payTo } = await parties(n);
    const blockhash = (await solanaRpc(n.url, "getLatestBlockhash", [{ commitment: "confirmed" }])).result.value;
    const tx = await signedTransfer(n.usdcMint, payer, payTo.address, 4n, blockhash);
    const get = (commitment: string) =>
      solanaRpc(n.url, "getTransaction", [
        tx.signature,
        { encoding: "json", commitment, maxSupportedTransactionVersion: 0 },
      ]);

    expect((await solanaRpc(n.url, "sendTransaction", [tx.wire, { encoding: "base64" }])).result).toBe(tx.signature);
    const processed = (await solanaRpc(n.url, "getSignatureStatuses", [[tx.signature]])).result;
    expect(processed.value[0]).toMatchObject({ confirmationStatus: "processed", confirmations: 0, err: null });
    expect(processed.value[0].slot).toBe(processed.context.slot);
    expect((await get("confirmed")).result).toBeNull();
    expect((await get("processed")).error?.code).toBe(-32602);
    // The balance moved at processed: reads are not held back by commitment (a known simplification).
    expect(await n.usdcBalance(payTo.address)).toBe(4n);

    // Confirmations count the slots since the transaction's.
    await toHeight(n, processed.value[0].slot + 1);
    expect((await solanaRpc(n.url, "getSignatureStatuses", [[tx.signature]])).result.value[0]).toMatchObject({
      confirmationStatus: "confirmed",
      confirmations: 1,
    });
    await toHeight(n, processed.value[0].slot + 3);
    expect((await solanaRpc(n.url, "getSignatureStatuses", [[tx.signature]])).result.value[0]).toMatchObject({
      confirmationStatus: "confirmed",
      confirmations: 3,
    });
    expect((await get("confirmed")).result.slot).toBe(processed.value[0].slot);
    expect((await get("finalized")).result).toBeNull();
    expect(
      await solanaRpc(n.url, "getSignaturesForAddress", [payTo.address, { commitment: "confirmed" }]).then((a) =>
        a.result.map((s: { signature: string }) => s.signature),
      ),
    ).toContain(tx.signature);
    expect(
      await solanaRpc(n.url, "getSignaturesForAddress", [payTo.address]).then((a) =>
        a.result.map((s: { signature: string }) => s.signature),
      ),
    ).not.toContain(tx.signature);

    await toHeight(n, processed.value[0].slot + FINALIZATION_DEPTH_SLOTS - 1);
    expect((await solanaRpc(n.url, "getSignatureStatuses", [[tx.signature]])).result.value[0]).toMatchObject({
      confirmationStatus: "confirmed",
    });
    expect((await get("finalized")).result).toBeNull();
    await toHeight(n, processed.value[0].slot + FINALIZATION_DEPTH_SLOTS);
    expect((await solanaRpc(n.url, "getSignatureStatuses", [[tx.signature]])).result.value[0]).toMatchObject({
      confirmationStatus: "finalized",
      confirmations: null,
    });
    expect((await get("finalized")).result.slot).toBe(processed.value[0].slot);
  });

  it("answers getLatestBlockhash, getSlot and getBlockHeight at the commitment asked, finalized by default", async () => {
    const n = await realChain();
    await toHeight(n, 2 + FINALIZATION_DEPTH_SLOTS + 5);
    const read = (c?: { commitment: string }) => solanaRpc(n.url, "getLatestBlockhash", c ? [c] : []);
    const reads: Awaited<ReturnType<typeof read>>[] = [];
    for (const c of [{ commitment: "processed" }, { commitment: "confirmed" }, { commitment: "finalized" }, undefined])
      reads.push(await read(c));
    const [processed, confirmed, finalized, byDefault] = reads;
    const slot = processed!.result.context.slot as number;
    expect(confirmed!.result.context.slot).toBe(slot - 1);
    expect(finalized!.result.context.slot).toBe(slot - FINALIZATION_DEPTH_SLOTS);
    expect(byDefault!.result.value).toEqual(finalized!.result.value);
    expect(new Set([processed, confirmed, finalized].map((a) => a!.result.value.blockhash)).size).toBe(3);
    for (const a of [processed, confirmed, finalized])
      expect(a!.result.value.lastValidBlockHeight).toBe(a!.result.context.slot + BLOCKHASH_VALIDITY_BLOCKS);
    const height = async (commitment: string) =>
      (await solanaRpc(n.url, "getBlockHeight", [{ commitment }])).result as number;
    expect(await height("processed")).toBe(slot);
    expect((await height("processed")) - (await height("finalized"))).toBe(FINALIZATION_DEPTH_SLOTS);
    expect((await solanaRpc(n.url, "getSlot", [{ commitment: "bogus" }])).error?.code).toBe(-32602);
  });
});

describe("startLocalnet() without timing", () => {
  it("runs real timing at DEFAULT_SLOT_MS on the wall clock: the clock alone moves the slot and rotates the blockhash", async () => {
    // Only Date is faked: the chain reads the wall clock through it, and the sockets' timers stay real.
    vi.useFakeTimers({ toFake: ["Date"] });
    net = await startLocalnet({ profile: "devnet", port: 0, dataDir: null });
    expect(net.chain.timing).toEqual({ mode: "real", slotMs: DEFAULT_SLOT_MS });
    const before = (await solanaRpc(net.url, "getLatestBlockhash", [{ commitment: "processed" }])).result;
    vi.setSystemTime(Date.now() + 3 * DEFAULT_SLOT_MS);
    const after = (await solanaRpc(net.url, "getLatestBlockhash", [{ commitment: "processed" }])).result;
    expect(after.context.slot - before.context.slot).toBe(3);
    expect(after.value.blockhash).not.toBe(before.value.blockhash);
  });

  it("rejects malformed timing options", async () => {
    await expect(startLocalnet({ profile: "devnet", port: 0, dataDir: null, timing: "slow" as never })).rejects.toThrow(
      /timing/,
    );
    await expect(
      startLocalnet({ profile: "devnet", port: 0, dataDir: null, timing: "real", slotMs: 0 }),
    ).rejects.toThrow(/slotMs/);
  });
});

describe('startLocalnet({ timing: "instant" })', () => {
  it("keeps one blockhash until a transaction, final at once", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    net = await startLocalnet({ profile: "devnet", port: 0, dataDir: null, timing: "instant" });
    const before = (await solanaRpc(net.url, "getLatestBlockhash")).result;
    // A minute of wall time, and no transaction: nothing moves.
    vi.setSystemTime(Date.now() + 60_000);
    const after = (await solanaRpc(net.url, "getLatestBlockhash")).result;
    expect(after).toEqual(before);
  });
});
