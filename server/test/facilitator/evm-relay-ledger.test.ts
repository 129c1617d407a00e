// The relay ledger against a node that lags, drops and refuses, on PostgreSQL: a nonce recorded is never given to
// another transaction, a stale relay is broadcast again with its own bytes, a recorded relay is in flight whatever its
// first send answered, and rows long mined are pruned.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keccak256, toHex, type Hex } from "viem";
import { openPglite, type DbClient } from "../../db";
import { createPgNonceLock, type NonceLock } from "../../facilitator/evm-nonce-lock";
import {
  RELAY_KEEP_BELOW_MINED,
  RELAY_SEND_ATTEMPTS,
  relayTransaction,
  sweepRelays,
  type RelayChain,
} from "../../facilitator/evm-relay-ledger";
import { createTestDatabase, type TestDatabase } from "../support/test-db";
import { migratedPgliteDir } from "../support/pglite-template";

let tdb: TestDatabase;
let lock: NonceLock;
beforeAll(async () => {
  tdb = await createTestDatabase(3);
  lock = createPgNonceLock(async () => tdb.prisma);
});
afterAll(async () => tdb?.drop());

let nextChainId = 1;
/** A node whose counts the test sets; it records every raw transaction sent to it and answers as `answer` says. */
function fakeNode(answer: (raw: Hex) => unknown = () => undefined) {
  const sent: Hex[] = [];
  const state = { mined: 0, pending: 0 };
  const chain: RelayChain = {
    chainId: nextChainId++,
    address: "0x00000000000000000000000000000000000000aa",
    minedCount: async () => state.mined,
    pendingCount: async () => state.pending,
    sendRaw: async (raw) => {
      sent.push(raw);
      const err = answer(raw);
      if (err) throw err;
      return keccak256(raw);
    },
    knows: async () => false,
  };
  return { chain, sent, state };
}

/** A stand-in for signing: distinct bytes per (transaction, nonce). */
const signer = (label: string) => async (nonce: number) => toHex(`${label}:${nonce}`);

async function rowsOf(chain: RelayChain) {
  return tdb.prisma.evmRelay.findMany({ where: { chainId: chain.chainId }, orderBy: { nonce: "asc" } });
}

