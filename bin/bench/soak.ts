// `npm run soak -- --calls 2000 [--agents 50] [--instances 1] [--seed N] [--no-faults] [--content-faults] [--adversary]`: the whole service offline
// under a flaky-chain fault profile and thousands of mixed calls; prints a summary and exits 1 when an invariant fails.
import { parseArgs } from "node:util";
import { runSoak } from "../../devtools/soak/run-soak";

const HELP = `usage: npm run soak -- --calls N [--agents N] [--instances N] [--seed N] [--kill-midway] [--no-faults] [--content-faults] [--adversary]

Starts, offline: a fresh PostgreSQL database (on TEST_DATABASE_URL's server, default postgresql://postgres@127.0.0.1:5432/postgres),
the local chains at real timing (Solana devnet and mainnet: 400 ms slots; anvil as Base Sepolia and Base: 2 s blocks),
an OpenAI-compatible fake provider, and --instances production servers (npm start on a production build in .next-soak/,
built first when missing or older than the sources) on that one database. Then --agents concurrent agents make --calls
mixed calls: paid chat on Solana and Base (stock @x402/fetch clients), streamed paid calls, prepaid signed calls racing
shared balances, top-ups, one payment header sent to every instance at once, and unserved calls retried with the same
header. 502 settlement_pending / chain_unavailable / upstream_error and 503 are retried with the same header after
retry_after, at most 10 sends.

Default fault profile (--no-faults turns it off), seeded from --seed:
  Solana: 3% of sends dropped, 10% confirmed 1-10 s late, 3% of blockhashes expiring early (0-10 slots),
          HTTP 429 (Retry-After: 1) 2%, 503 2%, timeouts 0.3% (held 15 s, then cut)
  Base:   2% of transactions dropped, 10% mined 1-10 s late, a reorg of depth 1-2 after 3% of blocks,
          the same HTTP faults

--content-faults makes a seeded 30% of the prompts (which the built-in model echoes) and of the provider's answers carry
U+0000, a lone surrogate, U+2028/2029, a BOM or a text escape: stored, hashed, streamed and replayed like any other.

Exits 1 when an invariant fails: reconcile drift; the provider answering one paid remote call more than once; a settled payment not credited exactly once; two relayed EVM
transactions sharing a nonce; a 5xx other than 502 upstream_error/chain_unavailable/settlement_pending and 503; an
agent whose USDC spent differs from what its settled payments credited; one payment header served twice.

--adversary runs, beside the agents, an adversary who pays for nothing and knows everything public: the chains'
transactions, every header the agents send and every answer they get (a leaky proxy), every receipt. He wraps landed
transfers in his own payloads, re-sends the agents' headers with his own prompts, with mainnet and a provider model, with
his own key as a top-up's beneficiary, races pending payments as they land, takes over headers of cut-off calls once
their lease ran out, and pays for one call himself to re-send it for another. Exits 1, besides the above, when he was
served a call or credited a unit he did not pay for, or a served call's receipt covers a prompt its payer did not send.
His choices replay with --seed.`;

const { values } = parseArgs({
  options: {
    calls: { type: "string" },
    agents: { type: "string", default: "50" },
    instances: { type: "string", default: "1" },
    seed: { type: "string", default: "1" },
    "kill-midway": { type: "boolean", default: false },
    "no-faults": { type: "boolean", default: false },
    "content-faults": { type: "boolean", default: false },
    adversary: { type: "boolean", default: false },
    help: { type: "boolean", default: false },
  },
  strict: true,
});
if (values.help || !values.calls) {
  console.log(HELP);
  process.exit(values.help ? 0 : 2);
}
const int = (name: string, v: string, min: number) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < min) {
    console.error(`soak: --${name} must be an integer ≥ ${min}, got ${v}`);
    process.exit(2);
  }
  return n;
};
const opts = {
  calls: int("calls", values.calls, 1),
  agents: int("agents", values.agents, 1),
  instances: int("instances", values.instances, 1),
  seed: int("seed", values.seed, 0),
  faults: !values["no-faults"],
  contentFaults: values["content-faults"],
  killMidway: values["kill-midway"],
  adversary: values.adversary,
};
const started = Date.now();
const log = (line: string) => console.log(`soak [${((Date.now() - started) / 1000).toFixed(0).padStart(4)} s] ${line}`);
const run = await runSoak({ ...opts, log });
console.log(`\n${run.table}`);
console.log(
  `\nsoak: ${run.failures.length === 0 ? "passed" : "FAILED"} in ${((Date.now() - started) / 1000).toFixed(0)} s (workload ${(run.wallMs / 1000).toFixed(0)} s)`,
);
process.exit(run.failures.length === 0 ? 0 : 1);
