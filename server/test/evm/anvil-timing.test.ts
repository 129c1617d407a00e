// The local Base chain with real timing and faults, on a real anvil: interval mining holds a transaction in the
// mempool until the next block, and the fault proxy drops and delays raw transactions and reorgs blocks.
import { afterEach, describe, expect, it } from "vitest";
import { createWalletClient, defineChain, http, parseGwei, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import {
  BASE_BLOCK_TIME_SEC,
  USDC_BY_EVM_CHAIN,
  startLocalEvmChain,
  type LocalEvmChain,
} from "../../../devtools/anvil";
import type { FaultProfileInput } from "../../../devtools/localnet";

const BASE = USDC_BY_EVM_CHAIN[8453]!;
const ONE_ETH = 10n ** 18n;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const opened: LocalEvmChain[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((c) => c.close()));
});

async function base(extra: { blockTimeSec?: number; faults?: FaultProfileInput }): Promise<LocalEvmChain> {
  const c = await startLocalEvmChain({
    chainId: 8453,
    usdc: BASE.address,
    name: BASE.name,
    version: BASE.version,
    ...extra,
  });
  opened.push(c);
  return c;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON-RPC results, asserted field by field
async function call(url: string, method: string, params: unknown[] = []): Promise<any> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  return ((await res.json()) as { result: unknown }).result;
}

/** A fresh funded account signs a 1-wei transfer and sends it raw through `c.url`; returns the hash answered. */
async function sendRaw(c: LocalEvmChain): Promise<Hex> {
  const account = privateKeyToAccount(generatePrivateKey());
  await c.fund(account.address, { wei: ONE_ETH });
  const chain = defineChain({
    id: c.chainId,
    name: "local",
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [c.url] } },
  });
  const wallet = createWalletClient({ account, chain, transport: http(c.url) });
  const signed = await wallet.signTransaction({
    to: account.address,
    value: 1n,
    gas: 21_000n,
    maxFeePerGas: parseGwei("10"),
    maxPriorityFeePerGas: 1n,
    nonce: 0,
  });
  return (await call(c.url, "eth_sendRawTransaction", [signed])) as Hex;
}

/** Waits for the next block, so what follows has most of a block time before the one after. */
async function atBlockStart(c: LocalEvmChain): Promise<number> {
  const start = Number(await call(c.url, "eth_blockNumber"));
  for (;;) {
    const now = Number(await call(c.url, "eth_blockNumber"));
    if (now > start) return now;
    await sleep(20);
  }
}

