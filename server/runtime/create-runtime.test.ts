// createRuntime takes what a test replaces (the chains, the provider, the keys, the clock, the logger) and builds
// nothing it was given. What it builds by default (the config's chains and provider) is proven by every integration
// test that builds a runtime.
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServiceKeys } from "../keys/service-keys";
import { createFakeChain } from "../test/support/fakes/fake-chain";
import { createFakeUpstream } from "../test/support/fakes/fake-upstream";
import { openWorldDatabase, WORLD_NETWORK, type WorldDatabase } from "../test/support/fakes/payment-world";
import { manualClock } from "../test/support/manual-clock";
import { createRuntime } from "./create-runtime";

let database: WorldDatabase;
// The worker opens its database on first use: seconds on a loaded machine.
beforeAll(async () => {
  database = await openWorldDatabase();
}, 60_000);
afterAll(async () => {
  await database.close();
});

describe("createRuntime()", () => {
  it("uses the gateway, its facilitator, the provider, the keys, the clock and the logger it is given", async () => {
    const { config } = database;
    const clock = manualClock();
    const chain = createFakeChain({
      networks: config.networks,
      networkId: WORLD_NETWORK,
      headSeconds: 0,
      offerReceipts: { extension: {} as never, issueSettlementReceipt: async () => null },
    });
    const upstream = createFakeUpstream();
    const keys = createServiceKeys(config);
    const log = pino({ level: "silent" });
    const runtime = await createRuntime(config, {
      database: { prisma: database.open.prisma, close: async () => undefined },
      gateway: chain.gateway,
      upstream,
      keys,
      clock,
      log,
    });
    expect(runtime.gateway).toBe(chain.gateway);
    expect(runtime.chains).toEqual({ gateway: chain.gateway, facilitator: chain.facilitator });
    expect(runtime.upstream).toBe(upstream);
    expect(runtime.keys).toBe(keys);
    expect(runtime.clock).toBe(clock);
    expect(runtime.log).toBe(log);
    // Nothing reached the chain or the provider while it was built.
    expect(chain.calls).toEqual([]);
    expect(upstream.requests).toEqual([]);
    await runtime.close();
  });

  it("refuses a facilitator other than its gateway's: the payment code reaches the chains through the gateway", async () => {
    const { config } = database;
    const offerReceipts = { extension: {} as never, issueSettlementReceipt: async () => null };
    const one = createFakeChain({ networks: config.networks, networkId: WORLD_NETWORK, headSeconds: 0, offerReceipts });
    const other = createFakeChain({
      networks: config.networks,
      networkId: WORLD_NETWORK,
      headSeconds: 0,
      offerReceipts,
    });
    await expect(
      createRuntime(config, {
        database: { prisma: database.open.prisma, close: async () => undefined },
        gateway: one.gateway,
        facilitator: other.facilitator,
        upstream: createFakeUpstream(),
      }),
    ).rejects.toThrow(/facilitator/);
  });
});
