// Paid calls against a devnet (and a Base Sepolia) RPC that rate-limits (429 with Retry-After) and sheds load (503) at
// moderate rates: every call is served, and no request of the service is sent to that RPC while the gate a 429 closed
// is shut. Both sides of that are read where the service decides them, on one clock: when its gates close (and until
// when), and when each of its requests to the RPC is sent. A request already sent when the 429 came back is in flight,
// not a breach, however long a busy machine takes to deliver it.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { RequestLogEntry } from "../../../devtools/localnet/fault-profile";
import { startPaidStack, CHAT_URL, type PaidStack } from "../support/paid-stack";
import { solanaRpc } from "../support/solana-rpc";

const RETRY_AFTER_SEC = 1;

let stack: PaidStack;
const realFetch = fetch;
/** Every request this process sent, by origin, with when it was sent. */
const sent: { origin: string; at: number }[] = [];
/** Every gate the service's runtime closed: the RPC's origin, when, and until when. */
const closed: { origin: string; at: number; until: number }[] = [];
const originOf = (url: string) => new URL(url).origin;

beforeAll(async () => {
  // Before the stack starts: the service's RPC clients take the fetch there is when they are built.
  vi.stubGlobal("fetch", (async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    sent.push({ origin: originOf(url), at: Date.now() });
    return realFetch(input, init);
  }) as typeof fetch);
  const faults = { seed: 11, rate429: 0.15, retryAfterSec: RETRY_AFTER_SEC, rate503: 0.1 };
  stack = await startPaidStack({ evm: true, timing: "real", env: { X402_FLAT_PRICE_USDC: "0.001" }, devnet: { faults }, evmFaults: faults });
  const gates = (await stack.runtime()).state.rpcGates;
  const close = gates.set.bind(gates);
  gates.set = (url, until) => {
    closed.push({ origin: originOf(url), at: Date.now(), until });
    return close(url, until);
  };
});
afterAll(async () => {
  vi.unstubAllGlobals();
  await stack?.close();
});

describe("paid calls over a rate-limited Solana RPC", () => {
  it("are all served, and no request is sent to the RPC while a 429's Retry-After runs", async () => {
    const messages = [{ role: "user", content: "hello through a busy RPC" }];
    for (let i = 0; i < 4; i++) {
      const agent = await stack.newAgent();
      const res = await stack.payingFetch(agent)(CHAT_URL, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ model: "local/echo-1", messages }) });
      expect(res.status, await res.clone().text()).toBe(200);
    }
    expectGateHonoured(stack.devnet.url, (await solanaRpc(stack.devnet.url, "localnet_requestLog")).result as RequestLogEntry[]);
  });

  it("are all served on Base too, where the relayer's reads and sends wait at the same kind of gate", async () => {
    const messages = [{ role: "user", content: "hello through a busy Base RPC" }];
    for (let i = 0; i < 4; i++) {
      const agent = await stack.newEvmAgent();
      const res = await stack.evmPayingFetch(agent)(CHAT_URL, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ model: "local/echo-1", network: "base-sepolia", messages }) });
      expect(res.status, await res.clone().text()).toBe(200);
    }
    expectGateHonoured(stack.baseSepolia!.url, stack.baseSepolia!.requestLog()!);
  });
});

/**
 * The RPC dealt at least one 429 and one 503; the service closed its gate for each 429 it read, for Retry-After; and
 * nothing of this process was sent to the RPC while a gate was shut.
 */
function expectGateHonoured(rpcUrl: string, log: RequestLogEntry[]): void {
  const origin = originOf(rpcUrl);
  const limited = log.filter((r) => r.fate === "429");
  expect(limited.length).toBeGreaterThan(0);
  expect(log.some((r) => r.fate === "503")).toBe(true);
  const shut = closed.filter((c) => c.origin === origin);
  expect(shut.length).toBeGreaterThan(0);
  for (const gate of shut) {
    // Shut for Retry-After from the 429 that closed it: the last one the RPC (in this process) dealt before the gate
    // closed, since dealing one and reading it never interleave with the read and the close.
    const dealt = limited.filter((r) => r.at <= gate.at).map((r) => r.at);
    expect(dealt.length).toBeGreaterThan(0);
    expect(gate.until - Math.max(...dealt)).toBeGreaterThanOrEqual(RETRY_AFTER_SEC * 1000);
    const during = sent.filter((s) => s.origin === origin && s.at >= gate.at && s.at < gate.until);
    expect(during, `requests sent while the gate closed at ${gate.at} was shut until ${gate.until}`).toEqual([]);
  }
}
