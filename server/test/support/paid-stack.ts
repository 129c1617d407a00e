// A whole offline paid stack for integration tests: a local chain playing devnet (and optionally one playing
// mainnet, and an anvil chain for each EVM network asked for: Base Sepolia, Base, or any other row of the stack's
// registry), a fresh PostgreSQL database, a fresh data dir for keys, and the chat route handler bound to them. A test
// starts only the chains it pays on: each anvil costs start-up time.
import { createKeyPairSignerFromBytes, type KeyPairSigner } from "@solana/kit";
import {
  startLocalnet,
  type FaultProfileInput,
  type Localnet,
  type StartLocalnetOptions,
} from "../../../devtools/localnet";
import { spawnLocalnet, type RemoteLocalnet } from "../../../devtools/localnet/spawn-localnet";
import { rpcUrlVariable, type Config } from "../../env";
import { SHIPPED_NETWORKS, type EvmNetworkRow, type NetworkId, type NetworkRegistry } from "../../verify";
import { closeRouteRuntime, routeRuntime } from "../../runtime/route-edge";
import type { Runtime } from "../../context/runtime";
import { generateKeypair } from "../../keys/parse-secret-key";
import { creditAgent, type CreditKind } from "../../ledger/credit-agent";
import { createTestDatabase, type TestDatabase } from "./test-db";
import { startPgProxy, type PgProxy } from "./pg-proxy";
import { setEnv, tempDataDir, testConfig } from "./env";
import { createPayingFetch } from "../../agent/paying-fetch";
import { ExactSvmScheme } from "@x402/svm/exact/client";
import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from "@x402/core/http";
import type { PaymentRequired, PaymentRequirements } from "@x402/core/types";
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import { startLocalEvmChain, type LocalEvmChain } from "../../../devtools/anvil";
import { createEvmPayingFetch } from "../../agent/paying-fetch";

export interface PaidStack {
  devnet: Localnet;
  mainnet: Localnet | null;
  /** anvil playing Base Sepolia (with `evm: true`). */
  baseSepolia: LocalEvmChain | null;
  /** anvil playing Base mainnet (with `baseMainnet: true`). */
  base: LocalEvmChain | null;
  /** Every anvil chain of the stack, by the id of the network it plays (Base Sepolia's and Base's included). */
  evmChains: Partial<Record<NetworkId, LocalEvmChain>>;
  /** The facilitator's EVM address (gas payer and EVM deposit address), when an EVM chain runs. */
  evmDeposit: `0x${string}` | null;
  tdb: TestDatabase;
  /** The proxy the service reaches its database through (with `dbProxy: true`): cut it, or drop a reply after a commit. */
  dbProxy: PgProxy | null;
  /** The config the stack's routes run with (the env overrides of a later withEnv not included). */
  config: Config;
  /** The routes' runtime (built on first use, with its background jobs, as a server's first request builds it). */
  runtime(): Promise<Runtime>;
  /** Calls the chat route handler in process with a plain Request. */
  chat(init: { body: unknown; headers?: Record<string, string> }): Promise<Response>;
  /** A fresh funded agent (USDC only, no SOL). */
  newAgent(usdcUnits?: bigint, chain?: Localnet): Promise<KeyPairSigner>;
  /** A stock @x402/fetch client for `signer`, whose requests go to the route handler. */
  payingFetch(signer: KeyPairSigner): typeof fetch;
  /** Credits `units` of prepaid credit on devnet to `agentPubkey`: a ledger entry of `kind` and the balance, together. */
  credit(agentPubkey: string, units: bigint, kind?: CreditKind): Promise<void>;
  /** A fresh EVM agent holding `usdcUnits` of test USDC and no ETH (on Base Sepolia's chain unless `chain` is given). */
  newEvmAgent(usdcUnits?: bigint, chain?: LocalEvmChain): Promise<PrivateKeyAccount>;
  /** A stock @x402/fetch client with the exact EVM scheme on every anvil chain's network for `account`, whose requests go to the route handler. */
  evmPayingFetch(account: PrivateKeyAccount): typeof fetch;
  close(): Promise<void>;
}

const BASE = "http://signet.test";
/**
 * The default chains keep real timing's rules (a slot clock, commitment lag, finalization depth, blockhash expiry;
 * interval-mined blocks and a mempool) at a pace tests that do not measure time need not wait for: 100 ms slots
 * (blockhashes still live 150 slots, 15 s) and 250 ms blocks. `timing: "real"` keeps Solana's 400 ms and Base's 2 s.
 */
export const FAST_SLOT_MS = 100;
export const FAST_BLOCK_MS = 250;

/**
 * Starts the stack; pass env overrides for settings defaults (price, switch, …). The chains run real timing fast
 * (FAST_SLOT_MS slots, FAST_BLOCK_MS blocks) unless `timing: "real"` asks for Solana's and Base's own pace, or
 * `timing: "instant"` for a slot per transaction and automine.
 */
