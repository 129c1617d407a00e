// `facilitator.kms.ready` tells the operator, once, at boot, which keys the facilitator loaded. Serving a request
// uses the runtime built at boot; a runtime rebuilt in the same process must not announce the same keys a second time,
// and the check build `npm start` makes before it spawns the server announces nothing (the server does).
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createFacilitator } from "../../facilitator/create-facilitator";
import { createLogger } from "../../log";
import { closeRouteRuntime, routeRuntime, useRouteLogger } from "../../runtime/route-edge";
import { testConfig } from "../support/env";
import { startPaidStack, type PaidStack } from "../support/paid-stack";

/** Where the route runtimes log (useRouteLogger). */
const log = createLogger("silent");
const info = vi.spyOn(log, "info");
const readyEvents = () =>
  info.mock.calls.filter(([fields]) => (fields as { event?: string } | undefined)?.event === "facilitator.kms.ready");

let stack: PaidStack;
beforeAll(async () => {
  useRouteLogger(log);
  // Boots like `npm run dev`: the facilitator is built (and announced) before anything is served.
  stack = await startPaidStack({ env: { X402_FLAT_PRICE_USDC: "0.001" } });
});
afterAll(async () => {
  info.mockRestore();
  useRouteLogger(null);
  await stack?.close();
});

describe("facilitator.kms.ready", () => {
  it("is logged once at boot, and not again by the first request or a rebuilt runtime", async () => {
    expect(readyEvents()).toHaveLength(1);
    const res = await stack.chat({ body: { model: "local/echo-1", messages: [{ role: "user", content: "hi" }] } });
    expect(res.status).toBe(402);
    await closeRouteRuntime();
    await routeRuntime();
    expect(readyEvents()).toHaveLength(1);
    expect(readyEvents()[0]![0]).toMatchObject({ address: (await routeRuntime()).chains.facilitator.address });
  });

  it("is not logged by a check build without an announcement memory (what `npm start` makes before it serves)", async () => {
    const checked = await createFacilitator(testConfig());
    expect(checked.address).toBe((await routeRuntime()).chains.facilitator.address);
    expect(readyEvents()).toHaveLength(1);
  });
});
