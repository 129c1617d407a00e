// What settings do to calls: what a call on each network answers (checked in the order the service checks), the price
// against its ceiling and the grants' limits; and what one change does that the settings before it did not. Pure: the
// caller passes the settings and the deployment's facts (which networks have an RPC, the facilitator's address).
import "server-only";
import { formatUnitsAsUsdc, type NetworkId, type NetworkRegistry } from "../verify";
import { familyFacts } from "../verify/chain-family-facts";
import { ERROR_STATUS, type ErrorCode } from "../errors";
import type { SettingKey, Settings } from "./setting-definitions";

/** What the deployment is, beyond its settings: read once per request from the runtime. */
export interface DeploymentFacts {
  production: boolean;
  /** The networks the service is configured with (its registry). */
  networks: NetworkRegistry;
  /** Networks the service can take payment on (an RPC is configured for each). */
  offeredNetworks: readonly NetworkId[];
  /** The facilitator's Solana address: devnet's deposit address, and the only one the service accepts there. */
  facilitatorAddress: string;
  /** Secrets unset in the settings that development generated into the data dir (ignored in production). */
  generatedSecrets: readonly SettingKey[];
}

/** Why a network's calls answer 500 server_misconfigured. */
type BrokenReason = "no_rpc" | "no_deposit_address" | "deposit_address_not_facilitator";

/** What a call on one network answers: served; refused with a clear code; or broken, a 500 the operator must fix. */
export type CallOutcome =
  | { kind: "serves" }
  | { kind: "refused"; answers: "mainnet_disabled" | "network_not_supported" }
  | { kind: "broken"; answers: "server_misconfigured"; reason: BrokenReason };

type SettingEffectCode =
  | "network_refused"
  | "network_broken"
  | "default_network_refused"
  | "default_network_broken"
  | "price_above_ceiling"
  | "deposit_address_not_facilitator"
  | "grant_above_budget"
  | "grants_stopped"
  | "grant_salt_missing"
  | "grant_counts_reset"
  | "testnet_provider_models"
  | "agents_refused";

/** One thing the settings do to calls, in a sentence an operator can act on. */
export interface SettingEffect {
  /** The same for the same effect: what a confirmation names. */
  id: string;
  code: SettingEffectCode;
  /** The error code the calls it is about answer; null when they still succeed. */
  answers: ErrorCode | null;
  /** The settings it is about. */
  keys: SettingKey[];
  message: string;
}

/**
 * One consequence of a change. `refuse`: the service never runs with it (start-up refuses the same from the
 * environment), so nothing is written; `confirm`: written only once the operator has confirmed it.
 */
export interface SettingConsequence extends SettingEffect {
  severity: "refuse" | "confirm";
}

/** One setting about to change, with the settings before and after it (null before: the stored ones do not parse). */
export interface SettingChange {
  key: SettingKey;
  current: Settings | null;
  proposed: Settings;
}

/**
 * What a call on `network` answers under `settings`, in the service's own order: the kill switch
 * (pipeline/network-gate.ts), then whether the network is offered and where its payments go (x402/deposit-address.ts).
 */
export function callOutcome(settings: Settings, network: NetworkId, facts: DeploymentFacts): CallOutcome {
  const info = facts.networks.get(network);
  if (info.isMainnet && !settings.mainnetEnabled) return { kind: "refused", answers: "mainnet_disabled" };
  const offered = facts.offeredNetworks.includes(network);
  // The family decides, as x402/deposit-address.ts does: an EVM network is optional (without its RPC it is simply not
  // offered) and pays the facilitator's EVM key, which no setting names; a Solana one pays its deposit setting.
  const deposit = { settings, facilitatorAddress: facts.facilitatorAddress, evmAddress: null };
  const problem = familyFacts(info).depositProblem(info, deposit, offered);
  if (problem === null) return { kind: "serves" };
  if (problem === "not_offered") return { kind: "refused", answers: "network_not_supported" };
  return { kind: "broken", answers: "server_misconfigured", reason: problem };
}