describe("relayTransaction()", () => {
  it("never gives a recorded nonce to another transaction while the node's pending count lags behind it", async () => {
    const { chain, sent } = fakeNode();
    // The node sees none of them (dropped, or held back on the way): its pending count stays 0.
    const hashes = await Promise.all(["a", "b", "c", "d"].map((label) => relayTransaction(lock, chain, signer(label))));
    const rows = await rowsOf(chain);
    expect(rows.map((r) => r.nonce)).toEqual([0, 1, 2, 3]);
    expect(new Set(rows.map((r) => r.txHash))).toEqual(new Set(hashes));
    expect(sent).toHaveLength(4);
  });

  it("broadcasts a stale relay's own bytes again, and gives the next transaction the nonce above it", async () => {
    const { chain, sent } = fakeNode();
    const first = await relayTransaction(lock, chain, signer("first"));
    await tdb.prisma.evmRelay.updateMany({
      where: { chainId: chain.chainId },
      data: { sentAt: new Date(Date.now() - 60_000) },
    });
    await relayTransaction(lock, chain, signer("second"));
    await until(() => sent.length === 3);
    expect(sent.map((raw) => keccak256(raw)).filter((h) => h === first)).toHaveLength(2);
    expect((await rowsOf(chain)).map((r) => [r.nonce, r.sends])).toEqual([
      [0, 1],
      [1, 0],
    ]);
  });

  it("answers the hash of a recorded relay whose first send failed: it is in flight, broadcast again until mined", async () => {
    const { chain, sent } = fakeNode(() => new Error("HTTP request failed: 503"));
    const hash = await relayTransaction(lock, chain, signer("x"));
    expect(keccak256(sent[0]!)).toBe(hash);
    await tdb.prisma.evmRelay.updateMany({
      where: { chainId: chain.chainId },
      data: { sentAt: new Date(Date.now() - 60_000) },
    });
    expect(await sweepRelays(lock, chain)).toBe(1);
    expect(sent.map((raw) => keccak256(raw))).toEqual([hash, hash]);
  });

  it("takes a higher nonce when the node says a fresh one was used by a transaction the ledger never recorded, a bounded number of times", async () => {
    const node = fakeNode(() => new Error("nonce too low"));
    const err = await relayTransaction(lock, node.chain, signer("y")).catch((e: unknown) => e);
    expect(String(err)).toContain("nonce too low");
    expect((await rowsOf(node.chain)).map((r) => r.nonce)).toEqual(
      Array.from({ length: RELAY_SEND_ATTEMPTS }, (_, i) => i),
    );
  });

  it("takes a relay answered 'nonce taken' as its own when the node cannot say whether it knows it: no second nonce", async () => {
    const node = fakeNode(() => new Error("nonce too low"));
    node.chain.knows = async () => Promise.reject(new Error("HTTP request failed: 503"));
    const hash = await relayTransaction(lock, node.chain, signer("z"));
    expect(node.sent.map((raw) => keccak256(raw))).toEqual([hash]);
    expect((await rowsOf(node.chain)).map((r) => [r.nonce, r.txHash])).toEqual([[0, hash]]);
  });

  it("works on PGlite's single connection, where the in-process queue is the lock", async () => {
    const dir = await migratedPgliteDir(mkdtempSync(path.join(tmpdir(), "signet-relays-")));
    const open = await openPglite(dir);
    try {
      const pglock = createPgNonceLock(async () => open.prisma as DbClient);
      const { chain, sent } = fakeNode();
      await Promise.all(["a", "b", "c"].map((label) => relayTransaction(pglock, chain, signer(label))));
      await open.prisma.evmRelay.updateMany({ data: { sentAt: new Date(Date.now() - 60_000) } });
      expect(await sweepRelays(pglock, chain)).toBe(3);
      expect((await open.prisma.evmRelay.findMany({ orderBy: { nonce: "asc" } })).map((r) => r.nonce)).toEqual([
        0, 1, 2,
      ]);
      expect(sent).toHaveLength(6);
    } finally {
      await open.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("records nothing and sends nothing when signing fails", async () => {
    const { chain, sent } = fakeNode();
    const err = await relayTransaction(lock, chain, async () => {
      throw new Error("execution reverted: authorization is used or canceled");
    }).catch((e: unknown) => e);
    expect(String(err)).toContain("authorization is used");
    expect(await rowsOf(chain)).toEqual([]);
    expect(sent).toEqual([]);
  });
});

describe("sweepRelays()", () => {
  it("leaves mined relays alone, broadcasts unmined stale ones and prunes rows far below the mined count", async () => {
    const { chain, sent, state } = fakeNode();
    for (let i = 0; i < RELAY_KEEP_BELOW_MINED + 5; i++) await relayTransaction(lock, chain, signer(`t${i}`));
    sent.length = 0;
    state.mined = RELAY_KEEP_BELOW_MINED + 3;
    await tdb.prisma.evmRelay.updateMany({
      where: { chainId: chain.chainId },
      data: { sentAt: new Date(Date.now() - 60_000) },
    });
    expect(await sweepRelays(lock, chain)).toBe(2);
    expect(sent).toHaveLength(2);
    const rows = await rowsOf(chain);
    expect(rows[0]!.nonce).toBe(3);
    expect(rows.at(-1)!.nonce).toBe(RELAY_KEEP_BELOW_MINED + 4);
    // Claimed just now: a second sweeper (another instance) does not send them again within the gap.
    expect(await sweepRelays(lock, chain)).toBe(0);
  });
});

async function until(done: () => boolean, ms = 5_000): Promise<void> {
  const end = Date.now() + ms;
  while (!done()) {
    if (Date.now() > end) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 20));
  }
}
