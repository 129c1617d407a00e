// The local Solana chain with real timing, over JSON-RPC: slots on a clock, a blockhash per slot that lives 150 slots,
// and processed → confirmed → finalized. Short slots keep the suite quick; the rules are the real cluster's.
import { afterEach, describe, expect, it } from "vitest";
import { BLOCKHASH_VALIDITY_BLOCKS, DEFAULT_SLOT_MS, FINALIZATION_DEPTH_SLOTS, startLocalnet, type Localnet } from "../../../devtools/localnet";
import { newSigner, signedTransfer, sleep, solanaRpc } from "../support/solana-rpc";

let net: Localnet | null = null;
afterEach(async () => {
  await net?.close();
  net = null;
});

async function realChain(slotMs: number): Promise<Localnet> {
  net = await startLocalnet({ profile: "devnet", port: 0, dataDir: null, timing: "real", slotMs });
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

/** Waits until the processed block height reaches `height`. */
async function untilHeight(n: Localnet, height: number): Promise<void> {
  while ((await solanaRpc(n.url, "getBlockHeight", [{ commitment: "processed" }])).result < height) await sleep(10);
}

/** Waits for the start of a fresh slot, so what follows has most of a slot before the next one. */
async function atSlotStart(n: Localnet): Promise<number> {
  const start = (await solanaRpc(n.url, "getSlot", [{ commitment: "processed" }])).result as number;
  for (;;) {
    const slot = (await solanaRpc(n.url, "getSlot", [{ commitment: "processed" }])).result as number;
    if (slot > start) return slot;
    await sleep(2);
  }
}

/** Polls like a client's confirmation strategy: the status, or "block height exceeded" once the blockhash is past. */
async function confirm(n: Localnet, signature: string, lastValidBlockHeight: number): Promise<string> {
  for (;;) {
    const status = (await solanaRpc(n.url, "getSignatureStatuses", [[signature]])).result.value[0];
    if (status && status.confirmationStatus !== "processed") return status.confirmationStatus as string;
    const height = (await solanaRpc(n.url, "getBlockHeight", [{ commitment: "confirmed" }])).result as number;
    if (height > lastValidBlockHeight) throw new Error(`signature ${signature} has expired: block height exceeded`);
    await sleep(20);
  }
}

describe('startLocalnet({ timing: "real" })', () => {
  it("advances the slot on a clock and rotates the blockhash every slot", async () => {
    const n = await realChain(50);
    const first = await solanaRpc(n.url, "getLatestBlockhash", [{ commitment: "processed" }]);
    await sleep(400);
    const later = await solanaRpc(n.url, "getLatestBlockhash", [{ commitment: "processed" }]);
    // 400 ms of 50 ms slots, with no transaction sent: the clock alone moved it.
    expect(later.result.context.slot - first.result.context.slot).toBeGreaterThanOrEqual(6);
    expect(later.result.value.blockhash).not.toBe(first.result.value.blockhash);
    expect(later.result.value.lastValidBlockHeight).toBe(later.result.context.slot + BLOCKHASH_VALIDITY_BLOCKS);
    const seen = new Set<string>();
    for (let i = 0; i < 5; i++) {
      await sleep(60);
      seen.add((await solanaRpc(n.url, "getLatestBlockhash", [{ commitment: "processed" }])).result.value.blockhash as string);
    }
    expect(seen.size).toBe(5);
    // An older blockhash is still valid within its window.
    expect((await solanaRpc(n.url, "isBlockhashValid", [first.result.value.blockhash, { commitment: "processed" }])).result.value).toBe(true);
  });

  it("lands a transaction on a blockhash 100 slots old, and refuses one older than 150 slots with Blockhash not found", async () => {
    const n = await realChain(20);
    const { payer, payTo } = await parties(n);
    const old = (await solanaRpc(n.url, "getLatestBlockhash", [{ commitment: "processed" }])).result.value;
    const young = await signedTransfer(n.usdcMint, payer, payTo.address, 1n, old);
    const stale = await signedTransfer(n.usdcMint, payer, payTo.address, 2n, old);

    await untilHeight(n, old.lastValidBlockHeight - 50);
    const landed = await solanaRpc(n.url, "sendTransaction", [young.wire, { encoding: "base64" }]);
    expect(landed.result).toBe(young.signature);

    await untilHeight(n, old.lastValidBlockHeight + 1);
    expect((await solanaRpc(n.url, "isBlockhashValid", [old.blockhash, { commitment: "processed" }])).result.value).toBe(false);
    const simulated = await solanaRpc(n.url, "simulateTransaction", [stale.wire, { encoding: "base64" }]);
    expect(simulated.result.value.err).toBe("BlockhashNotFound");
    const sent = await solanaRpc(n.url, "sendTransaction", [stale.wire, { encoding: "base64" }]);
    expect(sent.error).toMatchObject({ code: -32002, message: "Transaction simulation failed: Blockhash not found", data: { err: "BlockhashNotFound" } });
    expect(await n.usdcBalance(payTo.address)).toBe(1n);
  });

  it("answers an expired transaction sent without preflight with its signature, and it never lands: block height exceeded", async () => {
    const n = await realChain(10);
    const { payer, payTo } = await parties(n);
    const old = (await solanaRpc(n.url, "getLatestBlockhash", [{ commitment: "processed" }])).result.value;
    const tx = await signedTransfer(n.usdcMint, payer, payTo.address, 3n, old);
    await untilHeight(n, old.lastValidBlockHeight + 1);
    const sent = await solanaRpc(n.url, "sendTransaction", [tx.wire, { encoding: "base64", skipPreflight: true }]);
    expect(sent.result).toBe(tx.signature);
    await expect(confirm(n, tx.signature, old.lastValidBlockHeight)).rejects.toThrow(/block height exceeded/);
    expect((await solanaRpc(n.url, "getSignatureStatuses", [[tx.signature]])).result.value[0]).toBeNull();
    expect(await n.usdcBalance(payTo.address)).toBe(0n);
  });

  it("moves a sent transaction from processed to confirmed a slot later and to finalized 32 slots later", async () => {
    const n = await realChain(100);
    const { payer, payTo } = await parties(n);
    const blockhash = (await solanaRpc(n.url, "getLatestBlockhash", [{ commitment: "confirmed" }])).result.value;
    const tx = await signedTransfer(n.usdcMint, payer, payTo.address, 4n, blockhash);
    const get = (commitment: string) => solanaRpc(n.url, "getTransaction", [tx.signature, { encoding: "json", commitment, maxSupportedTransactionVersion: 0 }]);

    await atSlotStart(n);
    expect((await solanaRpc(n.url, "sendTransaction", [tx.wire, { encoding: "base64" }])).result).toBe(tx.signature);
    const processed = (await solanaRpc(n.url, "getSignatureStatuses", [[tx.signature]])).result;
    expect(processed.value[0]).toMatchObject({ confirmationStatus: "processed", confirmations: 0, err: null });
    expect(processed.value[0].slot).toBe(processed.context.slot);
    expect((await get("confirmed")).result).toBeNull();
    expect((await get("processed")).error?.code).toBe(-32602);
    // The balance moved at processed: reads are not held back by commitment (a known simplification).
    expect(await n.usdcBalance(payTo.address)).toBe(4n);

    await untilHeight(n, processed.value[0].slot + 1);
    // Confirmations count the slots since the transaction's, as of the slot the answer was read at: read between two
    // reads of the processed slot, and again when a slot passed between them (a loaded machine may let one pass).
    const slotNow = async () => (await solanaRpc(n.url, "getSlot", [{ commitment: "processed" }])).result as number;
    let status: { confirmationStatus: string; confirmations: number | null };
    let readAt: number;
    for (;;) {
      const before = await slotNow();
      status = (await solanaRpc(n.url, "getSignatureStatuses", [[tx.signature]])).result.value[0];
      readAt = await slotNow();
      if (readAt === before) break;
    }
    expect(readAt - processed.value[0].slot).toBeLessThan(FINALIZATION_DEPTH_SLOTS);
    expect(status).toMatchObject({ confirmationStatus: "confirmed", confirmations: readAt - processed.value[0].slot });
    expect(status.confirmations).toBeGreaterThanOrEqual(1);
    expect((await get("confirmed")).result.slot).toBe(processed.value[0].slot);
    expect((await get("finalized")).result).toBeNull();
    expect(await solanaRpc(n.url, "getSignaturesForAddress", [payTo.address, { commitment: "confirmed" }]).then((a) => a.result.map((s: { signature: string }) => s.signature))).toContain(tx.signature);
    expect(await solanaRpc(n.url, "getSignaturesForAddress", [payTo.address]).then((a) => a.result.map((s: { signature: string }) => s.signature))).not.toContain(tx.signature);

    await untilHeight(n, processed.value[0].slot + FINALIZATION_DEPTH_SLOTS);
    expect((await solanaRpc(n.url, "getSignatureStatuses", [[tx.signature]])).result.value[0]).toMatchObject({ confirmationStatus: "finalized", confirmations: null });
    expect((await get("finalized")).result.slot).toBe(processed.value[0].slot);
  });

  it("answers getLatestBlockhash, getSlot and getBlockHeight at the commitment asked, finalized by default", async () => {
    const n = await realChain(20);
    await untilHeight(n, 2 + FINALIZATION_DEPTH_SLOTS + 5);
    // The four reads one after another, between two processed reads of the same slot: 20 ms slots on a loaded
    // machine pass now and then between reads, and a read that straddled one is taken again.
    const read = (c?: { commitment: string }) => solanaRpc(n.url, "getLatestBlockhash", c ? [c] : []);
    let reads: Awaited<ReturnType<typeof read>>[];
    do {
      await atSlotStart(n);
      reads = [];
      for (const c of [{ commitment: "processed" }, { commitment: "confirmed" }, { commitment: "finalized" }, undefined, { commitment: "processed" }]) reads.push(await read(c));
    } while (reads[0]!.result.context.slot !== reads[4]!.result.context.slot);
    const [processed, confirmed, finalized, byDefault] = reads;
    const slot = processed!.result.context.slot as number;
    expect(confirmed!.result.context.slot).toBe(slot - 1);
    expect(finalized!.result.context.slot).toBe(slot - FINALIZATION_DEPTH_SLOTS);
    expect(byDefault!.result.value).toEqual(finalized!.result.value);
    expect(new Set([processed, confirmed, finalized].map((a) => a!.result.value.blockhash)).size).toBe(3);
    for (const a of [processed, confirmed, finalized]) expect(a!.result.value.lastValidBlockHeight).toBe(a!.result.context.slot + BLOCKHASH_VALIDITY_BLOCKS);
    // Two reads straddle a slot boundary now and then (20 ms slots on a loaded machine): read until both saw one slot.
    const height = async (commitment: string) => (await solanaRpc(n.url, "getBlockHeight", [{ commitment }])).result as number;
    let heights: number[];
    do heights = [await height("processed"), await height("finalized"), await height("processed")];
    while (heights[0] !== heights[2]);
    expect(heights[0]! - heights[1]!).toBe(FINALIZATION_DEPTH_SLOTS);
    expect((await solanaRpc(n.url, "getSlot", [{ commitment: "bogus" }])).error?.code).toBe(-32602);
  });
});

describe("startLocalnet() without timing", () => {
  it("runs real timing at DEFAULT_SLOT_MS: the clock alone moves the slot and rotates the blockhash", async () => {
    net = await startLocalnet({ profile: "devnet", port: 0, dataDir: null });
    expect(net.chain.timing).toEqual({ mode: "real", slotMs: DEFAULT_SLOT_MS });
    const before = (await solanaRpc(net.url, "getLatestBlockhash", [{ commitment: "processed" }])).result;
    await sleep(3 * DEFAULT_SLOT_MS);
    const after = (await solanaRpc(net.url, "getLatestBlockhash", [{ commitment: "processed" }])).result;
    expect(after.context.slot).toBeGreaterThan(before.context.slot);
    expect(after.value.blockhash).not.toBe(before.value.blockhash);
  });

  it("rejects malformed timing options", async () => {
    await expect(startLocalnet({ profile: "devnet", port: 0, dataDir: null, timing: "slow" as never })).rejects.toThrow(/timing/);
    await expect(startLocalnet({ profile: "devnet", port: 0, dataDir: null, timing: "real", slotMs: 0 })).rejects.toThrow(/slotMs/);
  });
});

describe('startLocalnet({ timing: "instant" })', () => {
  it("keeps one blockhash until a transaction, final at once", async () => {
    net = await startLocalnet({ profile: "devnet", port: 0, dataDir: null, timing: "instant" });
    const before = (await solanaRpc(net.url, "getLatestBlockhash")).result;
    await sleep(100);
    const after = (await solanaRpc(net.url, "getLatestBlockhash")).result;
    expect(after).toEqual(before);
  });
});
