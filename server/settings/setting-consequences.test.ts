import { describe, expect, it } from "vitest";
import { SHIPPED_NETWORKS, type NetworkId } from "../verify";
import {
  callOutcome,
  settingConsequences,
  standingProblems,
  unconfirmed,
  type DeploymentFacts,
} from "./setting-consequences";
import { parseSettings, type SettingKey, type Settings } from "./setting-definitions";

const FACILITATOR = "AKnL4NNf3DGWZJS6cPknBuEGnVsV4A4m5tgebLHaRSZ9";
const MAINNET_DEPOSIT = "8wFSAv3VrwYP7Vh9pTU8DcRSPp31wH2X3VqJXm4Hk1Lb";
const AGENT_A = "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin";
const AGENT_B = "0x5b38da6a701c568545dcfcb03fcb875f56beddc4";
const ALL_NETWORKS: NetworkId[] = ["solana-devnet", "solana-mainnet", "base-sepolia", "base"];

const facts = (over: Partial<DeploymentFacts> = {}): DeploymentFacts => ({
  production: false,
  networks: SHIPPED_NETWORKS,
  offeredNetworks: ALL_NETWORKS,
  facilitatorAddress: FACILITATOR,
  generatedSecrets: [],
  ...over,
});

/** The settings from raw text over the defaults (mainnet's deposit address set unless a test says otherwise). */
const settings = (raw: Partial<Record<SettingKey, string>> = {}): Settings =>
  parseSettings({ SERVICE_MAINNET_DEPOSIT_ADDRESS: MAINNET_DEPOSIT, ...raw }, SHIPPED_NETWORKS);

/** The consequences of changing `key` to `value` over `before`. */
function change(
  before: Partial<Record<SettingKey, string>>,
  key: SettingKey,
  value: string,
  f: DeploymentFacts = facts(),
) {
  return settingConsequences({ key, current: settings(before), proposed: settings({ ...before, [key]: value }) }, f);
}

const ids = (list: { id: string }[]) => list.map((c) => c.id);

describe("callOutcome()", () => {
  it("refuses a mainnet while the switch is off, before anything about its RPC or deposit address", () => {
    const off = settings({ SERVICE_MAINNET_DEPOSIT_ADDRESS: "" });
    const none = facts({ offeredNetworks: [] });
    expect(callOutcome(off, "solana-mainnet", none)).toEqual({ kind: "refused", answers: "mainnet_disabled" });
    expect(callOutcome(off, "base", none)).toEqual({ kind: "refused", answers: "mainnet_disabled" });
  });

  it("breaks a Solana network without an RPC (500), where a Base network without one is only not offered", () => {
    const on = settings({ SERVICE_MAINNET_ENABLED: "true" });
    const none = facts({ offeredNetworks: [] });
    expect(callOutcome(on, "solana-mainnet", none)).toMatchObject({
      kind: "broken",
      answers: "server_misconfigured",
      reason: "no_rpc",
    });
    expect(callOutcome(on, "solana-devnet", none)).toMatchObject({ kind: "broken", reason: "no_rpc" });
    expect(callOutcome(on, "base", none)).toEqual({ kind: "refused", answers: "network_not_supported" });
    expect(callOutcome(on, "base-sepolia", none)).toEqual({ kind: "refused", answers: "network_not_supported" });
  });

  it("breaks Solana mainnet without a deposit address, and serves it with one", () => {
    expect(
      callOutcome(
        settings({ SERVICE_MAINNET_ENABLED: "true", SERVICE_MAINNET_DEPOSIT_ADDRESS: "" }),
        "solana-mainnet",
        facts(),
      ),
    ).toMatchObject({ reason: "no_deposit_address" });
    expect(callOutcome(settings({ SERVICE_MAINNET_ENABLED: "true" }), "solana-mainnet", facts())).toEqual({
      kind: "serves",
    });
  });

  it("serves devnet at the facilitator's address, set or defaulted, and breaks it at any other", () => {
    expect(callOutcome(settings(), "solana-devnet", facts())).toEqual({ kind: "serves" });
    expect(callOutcome(settings({ SERVICE_DEPOSIT_ADDRESS: FACILITATOR }), "solana-devnet", facts())).toEqual({
      kind: "serves",
    });
    expect(callOutcome(settings({ SERVICE_DEPOSIT_ADDRESS: MAINNET_DEPOSIT }), "solana-devnet", facts())).toMatchObject(
      { reason: "deposit_address_not_facilitator" },
    );
  });
});

