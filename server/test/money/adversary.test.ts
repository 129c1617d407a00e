// An adversary who knows everything public (every transaction on both chains, every honest header and answer, every
// receipt, when each pending payment lands) attacks the service over HTTP while honest agents run the soak's mixed
// workload with the stock x402 clients: paid chat on Solana and Base (devnet, Base Sepolia and both mainnets), streams,
// prepaid calls, top-ups, one header sent three times, unserved calls retried. Every Solana settlement confirms late
// (seeded), so every devnet payment waits as 502 settlement_pending; Base sends are mined late half the time.
// A failing run replays its choices with ADVERSARY_SEED=<seed> (printed); ADVERSARY_CALLS sets the honest calls.
import { IN_CI, testConfig, testKnob } from "../support/env";
import bs58 from "bs58";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFacilitator } from "../../facilitator/create-facilitator";
import { generateKeypair } from "../../keys/parse-secret-key";
import { reconcile } from "../../reconcile/reconcile";
import { Adversary, checkAdversary, type AdversaryWorld } from "../../../devtools/soak/adversary";
import {
  assignPrepaidKeys,
  prepaidKeyCount,
  runWorkload,
  type Agent,
  type CallRecord,
} from "../../../devtools/soak/run-workload";
import { FAIL_ONCE_MARKER, REMOTE_MODEL, SOAK_BASE_URL } from "../../../devtools/soak/soak-stack";
import { setEnv } from "../support/env";
import { completionAnswer, failureAnswer, startFakeProvider, type FakeProvider } from "../support/fake-provider";
import { startServedStack, type ServedStack } from "../support/http-service";
import { createLogger } from "../../log";

// CI runs one known seed, so a red run is a finding, replayable as printed; elsewhere each run explores a new seed.
const SEED = testKnob("ADVERSARY_SEED", IN_CI ? 1234 : Math.floor(Math.random() * 2 ** 31));
const CALLS = testKnob("ADVERSARY_CALLS", 24);
const AGENTS = 6;
const PRICE_UNITS = 1_000n;
const AGENT_USDC_UNITS = 1_000_000n;
/** How long the sweeper gets to finish the payments nobody retried before the books are read. */
const SETTLE_WAIT_MS = 15_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** What an honest call must end with: served (or credited) once; a prepaid call may find the shared balance spent. */
const HONEST_ENDINGS: Record<CallRecord["kind"], RegExp> = {
  paid: /^served$/,
  stream: /^served$/,
  unserved: /^served$/,
  topup: /^credited$/,
  replay: /^served once, rest refused$/,
  prepaid: /^(served|refused: no credit)$/,
  mcp: /^served$/,
};