/** Polls `url` for the transaction's receipt until it is mined (interval mining: up to a block time and then some). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a JSON-RPC receipt, asserted field by field
async function minedReceipt(url: string, hash: Hex): Promise<any> {
  for (;;) {
    const receipt = await call(url, "eth_getTransactionReceipt", [hash]);
    if (receipt) return receipt;
    await sleep(50);
  }
}

describe("startLocalEvmChain({ blockTimeSec })", () => {
  it("mines a block every blockTimeSec and holds a sent transaction in the mempool until the next block", async () => {
    const c = await base({ blockTimeSec: BASE_BLOCK_TIME_SEC });
    // Align with a fresh block so the send has most of a block time before the next.
    const sentAtBlock = await atBlockStart(c);
    const hash = await sendRaw(c);
    await sleep(500);
    // Read in this order, a head still at the send's block proves the receipt and the pending transaction were read
    // before any block that could hold it (a loaded machine may take longer than a block time to get here).
    const receiptBefore = await call(c.url, "eth_getTransactionReceipt", [hash]);
    const pendingBefore = await call(c.url, "eth_getTransactionByHash", [hash]);
    const head = Number(await call(c.url, "eth_blockNumber"));
    if (head === sentAtBlock) {
      expect(receiptBefore).toBeNull();
      expect(pendingBefore.blockNumber).toBeNull();
    }
    const receipt = await minedReceipt(c.url, hash);
    expect(Number(receipt.blockNumber)).toBe(sentAtBlock + 1);
    // Blocks keep coming with nothing to mine.
    const blocks = [Number(await call(c.url, "eth_blockNumber"))];
    await sleep(BASE_BLOCK_TIME_SEC * 1000 + 500);
    blocks.push(Number(await call(c.url, "eth_blockNumber")));
    expect(blocks[1]! - blocks[0]!).toBeGreaterThanOrEqual(1);
  });

  it("mines on Base's interval by default: a sent transaction is not mined at once", async () => {
    const c = await base({});
    await atBlockStart(c);
    const hash = await sendRaw(c);
    expect(await call(c.url, "eth_getTransactionReceipt", [hash])).toBeNull();
    expect((await minedReceipt(c.url, hash)).status).toBe("0x1");
  });

  it("automines when asked for explicitly with blockTimeSec 0: no block without a transaction, one per transaction", async () => {
    const c = await base({ blockTimeSec: 0 });
    const idle = Number(await call(c.url, "eth_blockNumber"));
    await sleep(BASE_BLOCK_TIME_SEC * 1000 + 500);
    expect(Number(await call(c.url, "eth_blockNumber"))).toBe(idle);
    const hash = await sendRaw(c);
    expect(Number((await minedReceipt(c.url, hash)).blockNumber)).toBe(idle + 1);
  });

  it("rejects a block time that is not a whole number of seconds", async () => {
    await expect(base({ blockTimeSec: 0.5 })).rejects.toThrow(/blockTimeSec/);
    await expect(base({ blockTimeSec: -2 })).rejects.toThrow(/blockTimeSec/);
  });
});

describe("startLocalEvmChain({ faults })", () => {
  it("drops raw transactions at its rate: the hash comes back, the transaction never reaches the chain", async () => {
    const c = await base({ faults: { seed: 9, dropSendRate: 0.4 } });
    const hashes: Hex[] = [];
    // A send the proxy lets through is in anvil's mempool before its hash is answered: nothing to wait for.
    for (let i = 0; i < 15; i++) hashes.push(await sendRaw(c));
    const known = await Promise.all(hashes.map((h) => call(c.faultFreeUrl, "eth_getTransactionByHash", [h])));
    const dropped = hashes.filter((_h, i) => known[i] === null);
    expect(dropped.length).toBeGreaterThanOrEqual(1);
    expect(dropped.length).toBeLessThanOrEqual(13);
    expect(
      c
        .faultLog()!
        .events.filter((e) => e.kind === "drop")
        .map((e) => hashes[e.n]),
    ).toEqual(dropped);
  });

  it("delays raw transactions by a time drawn from confirmDelayMs", async () => {
    const c = await base({ faults: { seed: 2, confirmDelayMs: [600, 900] } });
    const hash = await sendRaw(c);
    expect(await call(c.url, "eth_getTransactionByHash", [hash])).toBeNull();
    await sleep(1_200);
    // Past the delay the transaction is in anvil's mempool, and the next block mines it.
    expect(await call(c.faultFreeUrl, "eth_getTransactionByHash", [hash])).not.toBeNull();
    expect((await minedReceipt(c.url, hash)).status).toBe("0x1");
    expect(c.faultLog()!.events).toEqual([{ kind: "delay", n: 0, detail: expect.any(Number) }]);
  });

  it("reorgs the chain by 1 or 2 blocks after a new block: the block a receipt named is replaced", async () => {
    // Automine, asked for: at rate 1 every interval-mined empty block would reorg too; this pins the send's own block.
    const c = await base({ blockTimeSec: 0, faults: { seed: 4, reorgRate: 1 } });
    const account = privateKeyToAccount(generatePrivateKey());
    await call(c.faultFreeUrl, "anvil_setBalance", [account.address, "0xde0b6b3a7640000"]);
    const chain = defineChain({
      id: c.chainId,
      name: "local",
      nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
      rpcUrls: { default: { http: [c.url] } },
    });
    const wallet = createWalletClient({ account, chain, transport: http(c.url) });
    const hash = (await call(c.url, "eth_sendRawTransaction", [
      await wallet.signTransaction({
        to: account.address,
        value: 1n,
        gas: 21_000n,
        maxFeePerGas: parseGwei("10"),
        maxPriorityFeePerGas: 1n,
        nonce: 0,
      }),
    ])) as Hex;
    // Automine mined it before the send answered. Read at once, past the faults: on a loaded machine the reorg watcher
    // may replace the block before a slower reader sees the receipt at all.
    const receipt = await call(c.faultFreeUrl, "eth_getTransactionReceipt", [hash]);
    let replaced = false;
    for (let i = 0; i < 40 && !replaced; i++) {
      await sleep(50);
      replaced = c.faultLog()!.events.some((e) => e.kind === "reorg");
    }
    expect(replaced).toBe(true);
    const reorg = c.faultLog()!.events.find((e) => e.kind === "reorg");
    expect([1, 2]).toContain(reorg!.detail);
    if (receipt) {
      const height = Number(receipt.blockNumber);
      expect(reorg).toMatchObject({ n: height });
      const block = await call(c.faultFreeUrl, "eth_getBlockByNumber", [`0x${height.toString(16)}`, false]);
      expect(block?.hash).not.toBe(receipt.blockHash);
    }
  });
});
