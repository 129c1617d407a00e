// GET /api/health and GET /metrics, called in process like the other routes, over a whole paid stack (two local
// Solana chains and PostgreSQL): readiness with each section, and 503 naming the database, the chains or the fee payer;
// the public answer without the parts' detail, which needs the metrics token; the metrics moving after a paid and a
// prepaid call; the metrics token in production.
import bs58 from "bs58";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET as healthRoute } from "@/app/api/health/route";
import { POST as inferenceRoute } from "@/app/api/v1/inference/route";
import { GET as metricsRoute } from "@/app/metrics/route";
import { address } from "@solana/kit";
import type { HealthReport } from "../../health/check-health";
import {
  closeRouteRuntime,
  edgeShutdown,
  resetHealthCacheForTests,
  resetShutdownForTests,
} from "../../runtime/route-edge";
import { generateKeypair } from "../../keys/parse-secret-key";
import { newNonce, signRequestHeaders } from "../../agent/sign-request";
import { createFacilitator } from "../../facilitator/create-facilitator";
import { reconcile } from "../../reconcile/reconcile";
import { testConfig, withEnv } from "../support/env";
import { CHAT_URL, startPaidStack, type PaidStack } from "../support/paid-stack";

let stack: PaidStack;
let feePayer: string;
const TOKEN = "metrics-token-for-the-test-0123456789";

beforeAll(async () => {
  // Probes get a long limit: a loaded machine must not read a slow part as down (the limit itself is a unit test).
  stack = await startPaidStack({
    mainnet: true,
    env: { X402_FLAT_PRICE_USDC: "0.001", HEALTH_PROBE_TIMEOUT_MS: "30000" },
  });
  feePayer = (await stack.runtime()).chains.facilitator.address;
});
afterAll(async () => {
  resetShutdownForTests();
  await stack?.close();
});

/** The health answer; the stack sets no METRICS_TOKEN, so outside production it carries the whole report. */
async function health(
  query = "",
  headers: Record<string, string> = {},
): Promise<{ status: number; body: HealthReport; text: string }> {
  resetHealthCacheForTests();
  const res = await healthRoute(new Request(`http://signet.test/api/health${query}`, { headers }), {});
  const text = await res.text();
  return { status: res.status, body: JSON.parse(text) as HealthReport, text };
}

async function scrape(headers: Record<string, string> = {}): Promise<Response> {
  resetHealthCacheForTests();
  return metricsRoute(new Request("http://signet.test/metrics", { headers }), {});
}