describe("settingConsequences(): boolean settings", () => {
  it("has none for turning mainnet on where its RPC and deposit address are configured", () => {
    expect(change({}, "SERVICE_MAINNET_ENABLED", "true")).toEqual([]);
  });

  it("asks to confirm turning mainnet on without a Solana mainnet deposit address: its calls would answer 500", () => {
    const out = change({ SERVICE_MAINNET_DEPOSIT_ADDRESS: "" }, "SERVICE_MAINNET_ENABLED", "true");
    expect(out).toEqual([
      expect.objectContaining({
        id: "network_broken:solana-mainnet:no_deposit_address",
        severity: "confirm",
        answers: "server_misconfigured",
        keys: ["SERVICE_MAINNET_DEPOSIT_ADDRESS", "SERVICE_MAINNET_ENABLED"],
      }),
    ]);
    expect(out[0]!.message).toBe(
      "Solana mainnet calls answer 500 server_misconfigured: no Solana mainnet deposit address is set.",
    );
  });

  it("asks to confirm turning mainnet on without a Solana mainnet RPC, and says nothing of a Base mainnet that is not offered", () => {
    const out = change({}, "SERVICE_MAINNET_ENABLED", "true", facts({ offeredNetworks: ["solana-devnet"] }));
    expect(ids(out)).toEqual(["network_broken:solana-mainnet:no_rpc"]);
    expect(out[0]!.message).toMatch(/no RPC is configured for Solana mainnet/);
  });

  it("asks to confirm turning mainnet off while mainnets serve: their calls answer 503 mainnet_disabled", () => {
    const out = change({ SERVICE_MAINNET_ENABLED: "true" }, "SERVICE_MAINNET_ENABLED", "false");
    expect(ids(out)).toEqual([
      "network_refused:solana-mainnet:mainnet_disabled",
      "network_refused:base:mainnet_disabled",
    ]);
    expect(out.map((c) => c.answers)).toEqual(["mainnet_disabled", "mainnet_disabled"]);
    expect(out[0]!.message).toBe("Solana mainnet calls answer 503 mainnet_disabled.");
  });

  it("has nothing to confirm for turning off a mainnet that was already failing", () => {
    const before = { SERVICE_MAINNET_ENABLED: "true", SERVICE_MAINNET_DEPOSIT_ADDRESS: "" };
    expect(change(before, "SERVICE_MAINNET_ENABLED", "false", facts({ offeredNetworks: ["solana-devnet"] }))).toEqual(
      [],
    );
  });

  it("says grant claims stop too when the default network is the mainnet turned off", () => {
    const out = change(
      { SERVICE_MAINNET_ENABLED: "true", X402_NETWORK: "mainnet" },
      "SERVICE_MAINNET_ENABLED",
      "false",
      facts({ offeredNetworks: ["solana-devnet", "solana-mainnet"] }),
    );
    expect(ids(out)).toEqual([
      "network_refused:solana-mainnet:mainnet_disabled",
      "default_network_refused:solana-mainnet:mainnet_disabled",
    ]);
    expect(out[1]!.message).toBe(
      "Calls that name no network go to Solana mainnet and answer 503 mainnet_disabled; grant claims are refused too.",
    );
  });

  it("asks to confirm offering provider models on testnets, and nothing for turning them off", () => {
    expect(ids(change({}, "SERVICE_TESTNET_PROVIDER_MODELS", "true"))).toEqual(["testnet_provider_models"]);
    expect(change({ SERVICE_TESTNET_PROVIDER_MODELS: "true" }, "SERVICE_TESTNET_PROVIDER_MODELS", "false")).toEqual([]);
  });
});

