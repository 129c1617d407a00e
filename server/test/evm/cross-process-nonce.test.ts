// Three instances relaying EIP-3009 transfers with one facilitator key to one Base chain at once (separate OS
// processes, each with its own viem client, sharing PostgreSQL): every transfer lands, and no two of the relayer's
// transactions share a nonce, also when the RPC drops sends or holds them back (its pending count then lags).
import { testEnv } from "../support/env";
import { spawn } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPublicClient, http, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { startLocalEvmChain, USDC_BY_EVM_CHAIN, type LocalEvmChain } from "../../../devtools/anvil";
import { startRelayRecorder } from "../../../devtools/soak/record-relays";
import { createTestDatabase, type TestDatabase } from "../support/test-db";
import { bundleForNode, type NodeBundle } from "../../../devtools/node-bundle";

const INSTANCES = 3;
const TRANSFERS_EACH = 6;

let evm: LocalEvmChain;
let faulty: LocalEvmChain;
let tdb: TestDatabase;
/** nonce-relay-child.ts bundled once: each instance starts with plain node, not through tsx's loader. */
let relayChild: NodeBundle;
beforeAll(async () => {
  relayChild = await bundleForNode("server/test/evm/nonce-relay-child.ts");
  // Interval mining: transactions wait in the mempool, where two with one nonce collide.
  evm = await startLocalEvmChain({
    chainId: 84532,
    ...USDC_BY_EVM_CHAIN[84532]!,
    usdc: USDC_BY_EVM_CHAIN[84532]!.address,
    blockTimeSec: 1,
  });
  // The soak's Base faults: a quarter of raw transactions answered with their hash and dropped, half held back 1-6 s.
  faulty = await startLocalEvmChain({
    chainId: 8453,
    ...USDC_BY_EVM_CHAIN[8453]!,
    usdc: USDC_BY_EVM_CHAIN[8453]!.address,
    blockTimeSec: 1,
    faults: { seed: 11, dropSendRate: 0.25, delaySendRate: 0.5, confirmDelayMs: [1_000, 6_000] },
  });
  tdb = await createTestDatabase(2);
});
afterAll(async () => {
  await evm?.close();
  await faulty?.close();
  await tdb?.drop();
  relayChild?.remove();
});

/**
 * The relayer's transactions mined from `startBlock` on, in block order. Every head is read uncached: viem answers
 * getBlockNumber from a cache up to 4 s old, which ended one scan before the blocks that held most transfers.
 */
async function minedNonces(chain: LocalEvmChain, relayer: string, startBlock: bigint): Promise<number[]> {
  const client = createPublicClient({ transport: http(chain.faultFreeUrl) });
  const end = await client.getBlockNumber({ cacheTime: 0 });
  const nonces: number[] = [];
  for (let n = startBlock + 1n; n <= end; n++) {
    const block = await client.getBlock({ blockNumber: n, includeTransactions: true });
    for (const tx of block.transactions) if (tx.from.toLowerCase() === relayer.toLowerCase()) nonces.push(tx.nonce);
  }
  return nonces;
}

function runInstance(env: Record<string, string>): Promise<({ hash: Hex } | { error: string })[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--conditions=react-server", relayChild.entry], {
      env: testEnv({ ...env, LOG_LEVEL: "silent" }),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (c: Buffer) => (out += c.toString()));
    child.stderr.on("data", (c: Buffer) => (err += c.toString()));
    child.on("exit", (code) => {
      const line = out.trim().split("\n").pop();
      if (code !== 0 || !line) return reject(new Error(`instance exited ${code}: ${err.slice(-2000)}`));
      resolve(JSON.parse(line) as ({ hash: Hex } | { error: string })[]);
    });
  });
}