/** The value of one sample in a Prometheus text exposition (0 when absent). */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  for (const line of text.split("\n")) {
    const m = /^([a-z_:]+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const got = Object.fromEntries([...(m[2] ?? "").matchAll(/(\w+)="([^"]*)"/g)].map((l) => [l[1], l[2]]));
    if (Object.entries(labels).every(([k, v]) => got[k] === v)) return Number(m[3]);
  }
  return 0;
}

/** Sets the fee payer's SOL on the devnet chain directly (the local chain's LiteSVM). */
function setFeePayerLamports(lamports: bigint): void {
  const svm = stack.devnet.chain["svm"];
  svm.setAccount({
    address: address(feePayer),
    programAddress: address("11111111111111111111111111111111"),
    lamports,
    data: new Uint8Array(),
    executable: false,
    space: 0n,
  } as never);
}

describe("GET /api/health", () => {
  it("is ready with every section: the database, each chain's slot lag, the fee payer and the built-in model", async () => {
    const { status, body } = await health();
    expect(status).toBe(200);
    expect(body).toMatchObject({
      status: "ok",
      ready: true,
      reasons: [],
      shuttingDown: false,
      database: { ok: true },
      upstream: { kind: "built-in", ok: true },
    });
    expect(body.database.latencyMs).toBeGreaterThanOrEqual(0);
    expect(body.chains.map((c) => [c.network, c.ok, typeof c.slotLag])).toEqual([
      [stack.devnet.caip2, true, "number"],
      [stack.mainnet!.caip2, true, "number"],
    ]);
    expect(body.feePayer.accounts.map((a) => a.level)).toEqual(["ok", "ok"]);
    expect((await health("?probe=live")).body).toEqual({ status: "live" });
  });

  it("rejects malformed input: an unknown probe is a 400", async () => {
    const res = await healthRoute(new Request("http://signet.test/api/health?probe=deep"), {});
    expect(res.status).toBe(400);
  });

  it("answers 503 naming the fee payer when its SOL is under the alert level, and 200 again once funded", async () => {
    setFeePayerLamports(50_000_000n);
    try {
      const low = await health();
      expect(low.status).toBe(503);
      expect(low.body.reasons).toEqual([
        expect.stringMatching(new RegExp(`^fee payer below the alert level on ${stack.devnet.caip2}: 0.05 SOL < 0.1$`)),
      ]);
      // The public answer names the fee payer's network, not its balance.
      await withEnv({ METRICS_TOKEN: TOKEN }, async () => {
        const open = await health();
        expect(open.status).toBe(503);
        expect(open.body).toEqual({
          status: "unavailable",
          reasons: [`fee payer below the alert level on ${stack.devnet.caip2}`],
        });
      });
    } finally {
      setFeePayerLamports(10_000_000_000n);
    }
    expect((await health()).status).toBe(200);
  });

  it("answers 503 naming the database when it cannot be reached", async () => {
    await closeRouteRuntime();
    try {
      await withEnv({ DATABASE_URL: "postgresql://postgres@127.0.0.1:1/none" }, async () => {
        const { status, body } = await health();
        expect(status).toBe(503);
        expect(body.database.ok).toBe(false);
        expect(body.reasons).toEqual(["database unreachable"]);
        // Liveness does not depend on the database.
        expect((await health("?probe=live")).status).toBe(200);
      });
    } finally {
      await closeRouteRuntime();
    }
    expect((await health()).status).toBe(200);
  });

  it("answers 503 shutting down as soon as the drain starts", async () => {
    edgeShutdown.markShuttingDown();
    try {
      const { status, body } = await health();
      expect(status).toBe(503);
      expect(body.reasons).toEqual(["shutting down"]);
    } finally {
      resetShutdownForTests();
    }
  });
});

describe("GET /api/health's detail", () => {
  /** Every sign of the parts' detail a public answer must not carry. */
  const DETAIL = [
    /latency/i,
    /slotLag/,
    /balance/i,
    /feePayer/,
    /[1-9A-HJ-NP-Za-km-z]{32,44}/,
    /0x[0-9a-f]{40}/i,
    /BlockAge/,
  ];

  it.each([
    ["outside production", {}],
    ["in production", { NODE_ENV: "production", FACILITATOR_SECRET_KEY: bs58.encode(generateKeypair().seed) }],
  ])(
    "%s with METRICS_TOKEN set, shows anyone status and reasons only, and the token's holder every part",
    async (_label, env) => {
      await withEnv({ ...env, METRICS_TOKEN: TOKEN }, async () => {
        const facilitator = (await createFacilitator(testConfig())).address;
        for (const chain of [stack.devnet, stack.mainnet!])
          await chain.fundAccount(facilitator, { lamports: 10_000_000_000n });
        const withoutToken: Record<string, string>[] = [
          {},
          { authorization: `Bearer ${TOKEN}x` },
          { authorization: TOKEN },
        ];
        for (const headers of withoutToken) {
          const open = await health("", headers);
          expect(open.status).toBe(200);
          expect(open.body).toEqual({ status: "ok", reasons: [] });
          for (const detail of DETAIL) expect(open.text).not.toMatch(detail);
          expect(open.text).not.toContain(facilitator);
        }
        const detailed = await health("", { authorization: `Bearer ${TOKEN}` });
        expect(detailed.status).toBe(200);
        expect(detailed.body).toMatchObject({ status: "ok", ready: true, reasons: [], database: { ok: true } });
        expect(detailed.body.database.latencyMs).toBeGreaterThanOrEqual(0);
        expect(detailed.body.chains.every((c) => typeof c.slotLag === "number")).toBe(true);
        expect(detailed.body.feePayer.accounts.map((a) => a.address)).toContain(facilitator);
        expect((await health("?probe=live")).body).toEqual({ status: "live" });
      });
    },
  );

  it("outside production without METRICS_TOKEN shows every part, as /metrics is open then", async () => {
    const { body } = await health();
    expect(body.feePayer.accounts.map((a) => a.address)).toContain(feePayer);
    expect(body.database.latencyMs).toBeGreaterThanOrEqual(0);
  });
});

describe("GET /metrics", () => {
  it("counts a paid and a prepaid call: outcomes, settlements, 402 reasons, fees, step latencies, ledger and fee payer gauges", async () => {
    const devnet = stack.devnet.caip2;
    const before = await (await scrape()).text();

    const agent = await stack.newAgent();
    const paid = await stack.payingFetch(agent)(CHAT_URL, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "local/echo-1", messages: [{ role: "user", content: "count me" }] }),
    });
    expect(paid.status, await paid.clone().text()).toBe(200);

    const kp = generateKeypair();
    await stack.credit(kp.publicKeyBase58, 100_000n);
    const text = JSON.stringify({
      model: "local/echo-1",
      prompt: "count me too",
      nonce: newNonce(),
      timestamp: Date.now(),
    });
    const prepaid = await inferenceRoute(
      new Request("http://signet.test/api/v1/inference", {
        method: "POST",
        headers: signRequestHeaders(kp, "POST", "http://signet.test/api/v1/inference", text),
        body: text,
      }),
      {},
    );
    expect(prepaid.status, await prepaid.clone().text()).toBe(200);
    await reconcile(await stack.runtime());

    const res = await scrape();
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/plain");
    const after = await res.text();
    const moved = (name: string, labels: Record<string, string> = {}) =>
      sample(after, name, labels) - sample(before, name, labels);

    expect(moved("signet_calls_total", { route: "paid", network: devnet, outcome: "served" })).toBe(1);
    expect(moved("signet_calls_total", { route: "prepaid", network: devnet, outcome: "served" })).toBe(1);
    expect(moved("signet_settlements_total", { network: devnet, purpose: "call", outcome: "ok" })).toBe(1);
    expect(moved("signet_payment_required_total", { network: devnet, reason: "payment_required" })).toBe(1);
    expect(moved("signet_solana_fee_lamports_total", { network: devnet })).toBeGreaterThanOrEqual(5_000);
    for (const step of ["verify", "settle"])
      expect(moved("signet_step_duration_seconds_count", { step, network: devnet })).toBe(1);
    for (const step of ["upstream_first_byte", "upstream", "total"])
      expect(moved("signet_step_duration_seconds_count", { step, network: devnet })).toBe(2);
    expect(sample(after, "signet_ledger_credits_units", { network: devnet })).toBe(1_000 + 100_000);
    expect(sample(after, "signet_ledger_charges_units", { network: devnet })).toBeGreaterThan(0);
    expect(sample(after, "signet_open_holds", { network: devnet })).toBe(0);
    expect(sample(after, "signet_records_waiting")).toBe(0);
    expect(sample(after, "signet_fee_payer_balance", { network: devnet, unit: "SOL" })).toBeGreaterThan(9);
    expect(sample(after, "signet_ready")).toBe(1);
    expect(after).toMatch(new RegExp(`^signet_reconcile_drift\\{network="${devnet}"\\} 0$`, "m"));
  });

  it("counts prepaid refusals by code: a bad signature (no network yet) and too little credit (on its network)", async () => {
    const devnet = stack.devnet.caip2;
    const before = await (await scrape()).text();
    const url = "http://signet.test/api/v1/inference";
    const kp = generateKeypair();
    const text = JSON.stringify({
      model: "local/echo-1",
      prompt: "no credit",
      nonce: newNonce(),
      timestamp: Date.now(),
    });
    const poor = await inferenceRoute(
      new Request(url, { method: "POST", headers: signRequestHeaders(kp, "POST", url, text), body: text }),
      {},
    );
    expect(poor.status, await poor.clone().text()).toBe(402);
    const forged = await inferenceRoute(
      new Request(url, {
        method: "POST",
        headers: signRequestHeaders(kp, "POST", url, text),
        body: text.replace("no credit", "forged"),
      }),
      {},
    );
    expect(forged.status).toBe(401);

    const after = await (await scrape()).text();
    const moved = (labels: Record<string, string>) =>
      sample(after, "signet_calls_total", labels) - sample(before, "signet_calls_total", labels);
    expect(moved({ route: "prepaid", network: devnet, outcome: "refused", code: "insufficient_credits" })).toBe(1);
    expect(
      moved({
        route: "prepaid",
        network: "",
        outcome: "refused",
        code: ((await forged.json()) as { error: { code: string } }).error.code,
      }),
    ).toBe(1);
  });

  it("in production needs the Bearer METRICS_TOKEN: 401 without it or with another, 200 with it", async () => {
    const token = TOKEN;
    await withEnv(
      { NODE_ENV: "production", METRICS_TOKEN: token, FACILITATOR_SECRET_KEY: bs58.encode(generateKeypair().seed) },
      async () => {
        const none = await scrape();
        expect(none.status).toBe(401);
        expect(((await none.json()) as { error: { code: string } }).error.code).toBe("unauthorized");
        expect((await scrape({ authorization: `Bearer ${token}x` })).status).toBe(401);
        const ok = await scrape({ authorization: `Bearer ${token}` });
        expect(ok.status).toBe(200);
        expect(await ok.text()).toContain("signet_calls_total");
      },
    );
  });

  it("in production without METRICS_TOKEN refuses to serve metrics at all", async () => {
    await withEnv({ NODE_ENV: "production", METRICS_TOKEN: undefined }, async () => {
      expect((await scrape()).status).toBe(500);
    });
  });
});

describe("GET /api/health with the chains down", () => {
  it("stays ready with one chain down, naming it; answers 503 naming every chain once all are down", async () => {
    await stack.mainnet!.close();
    const one = await health();
    expect(one.status).toBe(200);
    expect(one.body.status).toBe("degraded");
    expect(one.body.chains.find((c) => c.network === stack.mainnet!.caip2)).toMatchObject({ ok: false });
    // Named, whatever the failure reads as: refused, or timed out on a loaded machine.
    expect(
      one.body.warnings.some((w: string) => w.startsWith(`chain RPC ${stack.mainnet!.caip2} `)),
      JSON.stringify(one.body.warnings),
    ).toBe(true);

    await stack.devnet.close();
    const all = await health();
    expect(all.status).toBe(503);
    expect(all.body.reasons).toEqual([`every chain RPC is down: ${stack.devnet.caip2}, ${stack.mainnet!.caip2}`]);
  });
});