/** What is wrong with calls under `settings` now: broken networks, the default network, the price and the grants. */
export function standingProblems(settings: Settings, facts: DeploymentFacts): SettingEffect[] {
  // A mainnet switched off or a Base network not offered is the operator's choice, which the kill switch shows.
  return stateEffects(settings, facts)
    .filter((e) => e.effect.code !== "network_refused")
    .map((e) => e.effect);
}

/**
 * What `change` does that the settings before it did not: refusals (and nothing else) when the change breaks a rule
 * the service enforces; otherwise each call that served and would not, or that was refused and would break, and the
 * changes that move money or reset counts. A change that leaves a problem as it was adds no consequence for it.
 */
export function settingConsequences(change: SettingChange, facts: DeploymentFacts): SettingConsequence[] {
  const refusals = refusalsOf(change, facts);
  if (refusals.length > 0) return refusals;
  const before = new Map((change.current ? stateEffects(change.current, facts) : []).map((e) => [e.subject, e]));
  const worse = stateEffects(change.proposed, facts).filter((after) => {
    const was = before.get(after.subject);
    // What served and would not is news, and so is a 500 for a new reason (a refusal becoming one included); a
    // refusal that stays a refusal, or a 500 that becomes a refusal, is not.
    return !was || (after.broken && after.effect.id !== was.effect.id);
  });
  return [...worse.map((e) => e.effect), ...changeEffects(change, facts)].map((effect) => ({
    ...effect,
    severity: "confirm" as const,
  }));
}

/** The ids of the consequences that still need the operator's confirmation, given the ones confirmed. */
export function unconfirmed(consequences: readonly SettingConsequence[], acknowledged: readonly string[]): string[] {
  return consequences.filter((c) => c.severity === "confirm" && !acknowledged.includes(c.id)).map((c) => c.id);
}

/**
 * An effect of the settings as they are, with what it is about (to compare before and after) and whether its calls
 * answer a 500 the operator must fix (broken) rather than a refusal with a code the caller can act on.
 */
interface StateEffect {
  subject: string;
  broken: boolean;
  effect: SettingEffect;
}

