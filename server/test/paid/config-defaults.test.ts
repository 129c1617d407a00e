// Bad env defaults of the operator settings are found at start-up, never by a request: a kill switch that is not
// exactly "true" means off (the spec's meaning), so devnet keeps answering and mainnet stays shut.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPaidStack, type PaidStack } from "../support/paid-stack";

let stack: PaidStack;
beforeAll(async () => {
  stack = await startPaidStack({ mainnet: true, env: { SERVICE_MAINNET_ENABLED: "yes" } });
});
afterAll(async () => stack?.close());

const body = (network: string) => ({ model: "local/echo-1", messages: [{ role: "user", content: "hi" }], network });

describe("the paid route with SERVICE_MAINNET_ENABLED=yes in the environment", () => {
  it("still challenges devnet with 402 payment_required (not a 500)", async () => {
    const res = await stack.chat({ body: body("devnet") });
    expect(res.status).toBe(402);
    expect(await res.json()).toMatchObject({ error: { code: "payment_required" } });
  });

  it("keeps mainnet off: 503 mainnet_disabled", async () => {
    const res = await stack.chat({ body: body("mainnet") });
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({ error: { code: "mainnet_disabled" } });
  });
});
