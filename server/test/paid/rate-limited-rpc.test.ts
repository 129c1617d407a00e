// Paid calls against a devnet (and a Base Sepolia) RPC that rate-limits (429 with Retry-After) and sheds load (503) at moderate rates: every
// call is served, and the RPC's own request log shows that after each 429 nothing of this process arrived until its
// Retry-After had passed.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RequestLogEntry } from "../../../devtools/localnet/fault-profile";
import { startPaidStack, CHAT_URL, type PaidStack } from "../support/paid-stack";
import { solanaRpc } from "../support/solana-rpc";

const RETRY_AFTER_SEC = 1;
/** A request already on the wire when the 429 was answered may still arrive just after it. */
const IN_FLIGHT_MS = 100;

let stack: PaidStack;
beforeAll(async () => {
  const faults = { seed: 11, rate429: 0.15, retryAfterSec: RETRY_AFTER_SEC, rate503: 0.1 };
  // Real pace: it measures which requests come within a second of a 429.
  stack = await startPaidStack({
    evm: true,
    timing: "real",
    env: { X402_FLAT_PRICE_USDC: "0.001" },
    devnet: { faults },
    evmFaults: faults,
  });
});
afterAll(async () => stack?.close());

describe("paid calls over a rate-limited Solana RPC", () => {
  it("are all served, and no request reaches the RPC while a 429's Retry-After runs", async () => {
    const messages = [{ role: "user", content: "hello through a busy RPC" }];
    for (let i = 0; i < 4; i++) {
      const agent = await stack.newAgent();
      const res = await stack.payingFetch(agent)(CHAT_URL, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ model: "local/echo-1", messages }),
      });
      expect(res.status, await res.clone().text()).toBe(200);
    }
    expectGateHonoured((await solanaRpc(stack.devnet.url, "localnet_requestLog")).result as RequestLogEntry[]);
  });

  it("are all served on Base too, where the relayer's reads and sends wait at the same kind of gate", async () => {
    const messages = [{ role: "user", content: "hello through a busy Base RPC" }];
    for (let i = 0; i < 4; i++) {
      const agent = await stack.newEvmAgent();
      const res = await stack.evmPayingFetch(agent)(CHAT_URL, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ model: "local/echo-1", network: "base-sepolia", messages }),
      });
      expect(res.status, await res.clone().text()).toBe(200);
    }
    expectGateHonoured(stack.baseSepolia!.requestLog()!);
  });
});

/** At least one 429 and one 503 were dealt, and after each 429 nothing but in-flight requests arrived for Retry-After. */
function expectGateHonoured(log: RequestLogEntry[]): void {
  const limited = log.filter((r) => r.fate === "429");
  expect(limited.length).toBeGreaterThan(0);
  expect(log.some((r) => r.fate === "503")).toBe(true);
  for (const hit of limited) {
    const during = log.filter((r) => r.at > hit.at + IN_FLIGHT_MS && r.at < hit.at + RETRY_AFTER_SEC * 1000);
    expect(during, `requests within ${RETRY_AFTER_SEC} s of the 429 at ${hit.at}`).toEqual([]);
  }
}