function stateEffects(settings: Settings, facts: DeploymentFacts): StateEffect[] {
  const out: StateEffect[] = [];
  for (const network of facts.networks.ids) {
    const outcome = callOutcome(settings, network, facts);
    if (outcome.kind === "serves") continue;
    const label = facts.networks.get(network).label;
    out.push({
      subject: `network:${network}`,
      broken: outcome.kind === "broken",
      effect:
        outcome.kind === "broken"
          ? effect(
              `network_broken:${network}:${outcome.reason}`,
              "network_broken",
              outcome.answers,
              brokenKeys(outcome.reason, network, facts),
              `${label} calls answer ${answer(outcome.answers)}: ${brokenReason(outcome.reason, network, facts)}.`,
            )
          : effect(
              `network_refused:${network}:${outcome.answers}`,
              "network_refused",
              outcome.answers,
              refusedKeys(outcome.answers),
              `${label} calls answer ${answer(outcome.answers)}.`,
            ),
    });
  }
  const fallback = settings.defaultNetwork;
  const outcome = callOutcome(settings, fallback, facts);
  if (outcome.kind !== "serves") {
    const label = facts.networks.get(fallback).label;
    // Grants credit on the default network, and are refused while it is a mainnet switched off.
    const grants = outcome.answers === "mainnet_disabled" ? "; grant claims are refused too" : "";
    out.push({
      subject: "default",
      broken: outcome.kind === "broken",
      effect:
        outcome.kind === "broken"
          ? effect(
              `default_network_broken:${fallback}:${outcome.reason}`,
              "default_network_broken",
              outcome.answers,
              ["X402_NETWORK", ...brokenKeys(outcome.reason, fallback, facts)],
              `Calls that name no network go to ${label} and answer ${answer(outcome.answers)}: ${brokenReason(outcome.reason, fallback, facts)}.`,
            )
          : effect(
              `default_network_refused:${fallback}:${outcome.answers}`,
              "default_network_refused",
              outcome.answers,
              ["X402_NETWORK", ...refusedKeys(outcome.answers)],
              `Calls that name no network go to ${label} and answer ${answer(outcome.answers)}${grants}.`,
            ),
    });
  }
  if (settings.flatPriceUnits > settings.maxPriceUnits) {
    out.push({ subject: "price", broken: true, effect: priceAboveCeiling(settings) });
  }
  if (settings.grantAmountUnits > settings.grantBudgetDailyUnits) {
    out.push({
      subject: "grant-budget",
      broken: false,
      effect: effect(
        "grant_above_budget",
        "grant_above_budget",
        "grant_budget_exhausted",
        ["SERVICE_GRANT_AMOUNT_USDC", "SERVICE_GRANT_BUDGET_DAILY_USDC"],
        `Grant claims answer ${answer("grant_budget_exhausted")}: one grant (${usdc(settings.grantAmountUnits)}) is more than the daily grant budget (${usdc(settings.grantBudgetDailyUnits)}).`,
      ),
    });
  }
  if (settings.grantMaxPerIp === 0) {
    out.push({
      subject: "grants-per-address",
      broken: false,
      effect: effect(
        "grants_stopped",
        "grants_stopped",
        "grant_ip_limit",
        ["SERVICE_GRANT_MAX_PER_IP"],
        `Grant claims answer ${answer("grant_ip_limit")}: no client address may claim a grant.`,
      ),
    });
  }
  if (facts.production && settings.ipHashSalt === null) {
    out.push({
      subject: "grant-salt",
      broken: true,
      effect: effect(
        "grant_salt_missing",
        "grant_salt_missing",
        "server_misconfigured",
        ["IP_HASH_SALT"],
        `Grant claims answer ${answer("server_misconfigured")}: production has no IP-hash salt.`,
      ),
    });
  }
  return out;
}

/** The rules a change may not break, whatever the operator confirms: a 500 on every call of a route. */
function refusalsOf(change: SettingChange, facts: DeploymentFacts): SettingConsequence[] {
  const { key, current, proposed } = change;
  // A problem already there does not block a change to another setting; a change to a setting it names must fix it.
  const introduces = (holds: (s: Settings) => boolean, keys: readonly SettingKey[]) =>
    holds(proposed) && (current === null || !holds(current) || keys.includes(key));
  const out: SettingConsequence[] = [];
  const priceKeys: SettingKey[] = ["X402_FLAT_PRICE_USDC", "SERVICE_MAX_PRICE_USDC"];
  if (introduces((s) => s.flatPriceUnits > s.maxPriceUnits, priceKeys))
    out.push({ ...priceAboveCeiling(proposed), severity: "refuse" });
  // SECURITY: devnet's deposit address must be the fee payer's own; any other is a typo that sends payments elsewhere.
  const foreignDeposit = (s: Settings) => s.depositAddress !== null && s.depositAddress !== facts.facilitatorAddress;
  if (introduces(foreignDeposit, ["SERVICE_DEPOSIT_ADDRESS"])) {
    out.push({
      ...effect(
        "deposit_address_not_facilitator",
        "deposit_address_not_facilitator",
        "server_misconfigured",
        ["SERVICE_DEPOSIT_ADDRESS"],
        `The devnet deposit address must be the facilitator's own address (${facts.facilitatorAddress}), or empty for that address.`,
      ),
      severity: "refuse",
    });
  }
  return out;
}