export async function startPaidStack(
  opts: {
    mainnet?: boolean;
    /** anvil playing Base Sepolia. */
    evm?: boolean;
    /** anvil playing Base. */
    baseMainnet?: boolean;
    /** An anvil chain for each of these EVM networks of the stack's registry, at its chain id with its USDC and domain. */
    evmNetworks?: NetworkId[];
    /** The networks the service takes payment on (default: this release's): a test's own registry, rows and all. */
    networks?: NetworkRegistry;
    timing?: "fast" | "real" | "instant";
    env?: Record<string, string | undefined>;
    /** The devnet chain's own timing and seeded faults, over `timing`. */
    devnet?: Pick<StartLocalnetOptions, "timing" | "slotMs" | "faults">;
    /** Seeded faults of the Base Sepolia chain's RPC (the fault proxy). */
    evmFaults?: FaultProfileInput;
    /**
     * Where the Solana chains run: in this process (the default; a test may reach into `devnet.chain`), or each in its
     * own process, reached over RPC only, so this process's CPU is the service's and its clients' (the bench).
     */
    chainProcess?: "this" | "own";
    /** The service reaches its database through a proxy a test can cut (the test's own `tdb` stays direct). */
    dbProxy?: boolean;
  } = {},
): Promise<PaidStack> {
  const dataDir = tempDataDir("signet-paid-");
  const timing = opts.timing ?? "fast";
  const blockTime =
    timing === "instant" ? { blockTimeSec: 0 } : timing === "fast" ? { blockTimeMs: FAST_BLOCK_MS } : {};
  const solana: Pick<StartLocalnetOptions, "timing" | "slotMs"> =
    timing === "fast" ? { timing: "real", slotMs: FAST_SLOT_MS } : { timing };
  // The service meets devnet's faults; agents build their payments through the fault-free door. A test that sets
  // devnet's timing itself gets exactly that.
  const startChain =
    opts.chainProcess === "own" ? (o: StartLocalnetOptions) => spawnLocalnet(o).then(inAnotherProcess) : startLocalnet;
  const devnet = await startChain({
    profile: "devnet",
    port: 0,
    dataDir: null,
    ...(opts.devnet?.timing ? { timing: opts.devnet.timing } : solana),
    ...opts.devnet,
  });
  const mainnet = opts.mainnet ? await startChain({ profile: "mainnet", port: 0, dataDir: null, ...solana }) : null;
  const networks = opts.networks ?? SHIPPED_NETWORKS;
  const evmIds = [
    ...new Set([
      ...(opts.evm ? ["base-sepolia"] : []),
      ...(opts.baseMainnet ? ["base"] : []),
      ...(opts.evmNetworks ?? []),
    ]),
  ];
  const evmRows = evmIds.map((id) => {
    const row = (networks.ofFamily("evm") as readonly EvmNetworkRow[]).find((r) => r.id === id);
    if (!row)
      throw new Error(
        `no EVM network ${id} in the stack's registry (${networks
          .ofFamily("evm")
          .map((r) => r.id)
          .join(", ")})`,
      );
    return row;
  });
  // Side by side: each anvil takes about a second to start and plant its token.
  const startedEvm = await Promise.allSettled(
    evmRows.map((row) =>
      startLocalEvmChain({
        chainId: row.chainId,
        usdc: row.usdcAsset as `0x${string}`,
        ...row.eip712,
        ...blockTime,
        faults: row.id === "base-sepolia" ? (opts.evmFaults ?? null) : null,
      }),
    ),
  );
  const evmChains: Partial<Record<NetworkId, LocalEvmChain>> = {};
  for (const [i, result] of startedEvm.entries())
    if (result.status === "fulfilled") evmChains[evmRows[i]!.id] = result.value;
  const evmFailed = startedEvm.find((r) => r.status === "rejected");
  if (evmFailed) {
    await Promise.allSettled([devnet.close(), mainnet?.close(), ...Object.values(evmChains).map((c) => c?.close())]);
    throw evmFailed.reason;
  }
  const baseSepolia = evmChains["base-sepolia"] ?? null;
  const base = evmChains.base ?? null;
  const tdb = await createTestDatabase();
  const dbProxy = opts.dbProxy ? await startPgProxy(tdb.url) : null;
  const restore = setEnv(
    {
      NODE_ENV: "test",
      // The origin signed prepaid requests name: the one the stack's requests are addressed to.
      SERVICE_BASE_URL: BASE,
      SIGNET_DATA_DIR: dataDir,
      DATABASE_URL: dbProxy?.url ?? tdb.url,
      RPC_URL_SOLANA_DEVNET: devnet.url,
      RPC_URL_SOLANA_MAINNET: mainnet?.url,
      UPSTREAM_API_KEY: undefined,
      SERVICE_DEPOSIT_ADDRESS: undefined,
      FACILITATOR_SECRET_KEY: undefined,
      // Every EVM network of the registry: its anvil chain's RPC, or none.
      ...Object.fromEntries(networks.ofFamily("evm").map((row) => [rpcUrlVariable(row.id), evmChains[row.id]?.url])),
      FACILITATOR_EVM_SECRET_KEY: undefined,
      SERVICE_EVM_DEPOSIT_ADDRESS: undefined,
      // Requests handed straight to route handlers carry no peer address: all of them count as one client IP.
      PREPAID_IP_RATE_LIMIT_PER_MINUTE: "1000000",
      ...opts.env,
    },
    opts.networks ? { networks: opts.networks } : {},
  );
  const config = testConfig();
  // Boots like `npm run dev`: the routes' runtime (its facilitator announced) is built before anything is served.
  const facilitator = (await routeRuntime()).chains.facilitator;
  for (const chain of [devnet, mainnet])
    if (chain) await chain.fundAccount(facilitator.address, { lamports: 10_000_000_000n });
  const evmDeposit = facilitator.evm?.address ?? null;
  for (const chain of Object.values(evmChains))
    if (chain && evmDeposit) await chain.fund(evmDeposit, { wei: 10n ** 18n });
  const { POST } = await import("@/app/api/v1/chat/completions/route");
  const route = (req: Request) => POST(req, {});
  const stack: PaidStack = {
    devnet,
    mainnet,
    baseSepolia,
    base,
    evmChains,
    evmDeposit,
    tdb,
    dbProxy,
    config,
    runtime: routeRuntime,
    chat: ({ body, headers = {} }) =>
      route(
        new Request(`${BASE}/api/v1/chat/completions`, {
          method: "POST",
          headers: { "content-type": "application/json", ...headers },
          body: JSON.stringify(body),
        }),
      ),
    async newAgent(usdcUnits = 1_000_000n, chain = devnet) {
      const kp = generateKeypair();
      const signer = await createKeyPairSignerFromBytes(new Uint8Array([...kp.seed, ...kp.publicKey]));
      await chain.fundAccount(signer.address, { usdcUnits });
      return signer;
    },
    payingFetch(signer) {
      const rpcs: Record<string, string> = { [devnet.caip2]: devnet.faultFreeUrl };
      if (mainnet) rpcs[mainnet.caip2] = mainnet.url;
      return createPayingFetch(signer, rpcs, ((input: RequestInfo | URL, init?: RequestInit) =>
        route(new Request(input, init))) as typeof fetch);
    },
    async credit(agentPubkey, units, kind = "test_credit") {
      const credited = await creditAgent(tdb.prisma, { kind, agentPubkey, network: devnet.caip2, units });
      if (!credited.ok) throw new Error(`credit refused: ${credited.reason}`);
    },
    async newEvmAgent(usdcUnits = 1_000_000n, chain = baseSepolia ?? undefined) {
      if (!chain) throw new Error("start the stack with evm: true, or name the chain");
      const account = privateKeyToAccount(generatePrivateKey());
      await chain.fund(account.address, { usdcUnits });
      return account;
    },
    evmPayingFetch(account) {
      const caip2s = Object.values(evmChains).map((chain) => `eip155:${chain!.chainId}`);
      return createEvmPayingFetch(
        account,
        caip2s,
        ((input: RequestInfo | URL, init?: RequestInit) => route(new Request(input, init))) as typeof fetch,
        { networks },
      );
    },
    async close() {
      await closeRouteRuntime();
      await Promise.allSettled([
        devnet.close(),
        mainnet?.close(),
        ...Object.values(evmChains).map((c) => c?.close()),
        dbProxy?.close(),
      ]);
      await tdb.drop();
      await restore();
    },
  };
  return stack;
}