describe("settingConsequences(): USDC amounts", () => {
  it("refuses a price above the ceiling, whichever of the two changes, and nothing else is weighed", () => {
    const raised = change({ SERVICE_MAINNET_DEPOSIT_ADDRESS: "" }, "X402_FLAT_PRICE_USDC", "0.2");
    expect(raised).toEqual([
      expect.objectContaining({ id: "price_above_ceiling", severity: "refuse", answers: "server_misconfigured" }),
    ]);
    expect(raised[0]!.message).toBe(
      "Paid chat calls answer 500 server_misconfigured: the price per paid call (0.2 USDC) is above the price ceiling (0.1 USDC).",
    );
    expect(ids(change({}, "SERVICE_MAX_PRICE_USDC", "0.005"))).toEqual(["price_above_ceiling"]);
  });

  it("accepts a price equal to the ceiling", () => {
    expect(change({}, "X402_FLAT_PRICE_USDC", "0.1")).toEqual([]);
    expect(change({}, "SERVICE_MAX_PRICE_USDC", "0.01")).toEqual([]);
  });

  it("lets another setting change under a price already above the ceiling, but not a price change that leaves it there", () => {
    const broken = { X402_FLAT_PRICE_USDC: "0.5" };
    expect(change(broken, "SERVICE_GRANT_AMOUNT_USDC", "0.2")).toEqual([]);
    expect(ids(change(broken, "X402_FLAT_PRICE_USDC", "0.4"))).toEqual(["price_above_ceiling"]);
    expect(change(broken, "SERVICE_MAX_PRICE_USDC", "0.5")).toEqual([]);
  });

  it("asks to confirm a grant above the daily budget (every claim would answer grant_budget_exhausted), zero budget included", () => {
    const out = change({}, "SERVICE_GRANT_AMOUNT_USDC", "6");
    expect(out).toEqual([
      expect.objectContaining({ id: "grant_above_budget", severity: "confirm", answers: "grant_budget_exhausted" }),
    ]);
    expect(out[0]!.message).toMatch(/one grant \(6 USDC\) is more than the daily grant budget \(5 USDC\)/);
    expect(ids(change({}, "SERVICE_GRANT_BUDGET_DAILY_USDC", "0"))).toEqual(["grant_above_budget"]);
    expect(change({}, "SERVICE_GRANT_AMOUNT_USDC", "5")).toEqual([]);
  });
});

describe("settingConsequences(): integers", () => {
  it("asks to confirm stopping grants with zero per client address, once", () => {
    expect(change({}, "SERVICE_GRANT_MAX_PER_IP", "0")).toEqual([
      expect.objectContaining({ id: "grants_stopped", answers: "grant_ip_limit" }),
    ]);
    expect(change({ SERVICE_GRANT_MAX_PER_IP: "0" }, "SERVICE_GRANT_MAX_PER_IP", "0")).toEqual([]);
    expect(change({}, "SERVICE_GRANT_MAX_PER_IP", "1")).toEqual([]);
  });
});

describe("settingConsequences(): the default network", () => {
  it("asks to confirm a default that is a mainnet switched off", () => {
    expect(ids(change({}, "X402_NETWORK", "mainnet"))).toEqual([
      "default_network_refused:solana-mainnet:mainnet_disabled",
    ]);
  });

  it("asks to confirm a default that is not offered, or broken", () => {
    expect(ids(change({}, "X402_NETWORK", "base-sepolia", facts({ offeredNetworks: ["solana-devnet"] })))).toEqual([
      "default_network_refused:base-sepolia:network_not_supported",
    ]);
    const broken = change(
      { SERVICE_MAINNET_ENABLED: "true", SERVICE_MAINNET_DEPOSIT_ADDRESS: "" },
      "X402_NETWORK",
      "mainnet",
    );
    expect(ids(broken)).toEqual(["default_network_broken:solana-mainnet:no_deposit_address"]);
    expect(broken[0]!.message).toBe(
      "Calls that name no network go to Solana mainnet and answer 500 server_misconfigured: no Solana mainnet deposit address is set.",
    );
  });

  it("has none for a default that serves", () => {
    expect(change({}, "X402_NETWORK", "base-sepolia")).toEqual([]);
    expect(change({ SERVICE_MAINNET_ENABLED: "true" }, "X402_NETWORK", "base")).toEqual([]);
  });
});

