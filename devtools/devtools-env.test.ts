import { describe, expect, it } from "vitest";
import { loadDevtoolsEnv } from "./devtools-env";

describe("loadDevtoolsEnv() local chain timing and faults", () => {
  it("runs real timing by default: 400 ms Solana slots, a 2 s anvil block time and no faults", () => {
    expect(loadDevtoolsEnv({})).toMatchObject({
      LOCALNET_TIMING: "real",
      LOCALNET_SLOT_MS: 400,
      LOCALNET_FAULTS: null,
      ANVIL_BLOCK_TIME_SEC: 2,
      ANVIL_FAULTS: null,
    });
  });

  it("reads instant timing and automine when asked for explicitly", () => {
    expect(loadDevtoolsEnv({ LOCALNET_TIMING: "instant", ANVIL_BLOCK_TIME_SEC: "0" })).toMatchObject({
      LOCALNET_TIMING: "instant",
      ANVIL_BLOCK_TIME_SEC: 0,
    });
  });

  it("reads a slot length, a block time and a fault profile given as JSON", () => {
    const env = loadDevtoolsEnv({
      LOCALNET_TIMING: "real",
      LOCALNET_SLOT_MS: "100",
      LOCALNET_FAULTS: '{"seed":42,"rate429":0.05}',
      ANVIL_BLOCK_TIME_SEC: "5",
    });
    expect(env).toMatchObject({ LOCALNET_TIMING: "real", LOCALNET_SLOT_MS: 100, ANVIL_BLOCK_TIME_SEC: 5 });
    expect(env.LOCALNET_FAULTS).toMatchObject({ seed: 42, rate429: 0.05, dropSendRate: 0 });
  });

  it.each([
    ["LOCALNET_TIMING", "slow"],
    ["LOCALNET_SLOT_MS", "0"],
    ["LOCALNET_FAULTS", '{"seed":1,"rate503":2}'],
    ["ANVIL_FAULTS", "{not json"],
    ["ANVIL_BLOCK_TIME_SEC", "1.5"],
  ])("rejects malformed input: %s=%s, naming the variable", (name, value) => {
    expect(() => loadDevtoolsEnv({ [name]: value })).toThrow(new RegExp(name));
  });
});

describe("loadDevtoolsEnv() booleans", () => {
  it("reads SIGNET_DEV_LOOP_FULL as exactly true or false, naming the variable otherwise", () => {
    expect(loadDevtoolsEnv({ SIGNET_DEV_LOOP_FULL: "true" }).SIGNET_DEV_LOOP_FULL).toBe(true);
    expect(loadDevtoolsEnv({}).SIGNET_DEV_LOOP_FULL).toBe(false);
    expect(() => loadDevtoolsEnv({ SIGNET_DEV_LOOP_FULL: "1" })).toThrow(
      /SIGNET_DEV_LOOP_FULL: must be exactly "true" or "false"/,
    );
  });
});
