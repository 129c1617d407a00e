import { describe, expect, it } from "vitest";
import type { z } from "zod";
import { envSchema, rpcUrlVariable } from "../../server/env";
import { SHIPPED_NETWORKS } from "../../server/verify";
import { devtoolsEnvSchema } from "../devtools-env";
import { devtoolsEnvTable, serviceEnvTable } from "./env-reference";

/** The fields of `schema` whose description is missing or too short to say anything. */
const undescribed = (schema: z.ZodObject): string[] =>
  Object.entries(schema.shape as Record<string, z.ZodType>)
    .filter(([, field]) => (field.description ?? "").length < 10)
    .map(([name]) => name);

describe("the configuration reference", () => {
  it("describes every variable of both env schemas, from the description its field carries", () => {
    expect(undescribed(envSchema)).toEqual([]);
    expect(undescribed(devtoolsEnvSchema)).toEqual([]);
    const service = serviceEnvTable();
    for (const name of Object.keys(envSchema.shape)) expect(service).toContain(`| \`${name}\` |`);
    const devtools = devtoolsEnvTable();
    for (const name of Object.keys(devtoolsEnvSchema.shape)) expect(devtools).toContain(`| \`${name}\` |`);
  });

  it("reads the type and default off the schema, and the description off the field", () => {
    expect(serviceEnvTable()).toMatch(/\| `PORT` \| integer 1–65535 \| `3000` \| HTTP port/);
    expect(serviceEnvTable()).toMatch(/\| `SIGNET_DATA_DIR` \| string \| `\.data` \| Where dev keys/);
    expect(devtoolsEnvTable()).toMatch(/\| `LOCALNET_TIMING` \| `instant` \\\| `real` \| `real` \| How the local Solana/);
    expect(devtoolsEnvTable()).toMatch(/\| `SIGNET_CHAOS_FULL` \| `true` \\\| `false` \| `false` \|/);
  });

  it("lists each network's RPC variable from its row, with its old name while it is still read", () => {
    const table = serviceEnvTable();
    for (const id of SHIPPED_NETWORKS.ids) expect(table).toContain(`| \`${rpcUrlVariable(id)}\` | URL | — |`);
    expect(table).toMatch(/\| `RPC_URL_BASE_SEPOLIA` \| URL \| — \| The Base Sepolia RPC \(eip155:84532\).*https:\/\/sepolia\.base\.org.*LOCALNET_EVM_RPC_PORT.*BASE_SEPOLIA_RPC_URL is still read/);
    // The old names are aliases, not variables of their own.
    expect(table).not.toContain("| `BASE_SEPOLIA_RPC_URL` |");
  });
});