describe("the adversary", () => {
  let served: ServedStack;
  let provider: FakeProvider;
  let restoreOrigin: () => Promise<void>;
  const facilitatorKey = generateKeypair();
  const prepaidKeys = Array.from({ length: prepaidKeyCount(AGENTS) }, () => generateKeypair());
  const prepaidKeyOf = assignPrepaidKeys(prepaidKeys);
  const agents: Agent[] = Array.from({ length: AGENTS }, (_, index) => {
    const evm = generatePrivateKey();
    return {
      index,
      solana: generateKeypair(),
      evm,
      evmAddress: privateKeyToAccount(evm).address,
      prepaidKey: prepaidKeyOf(index),
    };
  });
  const wallet = generateKeypair();
  const beneficiary = generateKeypair();

  beforeAll(async () => {
    const failedOnce = new Set<string>();
    provider = await startFakeProvider(({ raw, body }) => {
      const marker = new RegExp(`${FAIL_ONCE_MARKER} [\\w-]+`).exec(raw)?.[0];
      if (marker && !failedOnce.has(marker)) {
        failedOnce.add(marker);
        return failureAnswer;
      }
      return completionAnswer(body.model, "remote answer", { prompt_tokens: 12, completion_tokens: 6, cost: 0.00002 });
    });
    served = await startServedStack({
      // Solana's and Base's own pace: the faults' late confirmations are timed against it.
      timing: "real",
      mainnet: true,
      evm: true,
      baseMainnet: true,
      // A slow cluster: every Solana settlement confirms 2.5-4 s late, past the 1 s the service waits.
      devnet: { timing: "real", faults: { seed: SEED, confirmDelayMs: [2_500, 4_000] } },
      evmFaults: { seed: SEED + 1, confirmDelayMs: [1_000, 4_000], delaySendRate: 0.5 },
      env: {
        X402_FLAT_PRICE_USDC: "0.001",
        SETTLEMENT_CONFIRM_WAIT_MS: "1000",
        FACILITATOR_SECRET_KEY: bs58.encode(facilitatorKey.seed),
        SERVICE_MAINNET_ENABLED: "true",
        SERVICE_MAINNET_DEPOSIT_ADDRESS: facilitatorKey.publicKeyBase58,
        // Mainnet is for the honest agents only: the adversary's wallet is not allowed there.
        SERVICE_ALLOWED_AGENTS: agents.flatMap((a) => [a.solana.publicKeyBase58, a.evmAddress.toLowerCase()]).join(","),
        UPSTREAM_API_KEY: "adversary-test-provider-key",
        UPSTREAM_BASE_URL: provider.url,
        UPSTREAM_PROVIDER_NAME: "openrouter",
        UPSTREAM_TIMEOUT_MS: "10000",
        SERVICE_TESTNET_PROVIDER_MODELS: "true",
        PREPAID_RATE_LIMIT_PER_MINUTE: "1000000",
        LOCAL_MODEL_STREAM_DELAY_MS: "5",
      },
    });
    // Signed prepaid requests name the soak's origin: the service is told it is that origin.
    restoreOrigin = setEnv({ SERVICE_BASE_URL: SOAK_BASE_URL });
    const { devnet, mainnet, baseSepolia, base } = served.stack;
    for (const a of agents) {
      await devnet.fundAccount(a.solana.publicKeyBase58, { usdcUnits: AGENT_USDC_UNITS });
      await mainnet!.fundAccount(a.solana.publicKeyBase58, { usdcUnits: AGENT_USDC_UNITS });
      await baseSepolia!.fund(a.evmAddress, { usdcUnits: AGENT_USDC_UNITS });
      await base!.fund(a.evmAddress, { usdcUnits: AGENT_USDC_UNITS });
    }
    await devnet.fundAccount(wallet.publicKeyBase58, { usdcUnits: AGENT_USDC_UNITS });
  });
  afterAll(async () => {
    await restoreOrigin?.();
    await served?.close();
    await provider?.close();
  });

  it("is served nothing and credited nothing, while every honest call is served once and the books reconcile", async () => {
    console.log(
      `adversary test: seed ${SEED} (replay: ADVERSARY_SEED=${SEED} npx vitest run --config vitest.integration.config.ts server/test/money/adversary.test.ts)`,
    );
    const { devnet, mainnet, baseSepolia, base, tdb } = served.stack;
    const world: AdversaryWorld = {
      instances: () => [served.service.url],
      solana: [
        { name: "devnet", caip2: devnet.caip2, rpcUrl: devnet.faultFreeUrl, feePayer: facilitatorKey.publicKeyBase58 },
        {
          name: "mainnet",
          caip2: mainnet!.caip2,
          rpcUrl: mainnet!.faultFreeUrl,
          feePayer: facilitatorKey.publicKeyBase58,
        },
      ],
      evm: [
        { name: "base-sepolia", caip2: "eip155:84532", rpcUrl: baseSepolia!.faultFreeUrl, usdc: baseSepolia!.usdc },
        { name: "base", caip2: "eip155:8453", rpcUrl: base!.faultFreeUrl, usdc: base!.usdc },
      ],
      priceUnits: PRICE_UNITS,
      providerModel: REMOTE_MODEL,
      leaseMs: 120_000,
      wallet,
      beneficiary,
      seed: SEED,
      log: (line) => console.log(line),
    };
    const adversary = new Adversary(world);
    adversary.start();
    const started = Date.now();
    const records = await runWorkload({ devnet, mainnet: mainnet!, instances: [{ url: served.service.url }] }, agents, {
      calls: CALLS,
      seed: SEED,
      observe: adversary.observe,
    });
    await adversary.finish();
    const wallMs = Date.now() - started;

    // Payments nobody retried are finished by the sweeper before the books are read.
    const deadline = Date.now() + SETTLE_WAIT_MS;
    while (
      (await tdb.prisma.payment.count({ where: { status: { in: ["pending", "claimed", "settled", "serving"] } } })) >
        0 &&
      Date.now() < deadline
    )
      await sleep(500);

    const verdict = await checkAdversary(tdb.prisma, adversary, world);
    const failures = [...verdict.failures];
    for (const r of records) {
      if (!HONEST_ENDINGS[r.kind].test(r.outcome))
        failures.push(`honest ${r.kind} ${r.network} ended "${r.outcome}": ${r.statuses.join(" → ")}`);
      if (r.servedSends > 1) failures.push(`honest ${r.kind} ${r.network}: one header served ${r.servedSends} times`);
    }
    const reports = await reconcile({
      db: tdb.prisma,
      config: testConfig(),
      chains: { facilitator: await createFacilitator(testConfig()) },
      log: createLogger("silent"),
    });
    const drift = reports.flatMap((n) =>
      n.mismatches.map((m) => `${n.label}: ${m.kind} ${m.transaction}: ${m.detail}`),
    );
    failures.push(...drift.map((d) => `drift ${d}`));

    const byKind = new Map<string, Map<string, number>>();
    for (const r of records) {
      const key = `${r.kind} ${r.network}`;
      const outcomes = byKind.get(key) ?? new Map<string, number>();
      outcomes.set(r.outcome, (outcomes.get(r.outcome) ?? 0) + 1);
      byKind.set(key, outcomes);
    }
    const statuses = await tdb.prisma.payment.groupBy({ by: ["status"], _count: true });
    console.log(
      [
        `honest calls: ${records.length} in ${(wallMs / 1000).toFixed(0)} s`,
        ...[...byKind].sort().map(([k, o]) => `  ${k}: ${[...o].map(([x, n]) => `${x} ×${n}`).join(", ")}`),
        `payments: ${statuses.map((s) => `${s.status} ${s._count}`).join(", ")}`,
        verdict.table,
        `drift (reconcile): ${drift.length}`,
        failures.length
          ? `INVARIANTS FAILED (${failures.length}), seed ${SEED}:`
          : `invariants: all held (seed ${SEED})`,
        ...failures.slice(0, 40).map((f) => `  - ${f}`),
      ].join("\n"),
    );
    expect(failures, `replay with ADVERSARY_SEED=${SEED}`).toEqual([]);
    // The run proved something: the adversary attacked, with material from both chains.
    expect(adversary.attempts.length).toBeGreaterThan(20);
    expect(adversary.attempts.some((a) => a.kind === "wrap-landed-tx" || a.kind === "race-landing")).toBe(true);
  }, 240_000);
});
