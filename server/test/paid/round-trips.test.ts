// Database round trips per call, counted at the PostgreSQL driver: a paid chat call makes 3 (settings check + lookup +
// claim + take the payer's settlement lane; credit + hold + free the lane; capture + log + receipt) and a prepaid call 2
// (admission + hold; capture + log + receipt). The receipt is signed before its capture with the agent's next points as
// the hold's statement read them, and the capture's statement stores it and stages it for the public receipt log. A
// change that adds one fails here, and has to say why in the README. Only the call's own statements count: the
// background sweepers (expired holds, pending settlements) and the receipt log's sequencer run on their own timers.
import { AsyncLocalStorage } from "node:async_hooks";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POST as inferenceRoute } from "@/app/api/v1/inference/route";
import { newNonce, signRequestHeaders } from "../../agent/sign-request";
import { schedulePurge } from "../../runtime/purge-expired-rows";
import { generateKeypair } from "../../keys/parse-secret-key";
import { buildPaymentHeader, challengeOf, startPaidStack, type PaidStack } from "../support/paid-stack";

let stack: PaidStack;
const statements: string[] = [];
const query = pg.Client.prototype.query;
/** Set while a counted call runs: only statements sent from inside it count (the sweepers' timers run outside). */
const inCall = new AsyncLocalStorage<true>();

beforeAll(async () => {
  stack = await startPaidStack({ env: { X402_FLAT_PRICE_USDC: "0.001" } });
  // The prepaid route starts the expired-rows purge in the background at most once per interval: run it now, outside
  // the counted calls, so none of them starts it.
  schedulePurge(await stack.runtime());
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const q = args[0] as string | { text?: string };
    if (inCall.getStore())
      statements.push((typeof q === "string" ? q : (q.text ?? "")).replace(/\s+/g, " ").trim().slice(0, 60));
    return (query as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof query;
});
afterAll(async () => {
  pg.Client.prototype.query = query;
  await stack?.close();
});

/** The statements `run` sent to PostgreSQL. */
async function counted(run: () => Promise<Response>): Promise<{ status: number; sent: string[] }> {
  statements.length = 0;
  const res = await inCall.run(true, run);
  await inCall.run(true, () => res.arrayBuffer());
  return { status: res.status, sent: [...statements] };
}

describe("round trips per call", () => {
  it("a paid chat call: settings check + lookup + claim + lane, credit + hold + lane release, capture + log + receipt", async () => {
    const body = { model: "local/echo-1", messages: [{ role: "user", content: "count" }] };
    const agent = await stack.newAgent(1_000_000n);
    for (let i = 0; i < 2; i++) {
      const header = await buildPaymentHeader(agent, await challengeOf(await stack.chat({ body })), stack.devnet.url);
      const { status, sent } = await counted(() => stack.chat({ body, headers: { "PAYMENT-SIGNATURE": header } }));
      expect(status).toBe(200);
      expect(sent, sent.join("\n")).toHaveLength(3);
      expect(sent.some((s) => /^(BEGIN|COMMIT)/i.test(s))).toBe(false);
    }
  });

  it("a prepaid call: admission + hold, capture + log + receipt", async () => {
    const kp = generateKeypair();
    await stack.credit(kp.publicKeyBase58, 1_000_000n);
    for (let i = 0; i < 2; i++) {
      const text = JSON.stringify({ model: "local/echo-1", prompt: "count", nonce: newNonce(), timestamp: Date.now() });
      const headers = signRequestHeaders(kp, "POST", "http://signet.test/api/v1/inference", text);
      const { status, sent } = await counted(() =>
        inferenceRoute(new Request("http://signet.test/api/v1/inference", { method: "POST", headers, body: text }), {}),
      );
      expect(status).toBe(200);
      expect(sent, sent.join("\n")).toHaveLength(2);
      expect(sent.some((s) => /^(BEGIN|COMMIT)/i.test(s))).toBe(false);
    }
  });

  it("a prepaid call right after a settings change: the hold worked out from the old settings is not taken; its own statement takes it", async () => {
    const kp = generateKeypair();
    await stack.credit(kp.publicKeyBase58, 1_000_000n);
    await stack.tdb.prisma.setting.upsert({
      where: { key: "SERVICE_GRANT_MAX_PER_IP" },
      create: { key: "SERVICE_GRANT_MAX_PER_IP", value: "7" },
      update: { value: "7" },
    });
    const counts: number[] = [];
    for (let i = 0; i < 2; i++) {
      const text = JSON.stringify({ model: "local/echo-1", prompt: "count", nonce: newNonce(), timestamp: Date.now() });
      const headers = signRequestHeaders(kp, "POST", "http://signet.test/api/v1/inference", text);
      const { status, sent } = await counted(() =>
        inferenceRoute(new Request("http://signet.test/api/v1/inference", { method: "POST", headers, body: text }), {}),
      );
      expect(status).toBe(200);
      counts.push(sent.length);
    }
    expect(counts).toEqual([3, 2]);
    await stack.tdb.prisma.setting.delete({ where: { key: "SERVICE_GRANT_MAX_PER_IP" } });
  });
});
