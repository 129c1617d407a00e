// Bad env defaults of the operator settings are found at start-up, never by a request: the kill switch's default is
// exactly "true" or "false", and any other spelling stops the service before it serves, naming the variable. Off,
// devnet keeps answering and mainnet stays shut.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../env";
import { testEnv } from "../support/env";
import { startPaidStack, type PaidStack } from "../support/paid-stack";

let stack: PaidStack;
beforeAll(async () => {
  stack = await startPaidStack({ mainnet: true, env: { SERVICE_MAINNET_ENABLED: "false" } });
});
afterAll(async () => stack?.close());

const body = (network: string) => ({ model: "local/echo-1", messages: [{ role: "user", content: "hi" }], network });

describe("the kill switch's default in the environment", () => {
  it.each(["yes", "TRUE", "1", "on"])("SERVICE_MAINNET_ENABLED=%s stops start-up, naming the variable", (value) => {
    expect(() => loadConfig(testEnv({ SERVICE_MAINNET_ENABLED: value }))).toThrow(
      /SERVICE_MAINNET_ENABLED: must be exactly "true" or "false"/,
    );
  });

  it("off: still challenges devnet with 402 payment_required (not a 500)", async () => {
    const res = await stack.chat({ body: body("devnet") });
    expect(res.status).toBe(402);
    expect(await res.json()).toMatchObject({ code: "payment_required" });
  });

  it("off: keeps mainnet shut with 503 mainnet_disabled", async () => {
    const res = await stack.chat({ body: body("mainnet") });
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({ error: { code: "mainnet_disabled" } });
  });
});
