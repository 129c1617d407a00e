// `facilitator.kms.ready` tells the operator, once, at boot, which keys the facilitator loaded. Serving a request
// builds the app context (and its facilitator) again; that must not announce the same keys a second time.
import { execFile } from "node:child_process";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { appContext } from "../../app-context";
import { log } from "../../log";
import { startPaidStack, type PaidStack } from "../support/paid-stack";

const info = vi.spyOn(log, "info");
const readyEvents = () => info.mock.calls.filter(([fields]) => (fields as { event?: string } | undefined)?.event === "facilitator.kms.ready");

let stack: PaidStack;
beforeAll(async () => {
  // Boots like `npm run dev`: the facilitator is built (and announced) before anything is served.
  stack = await startPaidStack({ env: { X402_FLAT_PRICE_USDC: "0.001" } });
});
afterAll(async () => {
  info.mockRestore();
  await stack?.close();
});

describe("facilitator.kms.ready", () => {
  it("is logged once at boot, and not again by the first request or a rebuilt app context", async () => {
    expect(readyEvents()).toHaveLength(1);
    const res = await stack.chat({ body: { model: "local/echo-1", messages: [{ role: "user", content: "hi" }] } });
    expect(res.status).toBe(402);
    (globalThis as { signetAppContext?: unknown }).signetAppContext = undefined;
    await appContext();
    expect(readyEvents()).toHaveLength(1);
    expect(readyEvents()[0]![0]).toMatchObject({ address: (await appContext()).gateway.facilitator.address });
  });

  it("is not logged again by a server process started from the booted one's environment (as `npm start` starts Next)", async () => {
    const module = pathToFileURL(path.join(import.meta.dirname, "../../facilitator/create-facilitator.ts")).href;
    const script = `const m = await import(${JSON.stringify(module)}); const f = await m.createFacilitator(); console.log("built " + f.address);`;
    const { stdout } = await promisify(execFile)(process.execPath, ["--conditions=react-server", "--import", "tsx", "--input-type=module", "-e", script], {
      env: { ...process.env, LOG_LEVEL: "info" },
      cwd: path.join(import.meta.dirname, "../../.."),
    });
    expect(stdout).toContain(`built ${(await appContext()).gateway.facilitator.address}`);
    expect(stdout).not.toContain("facilitator.kms.ready");
  });
});