/** A chain in its own process, as a `Localnet` whose in-process chain object throws: a test that needs it starts the chain here. */
function inAnotherProcess(remote: RemoteLocalnet): Localnet {
  return Object.defineProperty({ ...remote }, "chain", {
    get(): never {
      throw new Error(
        'this stack\'s chain runs in its own process: reach it over RPC (devnet.url), or start the stack with chainProcess: "this"',
      );
    },
  }) as Localnet;
}

export const CHAT_URL = `${BASE}/api/v1/chat/completions`;

/** Builds a payment header with the stock client scheme; `pay` lets a test make the transaction pay something else. */
export async function buildPaymentHeader(
  signer: KeyPairSigner,
  challenge: PaymentRequired,
  rpcUrl: string,
  pay: (r: PaymentRequirements) => PaymentRequirements = (r) => r,
): Promise<string> {
  const accepted = challenge.accepts[0]!;
  const scheme = new ExactSvmScheme(signer, { rpcUrl });
  const result = await scheme.createPaymentPayload(2, pay(accepted));
  return encodePaymentSignatureHeader({
    x402Version: 2,
    resource: challenge.resource,
    accepted,
    payload: result.payload,
  });
}

/** The x402 v2 challenge of a 402 answer: base64 JSON in its PAYMENT-REQUIRED header (the body carries x402 v1's). */
export async function challengeOf(res: Response): Promise<PaymentRequired> {
  if (res.status !== 402) throw new Error(`expected 402, got ${res.status}: ${await res.text()}`);
  const header = res.headers.get("PAYMENT-REQUIRED");
  if (!header) throw new Error("a 402 without a PAYMENT-REQUIRED header");
  return decodePaymentRequiredHeader(header);
}
