import { describe, expect, it } from "vitest";
import { ConfigError } from "../env";
import { generateKeypair } from "./parse-secret-key";
import { parseRetiredOperatorKeys, refuseRetiredOperatorKey } from "./retired-operator-keys";

const a = generateKeypair().publicKeyBase58;
const b = generateKeypair().publicKeyBase58;
const MAY_1 = 1_777_593_600_000; // 2026-05-01T00:00:00Z

describe("parseRetiredOperatorKeys()", () => {
  it("reads `<key>@<time>` entries, the time as ISO 8601 with a zone or as 13-digit Unix ms", () => {
    expect(parseRetiredOperatorKeys(` ${a}@2026-05-01T00:00:00Z , ${b}@${MAY_1 + 1},`)).toEqual([
      { pubkey: a, retired_at: MAY_1 },
      { pubkey: b, retired_at: MAY_1 + 1 },
    ]);
    expect(parseRetiredOperatorKeys(`${a}@2026-05-01T02:00:00.5+02:00`)).toEqual([
      { pubkey: a, retired_at: MAY_1 + 500 },
    ]);
    expect(parseRetiredOperatorKeys(`${a}@2026-04-30T19:30-04:30`)).toEqual([{ pubkey: a, retired_at: MAY_1 }]);
    expect(parseRetiredOperatorKeys("")).toEqual([]);
    expect(parseRetiredOperatorKeys(" , ")).toEqual([]);
  });

  it.each([
    ["no @", a, /entry 1 .* is not <base58 public key>@<retired at/],
    [
      "a key that is not base58 of 32 bytes",
      "abc@2026-05-01T00:00:00Z",
      /entry 1 .*: the key is not a base58 32-byte Ed25519 public key/,
    ],
    ["a time without a zone (whose local time?)", `${a}@2026-05-01T00:00:00`, /the retirement time is neither/],
    ["a date alone", `${a}@2026-05-01`, /the retirement time is neither/],
    [
      "Unix seconds, which read as ms would retire the key in 1970",
      `${a}@1777593600`,
      /the retirement time is neither/,
    ],
    ["30 February", `${a}@2026-02-30T00:00:00Z`, /the retirement time is neither/],
    ["hour 24", `${a}@2026-05-01T24:00:00Z`, /the retirement time is neither/],
    ["a zone past 14 hours", `${a}@2026-05-01T00:00:00+15:00`, /the retirement time is neither/],
    [
      "a key listed twice",
      `${a}@2026-05-01T00:00:00Z,${a}@2026-06-01T00:00:00Z`,
      /entry 2 .*: the key .* is listed twice/,
    ],
  ])("rejects malformed input: %s, naming the variable and the entry", (_label, text, message) => {
    const attempt = () => parseRetiredOperatorKeys(text);
    expect(attempt).toThrow(ConfigError);
    expect(attempt).toThrow(/^SERVICE_OPERATOR_RETIRED_KEYS: entry \d/);
    expect(attempt).toThrow(message);
  });
});

describe("refuseRetiredOperatorKey()", () => {
  it("refuses a role's key that is a retired operator key, naming both variables, and lets any other through", () => {
    const retired = [{ pubkey: a, retired_at: MAY_1 }];
    expect(() => refuseRetiredOperatorKey(retired, "VERIFIER_SECRET_KEY", a)).toThrow(
      new ConfigError(
        `VERIFIER_SECRET_KEY must differ from every key in SERVICE_OPERATOR_RETIRED_KEYS: both hold the key ${a}`,
      ),
    );
    expect(() => refuseRetiredOperatorKey(retired, "VERIFIER_SECRET_KEY", b)).not.toThrow();
  });
});
