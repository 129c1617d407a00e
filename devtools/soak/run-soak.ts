// One soak run, start to verdict: agents' keys, the stack (soak-stack.ts), funding, the workload (run-workload.ts),
// optionally an instance SIGKILLed midway and started again, then the invariants and the summary (check-soak.ts).
// `npm run soak` (bin/bench/soak.ts) and the multi-instance integration test both run exactly this.
import "server-only";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { generateKeypair } from "../../server/keys/parse-secret-key";
import { parseUsdcToUnits } from "../../server/verify";
import { Adversary, checkAdversary, type AdversaryWorld } from "./adversary";
import { checkSoak, readBalances, type SoakVerdict } from "./check-soak";
import { assignPrepaidKeys, prepaidKeyCount, runWorkload, type Agent } from "./run-workload";
import { REMOTE_MODEL, SOAK_PAYMENT_LEASE_MS, SOAK_PRICE_USDC, startSoakStack } from "./soak-stack";

/** Each agent's USDC on each chain: far more than its calls cost, so running out is never the story. */
const AGENT_USDC_UNITS = 1_000_000n;

export interface SoakRunOptions {
  calls: number;
  agents: number;
  instances: number;
  seed: number;
  faults?: boolean;
  /** The content fault profile (content-faults.ts): prompts and answers carrying NUL, lone surrogates and their kin. */
  contentFaults?: boolean;
  /** SIGKILL one instance when half the calls are made, and start it again. */
  killMidway?: boolean;
  /** Run the adversary (adversary.ts) beside the honest agents, and check its invariants too. */
  adversary?: boolean;
  log?: (line: string) => void;
}

export interface SoakRun extends SoakVerdict {
  wallMs: number;
}

/** Runs the soak and returns its summary table and the invariants that failed (none: the run passed). */
export async function runSoak(opts: SoakRunOptions): Promise<SoakRun> {
  const log = opts.log ?? (() => {});
  const prepaidKeys = Array.from({ length: prepaidKeyCount(opts.agents) }, () => generateKeypair());
  const prepaidKeyOf = assignPrepaidKeys(prepaidKeys);
  const agents: Agent[] = Array.from({ length: opts.agents }, (_, index) => {
    const evm = generatePrivateKey();
    return {
      index,
      solana: generateKeypair(),
      evm,
      evmAddress: privateKeyToAccount(evm).address,
      prepaidKey: prepaidKeyOf(index),
    };
  });
  const adversaryKeys = { wallet: generateKeypair(), beneficiary: generateKeypair() };
  const stack = await startSoakStack({
    instances: opts.instances,
    seed: opts.seed,
    faults: opts.faults ?? true,
    contentFaults: opts.contentFaults ?? false,
    agents: { solana: agents.map((a) => a.solana), evm: agents.map((a) => a.evmAddress), usdcUnits: AGENT_USDC_UNITS },
    log,
  });
  try {
    const before = await readBalances(stack, agents);
    let adversary: { it: Adversary; world: AdversaryWorld } | null = null;
    if (opts.adversary) {
      // His wallet holds devnet USDC for his own payments; it is on no allowlist.
      await stack.devnet.fundAccount(adversaryKeys.wallet.publicKeyBase58, { usdcUnits: AGENT_USDC_UNITS });
      const world: AdversaryWorld = {
        instances: () => stack.instances.map((i) => i.url),
        solana: [
          {
            name: "devnet",
            caip2: stack.devnet.caip2,
            rpcUrl: stack.devnet.faultFreeUrl,
            feePayer: stack.facilitator.solana,
          },
          {
            name: "mainnet",
            caip2: stack.mainnet.caip2,
            rpcUrl: stack.mainnet.faultFreeUrl,
            feePayer: stack.facilitator.solana,
          },
        ],
        evm: [
          {
            name: "base-sepolia",
            caip2: "eip155:84532",
            rpcUrl: stack.baseSepolia.faultFreeUrl,
            usdc: stack.baseSepolia.usdc,
          },
          { name: "base", caip2: "eip155:8453", rpcUrl: stack.base.faultFreeUrl, usdc: stack.base.usdc },
        ],
        priceUnits: parseUsdcToUnits(SOAK_PRICE_USDC)!,
        providerModel: REMOTE_MODEL,
        leaseMs: SOAK_PAYMENT_LEASE_MS,
        ...adversaryKeys,
        seed: opts.seed,
        log,
      };
      adversary = { it: new Adversary(world), world };
      adversary.it.start();
      log(`adversary attacking beside the agents (seed ${opts.seed})`);
    }
    log(`running ${opts.calls} calls from ${agents.length} agents (seed ${opts.seed})…`);
    const started = Date.now();
    let restart: Promise<void> = Promise.resolve();
    const records = await runWorkload(stack, agents, {
      calls: opts.calls,
      seed: opts.seed,
      contentFaults: opts.contentFaults ?? false,
      log,
      ...(adversary ? { observe: adversary.it.observe } : {}),
      onMidway: opts.killMidway
        ? async () => {
            const victim = stack.instances.length > 1 ? 1 : 0;
            log(`midway: SIGKILL instance ${victim}, then start it again`);
            stack.instances[victim]!.kill("SIGKILL");
            await stack.instances[victim]!.exited;
            restart = stack.startInstance(victim).then((i) => log(`instance ${victim} serving again at ${i.url}`));
            await restart;
          }
        : undefined,
    });
    await restart;
    if (adversary) {
      log("the adversary's closing pass over everything he saw…");
      await adversary.it.finish();
    }
    const wallMs = Date.now() - started;
    log("checking the invariants…");
    const soakVerdict = await checkSoak(stack, agents, records, before, wallMs);
    const adversaryVerdict = adversary ? await checkAdversary(stack.db.prisma, adversary.it, adversary.world) : null;
    const verdict: SoakVerdict = adversaryVerdict
      ? {
          table: `${soakVerdict.table}\n\n${adversaryVerdict.table}\n${
            adversaryVerdict.failures.length
              ? `ADVERSARY INVARIANTS FAILED (${adversaryVerdict.failures.length}):\n${adversaryVerdict.failures
                  .slice(0, 40)
                  .map((f) => `  - ${f}`)
                  .join("\n")}`
              : "adversary invariants: all held"
          }`,
          failures: [...soakVerdict.failures, ...adversaryVerdict.failures],
        }
      : soakVerdict;
    // A failed run shows what each instance last logged (warnings and errors).
    if (verdict.failures.length)
      for (const i of stack.instances) log(`instance ${i.index}'s last lines:\n${i.output()}`);
    return { ...verdict, wallMs };
  } finally {
    await stack.close();
  }
}
