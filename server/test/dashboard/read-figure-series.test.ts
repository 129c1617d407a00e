// The dashboard's chart series on a real PostgreSQL database: hourly buckets per network with no gaps, calls split by
// route, money received against the upstream cost of every call served, and nothing from before the window.
import { testConfig } from "../support/env";
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readFigureSeries } from "../../dashboard/read-figure-series";
import { readFigures } from "../../dashboard/read-figures";
import { readSettings } from "../../settings/read-settings";
import { createTestDatabase, type TestDatabase } from "../support/test-db";
import { createLogger } from "../../log";

const DEVNET = "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1";
const BASE_SEPOLIA = "eip155:84532";
const NOW = new Date("2026-05-01T12:34:00Z");
const at = (hoursAgo: number, minute = 10) => new Date(Date.UTC(2026, 4, 1, 12 - hoursAgo, minute));

let tdb: TestDatabase;
beforeAll(async () => {
  tdb = await createTestDatabase(2);
  const db = tdb.prisma;
  const call = (network: string, route: "chat" | "inference", costUnits: bigint, createdAt: Date) =>
    db.inferenceLog.create({
      data: {
        id: randomUUID(),
        agentPubkey: "agent",
        network,
        route,
        model: "local/echo-1",
        upstream: "local",
        costUnits,
        latencyMs: 5,
        status: "served",
        createdAt,
      },
    });
  const payment = (network: string, units: bigint, status: string, createdAt: Date) =>
    db.payment.create({
      data: {
        idempotencyKey: randomUUID(),
        network,
        payer: "agent",
        payTo: "deposit",
        units,
        purpose: "call",
        route: "chat",
        status,
        createdAt,
      },
    });
  await call(DEVNET, "chat", 300n, at(0));
  await call(DEVNET, "chat", 200n, at(0, 50));
  await call(DEVNET, "inference", 100n, at(0));
  await call(DEVNET, "chat", 400n, at(3));
  await call(BASE_SEPOLIA, "chat", 50n, at(23));
  // Outside the 24-hour window: never counted in the series.
  await call(DEVNET, "chat", 999n, at(30));
  await payment(DEVNET, 1_000n, "served", at(0));
  await payment(DEVNET, 1_000n, "served", at(0, 50));
  await payment(DEVNET, 5_000n, "settled", at(3));
  await payment(BASE_SEPOLIA, 1_000n, "served", at(23));
  // Money that was never received: refused or still pending.
  await payment(DEVNET, 7_000n, "failed", at(0));
  await payment(DEVNET, 7_000n, "pending", at(0));
});
afterAll(async () => tdb?.drop());

describe("readFigureSeries()", () => {
  it("has every hour of the window for every network seen, oldest first, zero when idle", async () => {
    const series = await readFigureSeries(tdb.prisma, 24, NOW);
    expect(series).toHaveLength(24 * 2);
    expect(series[0]!.hour).toBe("2026-04-30T13:00:00.000Z");
    expect(series.at(-1)!.hour).toBe("2026-05-01T12:00:00.000Z");
    const idle = series.find((p) => p.network === DEVNET && p.hour === "2026-05-01T10:00:00.000Z")!;
    expect(idle).toMatchObject({ paidCalls: 0, prepaidCalls: 0, receivedUsdc: 0, upstreamCostUsdc: 0, marginUsdc: 0 });
  });

  it("splits calls by route and sets received money against the cost of every call served in the hour", async () => {
    const series = await readFigureSeries(tdb.prisma, 24, NOW);
    const point = (network: string, hour: string) => series.find((p) => p.network === network && p.hour === hour)!;
    expect(point(DEVNET, "2026-05-01T12:00:00.000Z")).toEqual({
      hour: "2026-05-01T12:00:00.000Z",
      network: DEVNET,
      paidCalls: 2,
      prepaidCalls: 1,
      receivedUsdc: 0.002,
      upstreamCostUsdc: 0.0006,
      marginUsdc: 0.0014,
    });
    expect(point(DEVNET, "2026-05-01T09:00:00.000Z")).toMatchObject({
      paidCalls: 1,
      receivedUsdc: 0.005,
      upstreamCostUsdc: 0.0004,
      marginUsdc: 0.0046,
    });
    expect(point(BASE_SEPOLIA, "2026-04-30T13:00:00.000Z")).toMatchObject({
      paidCalls: 1,
      receivedUsdc: 0.001,
      upstreamCostUsdc: 0.00005,
    });
    const costInWindow = series
      .filter((p) => p.network === DEVNET)
      .reduce((sum, p) => sum + Math.round(p.upstreamCostUsdc * 1e6), 0);
    expect(costInWindow).toBe(1_000);
  });

  it("rejects malformed input: a window of no hours is empty", async () => {
    expect(await readFigureSeries(tdb.prisma, 0, NOW)).toEqual([]);
  });
});

describe("readFigures()", () => {
  it("counts prepaid calls' upstream cost against the margin, over all time", async () => {
    const figures = await readFigures(
      tdb.prisma,
      await readSettings(tdb.prisma, testConfig(), createLogger("silent")),
      Date.now(),
    );
    const devnet = figures.networks.find((n) => n.network === DEVNET)!;
    expect(devnet).toMatchObject({
      paidCalls: 4,
      prepaidCalls: 1,
      receivedUsdc: "0.007",
      upstreamCostUsdc: "0.001999",
      marginUsdc: "0.005001",
    });
  });
});