describe("settingConsequences(): a 500 for another reason", () => {
  it("is news, where the same 500 again is not", () => {
    // Production without a devnet RPC: devnet calls are broken; so are Solana mainnet's without a deposit address.
    const f = facts({ production: true, offeredNetworks: ["solana-mainnet"] });
    const before = {
      SERVICE_MAINNET_ENABLED: "true",
      SERVICE_MAINNET_DEPOSIT_ADDRESS: "",
      X402_NETWORK: "mainnet",
      IP_HASH_SALT: "a-salt-of-sixteen-chars",
    };
    expect(ids(change(before, "X402_NETWORK", "devnet", f))).toEqual(["default_network_broken:solana-devnet:no_rpc"]);
    expect(change(before, "SERVICE_GRANT_AMOUNT_USDC", "0.2", f)).toEqual([]);
  });
});

describe("settingConsequences(): key lists", () => {
  it("asks to confirm closing an open mainnet to the listed agents", () => {
    const out = change({}, "SERVICE_ALLOWED_AGENTS", `${AGENT_A},${AGENT_B}`);
    expect(out).toEqual([expect.objectContaining({ id: "agents_refused", answers: "agent_not_allowed" })]);
    expect(out[0]!.message).toMatch(/only the 2 listed agent\(s\) may pay/);
  });

  it("asks to confirm taking agents off the list, and nothing for adding one or opening the list", () => {
    const out = change({ SERVICE_ALLOWED_AGENTS: `${AGENT_A},${AGENT_B}` }, "SERVICE_ALLOWED_AGENTS", AGENT_B);
    expect(out[0]!.message).toMatch(/the 1 agent\(s\) taken off the list/);
    expect(change({ SERVICE_ALLOWED_AGENTS: AGENT_A }, "SERVICE_ALLOWED_AGENTS", `${AGENT_A},${AGENT_B}`)).toEqual([]);
    expect(change({ SERVICE_ALLOWED_AGENTS: AGENT_A }, "SERVICE_ALLOWED_AGENTS", "")).toEqual([]);
  });
});

describe("settingConsequences(): addresses", () => {
  it("asks to confirm clearing the mainnet deposit address while mainnet is on, and nothing while it is off", () => {
    expect(ids(change({ SERVICE_MAINNET_ENABLED: "true" }, "SERVICE_MAINNET_DEPOSIT_ADDRESS", ""))).toEqual([
      "network_broken:solana-mainnet:no_deposit_address",
    ]);
    expect(change({}, "SERVICE_MAINNET_DEPOSIT_ADDRESS", "")).toEqual([]);
  });

  it("refuses a devnet deposit address other than the facilitator's, and takes the facilitator's or none", () => {
    const out = change({}, "SERVICE_DEPOSIT_ADDRESS", MAINNET_DEPOSIT);
    expect(out).toEqual([expect.objectContaining({ id: "deposit_address_not_facilitator", severity: "refuse" })]);
    expect(out[0]!.message).toContain(FACILITATOR);
    expect(change({}, "SERVICE_DEPOSIT_ADDRESS", FACILITATOR)).toEqual([]);
    expect(change({ SERVICE_DEPOSIT_ADDRESS: FACILITATOR }, "SERVICE_DEPOSIT_ADDRESS", "")).toEqual([]);
  });

  it("lets other settings change while a stored devnet address is no longer the facilitator's (its key was replaced)", () => {
    expect(change({ SERVICE_DEPOSIT_ADDRESS: MAINNET_DEPOSIT }, "X402_FLAT_PRICE_USDC", "0.02")).toEqual([]);
  });
});