/** What the change itself does beyond the state it leaves: money that starts to move, counts that start over. */
function changeEffects({ current, proposed }: SettingChange, facts: DeploymentFacts): SettingEffect[] {
  const out: SettingEffect[] = [];
  const saltInUse =
    current !== null &&
    (current.ipHashSalt !== null || (!facts.production && facts.generatedSecrets.includes("IP_HASH_SALT")));
  if (saltInUse && proposed.ipHashSalt !== null && proposed.ipHashSalt !== current.ipHashSalt) {
    out.push(
      effect(
        "grant_counts_reset",
        "grant_counts_reset",
        null,
        ["IP_HASH_SALT"],
        "Every client address may claim its grants again, and per-address rate limits start over: the addresses counted so far were hashed with the old salt.",
      ),
    );
  }
  if (proposed.testnetProviderModels && !current?.testnetProviderModels) {
    out.push(
      effect(
        "testnet_provider_models",
        "testnet_provider_models",
        null,
        ["SERVICE_TESTNET_PROVIDER_MODELS"],
        "Testnet calls may ask the provider's models: faucet USDC, free to anyone, then buys inference you pay the provider for.",
      ),
    );
  }
  const was = current?.allowedAgents ?? new Set<string>();
  const now = proposed.allowedAgents;
  if (now.size > 0) {
    const refused = "agent_not_allowed" satisfies ErrorCode;
    if (was.size === 0) {
      out.push(
        effect(
          "agents_refused",
          "agents_refused",
          refused,
          ["SERVICE_ALLOWED_AGENTS"],
          `On mainnet, only the ${now.size} listed agent(s) may pay: any other payer is refused with ${answer(refused)}.`,
        ),
      );
    } else {
      const removed = [...was].filter((k) => !now.has(k)).length;
      if (removed > 0)
        out.push(
          effect(
            "agents_refused",
            "agents_refused",
            refused,
            ["SERVICE_ALLOWED_AGENTS"],
            `On mainnet, the ${removed} agent(s) taken off the list are refused with ${answer(refused)}.`,
          ),
        );
    }
  }
  return out;
}

function effect(
  id: string,
  code: SettingEffectCode,
  answers: ErrorCode | null,
  keys: SettingKey[],
  message: string,
): SettingEffect {
  return { id, code, answers, keys, message };
}

function priceAboveCeiling(settings: Settings): SettingEffect {
  return effect(
    "price_above_ceiling",
    "price_above_ceiling",
    "server_misconfigured",
    ["X402_FLAT_PRICE_USDC", "SERVICE_MAX_PRICE_USDC"],
    `Paid chat calls answer ${answer("server_misconfigured")}: the price per paid call (${usdc(settings.flatPriceUnits)}) is above the price ceiling (${usdc(settings.maxPriceUnits)}).`,
  );
}

/** The settings that can clear a broken network (an RPC is configuration: it needs a restart, not a setting). */
function brokenKeys(reason: BrokenReason, network: NetworkId, facts: DeploymentFacts): SettingKey[] {
  const mainnet: SettingKey[] = facts.networks.get(network).isMainnet ? ["SERVICE_MAINNET_ENABLED"] : [];
  if (reason === "no_deposit_address") return ["SERVICE_MAINNET_DEPOSIT_ADDRESS", ...mainnet];
  if (reason === "deposit_address_not_facilitator") return ["SERVICE_DEPOSIT_ADDRESS"];
  return mainnet;
}

function refusedKeys(answers: "mainnet_disabled" | "network_not_supported"): SettingKey[] {
  return answers === "mainnet_disabled" ? ["SERVICE_MAINNET_ENABLED"] : [];
}

function brokenReason(reason: BrokenReason, network: NetworkId, facts: DeploymentFacts): string {
  const label = facts.networks.get(network).label;
  if (reason === "no_rpc") return `no RPC is configured for ${label}`;
  if (reason === "no_deposit_address") return `no ${label} deposit address is set`;
  return `its deposit address is not the facilitator's own (${facts.facilitatorAddress})`;
}

const answer = (code: ErrorCode) => `${ERROR_STATUS[code]} ${code}`;
const usdc = (units: bigint) => `${formatUnitsAsUsdc(units)} USDC`;
