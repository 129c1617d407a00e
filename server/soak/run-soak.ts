// One soak run, start to verdict: agents' keys, the stack (soak-stack.ts), funding, the workload (run-workload.ts),
// optionally an instance SIGKILLed midway and started again, then the invariants and the summary (check-soak.ts).
// `npm run soak` (bin/soak.ts) and the multi-instance integration test both run exactly this.
import "server-only";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { generateKeypair } from "../keys/parse-secret-key";
import { checkSoak, readBalances, type SoakVerdict } from "./check-soak";
import { assignPrepaidKeys, prepaidKeyCount, runWorkload, type Agent } from "./run-workload";
import { startSoakStack } from "./soak-stack";

/** Each agent's USDC on each chain: far more than its calls cost, so running out is never the story. */
const AGENT_USDC_UNITS = 1_000_000n;

export interface SoakRunOptions {
  calls: number;
  agents: number;
  instances: number;
  seed: number;
  faults?: boolean;
  /** SIGKILL one instance when half the calls are made, and start it again. */
  killMidway?: boolean;
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
    return { index, solana: generateKeypair(), evm, evmAddress: privateKeyToAccount(evm).address, prepaidKey: prepaidKeyOf(index) };
  });
  const stack = await startSoakStack({
    instances: opts.instances,
    seed: opts.seed,
    faults: opts.faults ?? true,
    agents: { solana: agents.map((a) => a.solana), evm: agents.map((a) => a.evmAddress), usdcUnits: AGENT_USDC_UNITS },
    log,
  });
  try {
    const before = await readBalances(stack, agents);
    log(`running ${opts.calls} calls from ${agents.length} agents (seed ${opts.seed})…`);
    const started = Date.now();
    let restart: Promise<void> = Promise.resolve();
    const records = await runWorkload(stack, agents, {
      calls: opts.calls,
      seed: opts.seed,
      log,
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
    const wallMs = Date.now() - started;
    log("checking the invariants…");
    const verdict = await checkSoak(stack, agents, records, before, wallMs);
    // A failed run shows what each instance last logged (warnings and errors).
    if (verdict.failures.length) for (const i of stack.instances) log(`instance ${i.index}'s last lines:\n${i.output()}`);
    return { ...verdict, wallMs };
  } finally {
    await stack.close();
  }
}
