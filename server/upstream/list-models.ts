// GET /api/v1/models: the OpenAI-style list of what this deployment offers, with the flat per-call price and the
// networks each model is offered on (testnets serve the built-in model only unless the operator enables more).
import "server-only";
import { NETWORKS, type NetworkId } from "../chain/networks";
import type { Settings } from "../settings/setting-definitions";
import { formatUnitsAsUsdc } from "../verify";
import type { Upstream } from "./index";
import { offeredOnNetwork } from "./model-catalog";

/** Each network under the name a request's `network` field takes. */
const NETWORK_NAMES: readonly (readonly [NetworkId, string])[] = [
  ["solana-devnet", "devnet"],
  ["solana-mainnet", "mainnet"],
  ["base", "base"],
  ["base-sepolia", "base-sepolia"],
];

/** The model list body. */
export function listModels(upstream: Upstream, settings: Pick<Settings, "flatPriceUnits" | "testnetProviderModels">): { object: "list"; data: unknown[] } {
  return {
    object: "list",
    data: upstream.models().map((m) => ({
      id: m.id,
      object: "model",
      created: 0,
      owned_by: m.provider === "local" ? "signet" : m.id.split("/")[0],
      description: m.label,
      max_tokens: m.maxTokens,
      networks: NETWORK_NAMES.filter(([id]) => offeredOnNetwork(m, NETWORKS[id], settings.testnetProviderModels)).map(([, name]) => name),
      pricing: {
        per_call_usdc: formatUnitsAsUsdc(settings.flatPriceUnits),
        upstream_input_usdc_per_mtok: formatUnitsAsUsdc(m.inputUnitsPerMTok),
        upstream_output_usdc_per_mtok: formatUnitsAsUsdc(m.outputUnitsPerMTok),
      },
    })),
  };
}
