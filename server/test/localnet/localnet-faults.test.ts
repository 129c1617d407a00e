// The local Solana chain's seeded fault profile, over JSON-RPC: each fault happens at its rate, can be seen by the
// client (and in the fault log), and the same seed deals the same faults to the same requests.
import { afterEach, describe, expect, it } from "vitest";
import { parseFaultProfile, startLocalnet, type FaultProfileInput, type Localnet } from "../../../devtools/localnet";
import { manualClock } from "../support/manual-clock";
import { newSigner, signedTransfer, solanaRpc } from "../support/solana-rpc";

const opened: Localnet[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((n) => n.close()));
});

async function chainWith(
  faults: FaultProfileInput,
  real?: { slotMs: number; clock: { now(): number } },
): Promise<Localnet> {
  const n = await startLocalnet({
    profile: "devnet",
    port: 0,
    dataDir: null,
    faults,
    ...(real ? { timing: "real", ...real } : { timing: "instant" }),
  });
  opened.push(n);
  return n;
}

/**
 * How long a test client waits for an answer. A timeout fault destroys the connection after its hold (status 0), so a
 * patient client still sees it, and never mistakes a slow answer on a loaded machine for one.
 */
const CLIENT_TIMEOUT_MS = 5_000;

/** What `count` sequential getSlot calls met: "ok", "429", "503" or "timeout" (the connection closed unanswered). */
async function httpOutcomes(n: Localnet, count: number): Promise<string[]> {
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    const a = await solanaRpc(n.url, "getSlot", [], CLIENT_TIMEOUT_MS);
    out.push(a.status === 200 ? "ok" : a.status === 0 ? "timeout" : String(a.status));
  }
  return out;
}

/** Sends `count` transfers of 1..count units from a funded payer; returns the signatures RPC answered with. */
async function sendTransfers(n: Localnet, count: number): Promise<{ signatures: string[]; payTo: string }> {
  const payer = await newSigner();
  const payTo = await newSigner();
  await n.fundAccount(payer.address, { usdcUnits: 10_000_000n, lamports: 1_000_000_000n });
  await n.fundAccount(payTo.address, {});
  const signatures: string[] = [];
  for (let i = 1; i <= count; i++) {
    const blockhash = (await solanaRpc(n.url, "getLatestBlockhash", [{ commitment: "processed" }], 60_000)).result
      .value;
    const tx = await signedTransfer(n.usdcMint, payer, payTo.address, BigInt(i), blockhash);
    const sent = await solanaRpc(n.url, "sendTransaction", [tx.wire, { encoding: "base64" }], 60_000);
    expect(sent.result).toBe(tx.signature);
    signatures.push(tx.signature);
  }
  return { signatures, payTo: payTo.address };
}

const faultLog = async (n: Localnet) =>
  (await solanaRpc(n.url, "localnet_faultLog")).result as {
    events: { kind: string; n: number; detail?: number }[];
    counts: Record<string, number>;
  };