describe("settingConsequences(): secrets", () => {
  const SALT = "a-salt-of-sixteen-chars";
  const OTHER = "another-salt-of-sixteen";

  it("asks to confirm replacing the IP-hash salt in use: every address's grant count starts over", () => {
    const out = change({ IP_HASH_SALT: SALT }, "IP_HASH_SALT", OTHER);
    expect(out).toEqual([expect.objectContaining({ id: "grant_counts_reset", answers: null, severity: "confirm" })]);
    expect(JSON.stringify(out)).not.toContain(OTHER);
    expect(JSON.stringify(out)).not.toContain(SALT);
  });

  it("counts development's generated salt as one in use, and production's missing one as none", () => {
    expect(ids(change({}, "IP_HASH_SALT", OTHER, facts({ generatedSecrets: ["IP_HASH_SALT"] })))).toEqual([
      "grant_counts_reset",
    ]);
    expect(change({}, "IP_HASH_SALT", OTHER)).toEqual([]);
    expect(change({}, "IP_HASH_SALT", OTHER, facts({ production: true, generatedSecrets: ["IP_HASH_SALT"] }))).toEqual(
      [],
    );
  });

  it("has none for storing the same salt again", () => {
    expect(change({ IP_HASH_SALT: SALT }, "IP_HASH_SALT", SALT)).toEqual([]);
  });
});

describe("settingConsequences() with stored settings that do not parse", () => {
  it("weighs the change against nothing: every problem of the settings after it is one to confirm", () => {
    const out = settingConsequences(
      { key: "SERVICE_GRANT_MAX_PER_IP", current: null, proposed: settings({ SERVICE_GRANT_MAX_PER_IP: "0" }) },
      facts(),
    );
    expect(ids(out)).toEqual([
      "network_refused:solana-mainnet:mainnet_disabled",
      "network_refused:base:mainnet_disabled",
      "network_refused:polygon:mainnet_disabled",
      "network_refused:polygon-amoy:network_not_supported",
      "network_refused:avalanche:mainnet_disabled",
      "network_refused:avalanche-fuji:network_not_supported",
      "grants_stopped",
    ]);
  });
});

describe("unconfirmed()", () => {
  it("names each confirmable consequence not acknowledged, and never a refusal", () => {
    const out = change({ SERVICE_MAINNET_ENABLED: "true" }, "SERVICE_MAINNET_ENABLED", "false");
    expect(unconfirmed(out, [])).toEqual(ids(out));
    expect(unconfirmed(out, [out[0]!.id])).toEqual([out[1]!.id]);
    expect(unconfirmed(out, ids(out))).toEqual([]);
    expect(unconfirmed(change({}, "X402_FLAT_PRICE_USDC", "1"), [])).toEqual([]);
  });

  it("ignores acknowledgements of consequences the change does not have", () => {
    expect(unconfirmed(change({}, "SERVICE_GRANT_MAX_PER_IP", "0"), ["price_above_ceiling", "nonsense"])).toEqual([
      "grants_stopped",
    ]);
  });
});

describe("standingProblems()", () => {
  it("finds none in a deployment that serves everything", () => {
    expect(standingProblems(settings({ SERVICE_MAINNET_ENABLED: "true" }), facts())).toEqual([]);
  });

  it("leaves out a mainnet switched off and a Base network not offered: the operator's choices", () => {
    expect(standingProblems(settings(), facts({ offeredNetworks: ["solana-devnet", "solana-mainnet"] }))).toEqual([]);
  });

  it("names broken networks, a default network that refuses, the price, the grants and production's missing salt", () => {
    const s = settings({
      X402_NETWORK: "mainnet",
      X402_FLAT_PRICE_USDC: "0.5",
      SERVICE_GRANT_MAX_PER_IP: "0",
      SERVICE_GRANT_BUDGET_DAILY_USDC: "0",
    });
    expect(ids(standingProblems(s, facts({ production: true, offeredNetworks: ["solana-mainnet"] })))).toEqual([
      "network_broken:solana-devnet:no_rpc",
      "default_network_refused:solana-mainnet:mainnet_disabled",
      "price_above_ceiling",
      "grant_above_budget",
      "grants_stopped",
      "grant_salt_missing",
    ]);
  });
});
