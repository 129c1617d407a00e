// Three instances of the production server (`npm start` on a production build) on one PostgreSQL, the local chains at
// real timing under the soak's fault profile, and the soak's mixed workload over real HTTP: paid calls on Solana and
// Base, one payment header sent to every instance at once, prepaid calls racing shared balances across instances,
// streams, unserved retries and top-ups, under the content fault profile (a share of prompts and answers carry U+0000,
// lone surrogates and their kin). Midway one instance is SIGKILLed and started again. Afterwards the soak's invariants
// must all hold (devtools/soak/check-soak.ts). This is `npm test`'s soak: the size CI ran as its own step
// (`npm run soak -- --calls 300 --agents 50`), here on three instances with a kill, serving the run's one build.
import { describe, expect, it } from "vitest";
import { runSoak } from "../../../devtools/soak/run-soak";

describe("three production instances on one database", () => {
  it("keep every money invariant through the mixed workload and an instance SIGKILLed and restarted midway", async () => {
    const run = await runSoak({
      calls: 300,
      agents: 50,
      instances: 3,
      seed: 11,
      killMidway: true,
      contentFaults: true,
      log: (line) => console.log(`multi-instance: ${line}`),
    });
    console.log(run.table);
    expect(run.failures).toEqual([]);
  }, 900_000);
});
