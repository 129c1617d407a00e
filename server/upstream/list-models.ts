// GET /api/v1/models: the OpenAI-style list of what this deployment offers, with the flat per-call price.
import "server-only";
import { formatUnitsAsUsdc } from "../verify";
import type { Upstream } from "./index";

/** The model list body. */
export function listModels(upstream: Upstream, flatPriceUnits: bigint): { object: "list"; data: unknown[] } {
  return {
    object: "list",
    data: upstream.models().map((m) => ({
      id: m.id,
      object: "model",
      created: 0,
      owned_by: m.provider === "local" ? "signet" : m.id.split("/")[0],
      description: m.label,
      max_tokens: m.maxTokens,
      pricing: {
        per_call_usdc: formatUnitsAsUsdc(flatPriceUnits),
        upstream_input_usdc_per_mtok: formatUnitsAsUsdc(m.inputUnitsPerMTok),
        upstream_output_usdc_per_mtok: formatUnitsAsUsdc(m.outputUnitsPerMTok),
      },
    })),
  };
}