describe("the EVM relayer's nonce across instances", () => {
  it("lands every transfer three instances relay at once with one key, each with its own nonce", async () => {
    const relayerKey = generatePrivateKey();
    const relayer = privateKeyToAccount(relayerKey).address;
    const payTo = privateKeyToAccount(generatePrivateKey()).address;
    await evm.fund(relayer, { wei: 10n ** 18n });
    const payers = Array.from({ length: INSTANCES }, () => generatePrivateKey());
    for (const key of payers) await evm.fund(privateKeyToAccount(key).address, { usdcUnits: 1_000_000n });
    const client = createPublicClient({ transport: http(evm.faultFreeUrl) });
    const startBlock = await client.getBlockNumber({ cacheTime: 0 });

    const common = {
      RPC_URL: evm.url,
      CHAIN_ID: "84532",
      USDC: evm.usdc,
      TOKEN_NAME: USDC_BY_EVM_CHAIN[84532]!.name,
      TOKEN_VERSION: USDC_BY_EVM_CHAIN[84532]!.version,
      RELAYER_KEY: relayerKey,
      PAY_TO: payTo,
      COUNT: String(TRANSFERS_EACH),
      DATABASE_URL: tdb.url,
      ...(testEnv().NONCE_MODE ? { NONCE_MODE: testEnv().NONCE_MODE } : {}),
    };
    const results = (await Promise.all(payers.map((key) => runInstance({ ...common, PAYER_KEY: key })))).flat();

    expect(results.filter((r) => "error" in r)).toEqual([]);
    const hashes = results.map((r) => (r as { hash: Hex }).hash);
    const receipts = await Promise.all(
      hashes.map((hash) => client.waitForTransactionReceipt({ hash, timeout: 30_000, pollingInterval: 250 })),
    );
    expect(receipts.map((r) => r.status)).toEqual(hashes.map(() => "success"));
    const perTransfer = (TRANSFERS_EACH * (TRANSFERS_EACH + 1)) / 2;
    expect(await evm.usdcBalance(payTo)).toBe(BigInt(INSTANCES * perTransfer));

    // Scan every block since the start: each of the relayer's transactions has a nonce of its own.
    const end = await client.getBlockNumber({ cacheTime: 0 });
    const nonces: number[] = [];
    for (let n = startBlock + 1n; n <= end; n++) {
      const block = await client.getBlock({ blockNumber: n, includeTransactions: true });
      for (const tx of block.transactions) if (tx.from.toLowerCase() === relayer.toLowerCase()) nonces.push(tx.nonce);
    }
    expect(nonces).toHaveLength(INSTANCES * TRANSFERS_EACH);
    expect(new Set(nonces).size).toBe(nonces.length);
  });

  it("gives every nonce to one transaction and lands every transfer when the RPC drops sends and holds them back", async () => {
    const relayerKey = generatePrivateKey();
    const relayer = privateKeyToAccount(relayerKey).address;
    const payTo = privateKeyToAccount(generatePrivateKey()).address;
    await faulty.fund(relayer, { wei: 10n ** 18n });
    const payers = Array.from({ length: INSTANCES }, () => generatePrivateKey());
    for (const key of payers) await faulty.fund(privateKeyToAccount(key).address, { usdcUnits: 1_000_000n });
    const client = createPublicClient({ transport: http(faulty.faultFreeUrl) });
    const startBlock = await client.getBlockNumber({ cacheTime: 0 });
    // Every raw transaction any instance sends passes the recorder: two different ones with one nonce show there.
    const recorder = await startRelayRecorder(faulty.url);
    try {
      const common = {
        RPC_URL: recorder.url,
        CHAIN_ID: "8453",
        USDC: faulty.usdc,
        TOKEN_NAME: USDC_BY_EVM_CHAIN[8453]!.name,
        TOKEN_VERSION: USDC_BY_EVM_CHAIN[8453]!.version,
        RELAYER_KEY: relayerKey,
        PAY_TO: payTo,
        COUNT: String(TRANSFERS_EACH),
        DATABASE_URL: tdb.url,
        SWEEP_UNTIL_MINED: "true",
      };
      const results = (await Promise.all(payers.map((key) => runInstance({ ...common, PAYER_KEY: key })))).flat();

      expect(results.filter((r) => "error" in r)).toEqual([]);
      const byNonce = new Map<number, Set<string>>();
      for (const tx of recorder.sent)
        if (tx.from === relayer.toLowerCase()) byNonce.set(tx.nonce, (byNonce.get(tx.nonce) ?? new Set()).add(tx.hash));
      expect([...byNonce].filter(([, hashes]) => hashes.size > 1)).toEqual([]);

      const hashes = results.map((r) => (r as { hash: Hex }).hash);
      const receipts = await Promise.all(
        hashes.map((hash) =>
          client.waitForTransactionReceipt({ hash, timeout: 20_000, pollingInterval: 250 }).catch(() => null),
        ),
      );
      expect(receipts.map((r) => r?.status ?? "never mined")).toEqual(hashes.map(() => "success"));
      const perTransfer = (TRANSFERS_EACH * (TRANSFERS_EACH + 1)) / 2;
      expect(await faulty.usdcBalance(payTo)).toBe(BigInt(INSTANCES * perTransfer));
      // Contiguous nonces from 0: none skipped, none mined twice.
      const nonces = (await minedNonces(faulty, relayer, startBlock)).sort((a, b) => a - b);
      expect(nonces).toEqual(Array.from({ length: INSTANCES * TRANSFERS_EACH }, (_, i) => i));
      // The faults were dealt: some sends were dropped, some held back.
      expect(faulty.faultLog()!.counts.drop).toBeGreaterThan(0);
      expect(faulty.faultLog()!.counts.delay).toBeGreaterThan(0);
    } finally {
      await recorder.close();
    }
  }, 180_000);
});