describe("the localnet fault profile", () => {
  it("deals the same faults to the same requests for the same seed, and others for another seed", async () => {
    const profile = { rate429: 0.1, rate503: 0.1, timeoutRate: 0.05, timeoutHoldMs: 150, dropSendRate: 0.3 };
    const [a, b, c] = await Promise.all([
      chainWith({ seed: 42, ...profile }),
      chainWith({ seed: 42, ...profile }),
      chainWith({ seed: 43, ...profile }),
    ]);
    const [runA, runB, runC] = [await httpOutcomes(a, 120), await httpOutcomes(b, 120), await httpOutcomes(c, 120)];
    expect(runA).toEqual(runB);
    expect(runA).not.toEqual(runC);
    expect(new Set(runA)).toEqual(new Set(["ok", "429", "503", "timeout"]));
    // Sends over a fault-free path (the HTTP faults are spent on getSlot above; sends get their own stream).
    const quiet = { seed: 42, dropSendRate: 0.3 };
    const [d, e] = await Promise.all([chainWith(quiet), chainWith(quiet)]);
    await sendTransfers(d, 20);
    await sendTransfers(e, 20);
    expect((await faultLog(d)).events).toEqual((await faultLog(e)).events);
    expect((await faultLog(d)).counts.drop).toBeGreaterThan(0);
  });

  it("answers 429 with Retry-After, 503, and timeouts at their rates, and logs each", async () => {
    const n = await chainWith({
      seed: 7,
      rate429: 0.1,
      retryAfterSec: 2,
      rate503: 0.05,
      timeoutRate: 0.05,
      timeoutHoldMs: 200,
    });
    const seen: { status: number; retryAfter: string | null }[] = [];
    for (let i = 0; i < 400; i++) seen.push(await solanaRpc(n.url, "getSlot", [], CLIENT_TIMEOUT_MS));
    const count = (status: number) => seen.filter((s) => s.status === status).length;
    // Binomial(400, p) stays within about 3.5 standard deviations of 400p.
    expect(count(429)).toBeGreaterThanOrEqual(19);
    expect(count(429)).toBeLessThanOrEqual(61);
    expect(count(503)).toBeGreaterThanOrEqual(5);
    expect(count(503)).toBeLessThanOrEqual(35);
    expect(count(0)).toBeGreaterThanOrEqual(5);
    expect(count(0)).toBeLessThanOrEqual(35);
    expect(seen.filter((s) => s.status === 429).every((s) => s.retryAfter === "2")).toBe(true);
    const { counts } = await faultLog(n);
    expect(counts).toMatchObject({ "429": count(429), "503": count(503), timeout: count(0) });
  });

  it("serves the same chain without HTTP faults at faultFreeUrl (a harness's own reads)", async () => {
    const n = await chainWith({ seed: 9, rate503: 1 });
    expect((await solanaRpc(n.url, "getSlot", [], 5_000)).status).toBe(503);
    const direct = await solanaRpc(n.faultFreeUrl, "getSlot", [], 5_000);
    expect(direct.status).toBe(200);
    expect(typeof direct.result).toBe("number");
    // A chain without a profile has one server: faultFreeUrl is url.
    const calm = await startLocalnet({ profile: "devnet", port: 0, dataDir: null });
    opened.push(calm);
    expect(calm.faultFreeUrl).toBe(calm.url);
  });

  it("drops sends at its rate: RPC answers with the signature, but the transaction never lands", async () => {
    const n = await chainWith({ seed: 3, dropSendRate: 0.25 });
    const { signatures, payTo } = await sendTransfers(n, 40);
    const statuses = (await solanaRpc(n.url, "getSignatureStatuses", [signatures])).result.value as (object | null)[];
    const dropped = signatures.filter((_s, i) => statuses[i] === null);
    expect(dropped.length).toBeGreaterThanOrEqual(3);
    expect(dropped.length).toBeLessThanOrEqual(20);
    const { events } = await faultLog(n);
    expect(events.filter((e) => e.kind === "drop").map((e) => signatures[e.n])).toEqual(dropped);
    // Only the landed transfers (of 1..40 units) moved money.
    const landedUnits = signatures.reduce((sum, s, i) => (statuses[i] ? sum + BigInt(i + 1) : sum), 0n);
    expect(await n.usdcBalance(payTo)).toBe(landedUnits);
  });

  it("delays confirmations by a time drawn from confirmDelayMs", async () => {
    // Delays of seconds: none can run out while the three are sent and read back, however busy the machine.
    const n = await chainWith({ seed: 5, confirmDelayMs: [3_000, 6_000] });
    const { signatures, payTo } = await sendTransfers(n, 3);
    expect((await solanaRpc(n.url, "getSignatureStatuses", [signatures])).result.value).toEqual([null, null, null]);
    expect(await n.usdcBalance(payTo)).toBe(0n);
    const delays = (await faultLog(n)).events.map((e) => e.detail as number);
    expect(delays).toHaveLength(3);
    for (const d of delays) expect(d).toBeGreaterThanOrEqual(3_000);
    for (const d of delays) expect(d).toBeLessThanOrEqual(6_000);
    // Each lands when its delay has run: the chain says when.
    await Promise.all(signatures.map((s) => n.chain.landed(s)));
    const statuses = (await solanaRpc(n.url, "getSignatureStatuses", [signatures])).result.value;
    expect(statuses.every((s: { err: unknown } | null) => s?.err === null)).toBe(true);
    expect(await n.usdcBalance(payTo)).toBe(6n);
  });

  it("expires some blockhashes early though it promised 150 slots: sends on them meet Blockhash not found", async () => {
    // The test moves the chain's clock: one blockhash read in each of 50 slots, then 12 slots on, past the longest
    // early lifetime (10) and far inside the promised 150.
    const SLOT_MS = 400;
    const clock = manualClock();
    const n = await chainWith({ seed: 11, earlyExpiryRate: 0.2 }, { slotMs: SLOT_MS, clock });
    const issued = new Map<number, { blockhash: string; lastValidBlockHeight: number }>();
    for (let i = 0; i < 50; i++) {
      const a = (await solanaRpc(n.url, "getLatestBlockhash", [{ commitment: "processed" }])).result;
      issued.set(a.context.slot as number, a.value);
      clock.advance(SLOT_MS);
    }
    clock.advance(11 * SLOT_MS);
    const early = new Map(
      (await faultLog(n)).events.filter((e) => e.kind === "earlyExpiry").map((e) => [e.n, e.detail as number]),
    );
    let refused = 0;
    for (const [slot, value] of issued) {
      expect(value.lastValidBlockHeight).toBe(slot + 150);
      const valid = (await solanaRpc(n.url, "isBlockhashValid", [value.blockhash, { commitment: "processed" }])).result
        .value;
      expect(valid).toBe(!early.has(slot));
      if (!valid) refused++;
    }
    expect(issued.size).toBe(50);
    expect(refused / issued.size).toBeGreaterThan(0.05);
    expect(refused / issued.size).toBeLessThan(0.4);
    const [, value] = [...issued].find(([s]) => early.has(s))!;
    const payer = await newSigner();
    await n.fundAccount(payer.address, { usdcUnits: 1n, lamports: 1_000_000_000n });
    const tx = await signedTransfer(n.usdcMint, payer, payer.address, 1n, value);
    expect((await solanaRpc(n.url, "sendTransaction", [tx.wire, { encoding: "base64" }])).error?.message).toBe(
      "Transaction simulation failed: Blockhash not found",
    );
  });
});

describe("parseFaultProfile()", () => {
  it("reads the JSON the env var carries, with defaults", () => {
    expect(parseFaultProfile('{"seed":42,"dropSendRate":0.1,"confirmDelayMs":[1000,10000]}')).toMatchObject({
      seed: 42,
      dropSendRate: 0.1,
      rate429: 0,
      timeoutHoldMs: 60_000,
    });
  });

  it.each([
    ["not JSON", "{seed"],
    ["no seed", '{"dropSendRate":0.1}'],
    ["a rate above 1", '{"seed":1,"rate429":1.5}'],
    ["an unknown field", '{"seed":1,"dropRate":0.1}'],
    ["a backwards range", '{"seed":1,"confirmDelayMs":[10,5]}'],
    ["HTTP rates summing past 1", '{"seed":1,"rate429":0.6,"rate503":0.6}'],
  ])("rejects malformed input: %s", (_label, text) => {
    expect(() => parseFaultProfile(text)).toThrow(/fault profile/);
  });
});
