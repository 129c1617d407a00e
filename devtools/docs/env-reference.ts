// docs/configuration.md's tables, from the env schemas at run time: each variable's name, type, default and the
// description its schema field carries (`.describe()`); and one row per network's RPC variable, from the network
// registry's rows.
import "server-only";
import type { z } from "zod";
import { envSchema, LEGACY_RPC_URL_VARIABLES, LOCAL_CHAIN_PORT_VARIABLES, rpcUrlVariable } from "../../server/env";
import { SHIPPED_NETWORKS, type NetworkRow } from "../../server/verify";
import { devtoolsEnvSchema } from "../devtools-env";
import { cell } from "./generated-block";

interface Row {
  name: string;
  type: string;
  fallback: string;
  description: string;
}

type Def = { type: string; innerType?: z.ZodType; in?: z.ZodType; defaultValue?: unknown; entries?: Record<string, string>; format?: string };
const defOf = (schema: z.ZodType): Def => (schema as unknown as { _zod: { def: Def } })._zod.def;

/** What a value must be, in words: `true` \| `false`, integer 1–65535, URL, string. */
function typeOf(schema: z.ZodType): string {
  const def = defOf(schema);
  switch (def.type) {
    case "default":
    case "optional":
      return typeOf(def.innerType!);
    case "pipe":
      return typeOf(def.in!);
    case "enum":
      return Object.values(def.entries ?? {})
        .map((v) => `\`${v}\``)
        .join(" \\| ");
    case "number": {
      const n = schema as unknown as { isInt: boolean; minValue: number | null; maxValue: number | null };
      const finite = (v: number | null) => v !== null && Number.isFinite(v) && Math.abs(v) < Number.MAX_SAFE_INTEGER;
      const range = finite(n.minValue) && finite(n.maxValue) ? ` ${n.minValue}–${n.maxValue}` : finite(n.minValue) ? ` ≥ ${n.minValue}` : "";
      return `${n.isInt ? "integer" : "number"}${range}`;
    }
    case "string": {
      if (def.format === "url") return "URL";
      const s = schema as unknown as { minLength: number | null };
      return s.minLength && s.minLength > 1 ? `string, ≥ ${s.minLength} chars` : "string";
    }
    default:
      return def.type;
  }
}

/** The default the schema fills in, or `—` when it leaves the value unset. */
function fallbackOf(schema: z.ZodType): string {
  const def = defOf(schema);
  if (def.type === "default") return def.defaultValue === "" ? "empty" : `\`${String(def.defaultValue)}\``;
  if (def.type === "pipe") return fallbackOf(def.in!);
  return "—";
}

function table(rows: Row[]): string {
  return ["| variable | type | default | description |", "|---|---|---|---|", ...rows.map((r) => `| \`${r.name}\` | ${r.type} | ${r.fallback} | ${cell(r.description)} |`)].join("\n");
}

/** The schema's field the RPC variables' rows follow (the chains' part of the table). */
const RPC_ROWS_AFTER = "LOCALNET_MAINNET_RPC_PORT";

/** A network's RPC variable (RPC_URL_<ID>), described from its row. */
function rpcRow(network: NetworkRow): Row {
  const port = Object.hasOwn(LOCAL_CHAIN_PORT_VARIABLES, network.id) ? LOCAL_CHAIN_PORT_VARIABLES[network.id] : undefined;
  const legacy = Object.entries(LEGACY_RPC_URL_VARIABLES).find(([, id]) => id === network.id)?.[0];
  const dev = port ? `Dev: the local chain on ${port}, when it runs` : "Dev: none unless set";
  return {
    name: rpcUrlVariable(network.id),
    type: "URL",
    fallback: "—",
    description: [
      `The ${network.label} RPC (${network.caip2}) the facilitator, reconcile and the hosted verifier use; its public one is ${network.publicRpcUrl}.`,
      `${dev}; production: none unless set, and without one the network takes no payments.`,
      ...(legacy ? [`Its old name ${legacy} is still read this release (deprecated).`] : []),
    ].join(" "),
  };
}

/** One row per field of `schema`: its type and default read off the zod schema, its description from `.describe()`. */
function schemaRows(schema: z.ZodObject): Row[] {
  return Object.entries(schema.shape as Record<string, z.ZodType>).map(([name, field]) => ({
    name,
    type: typeOf(field),
    fallback: fallbackOf(field),
    description: field.description ?? "",
  }));
}

/** The service's variables: every field of `envSchema`, and each shipped network's RPC variable after the chains' ports. */
export function serviceEnvTable(): string {
  const rows = schemaRows(envSchema);
  const at = rows.findIndex((r) => r.name === RPC_ROWS_AFTER);
  rows.splice(at < 0 ? rows.length : at + 1, 0, ...SHIPPED_NETWORKS.rows.map(rpcRow));
  return table(rows);
}

/** The dev tools' variables: every field of `devtoolsEnvSchema`. */
export function devtoolsEnvTable(): string {
  return table(schemaRows(devtoolsEnvSchema));
}
