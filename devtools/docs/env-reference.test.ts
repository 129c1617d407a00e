import { describe, expect, it } from "vitest";
import { envSchema, rpcUrlVariable } from "../../server/env";
import { SHIPPED_NETWORKS } from "../../server/verify";
import { ENV_NOTES } from "./env-notes";
import { fieldComments, serviceEnvTable } from "./env-reference";

describe("the configuration reference", () => {
  const comments = fieldComments("server/env.ts");
  const fields = Object.keys(envSchema.shape);

  it("describes every variable of the env schema, from its comment or else from a note", () => {
    const undescribed = fields.filter((name) => !comments.has(name) && !ENV_NOTES[name]);
    expect(undescribed).toEqual([]);
    const table = serviceEnvTable();
    for (const name of fields) expect(table).toContain(`| \`${name}\` |`);
  });

  it("keeps a note only for a field that exists and has no comment of its own", () => {
    const stale = Object.keys(ENV_NOTES).filter((name) => !fields.includes(name) || comments.has(name));
    expect(stale).toEqual([]);
  });

  it("reads the comments off the fields, and the type and default off the schema", () => {
    expect(comments.get("SIGNET_DATA_DIR")).toMatch(/dev keys/);
    expect(serviceEnvTable()).toMatch(/\| `PORT` \| integer 1–65535 \| `3000` \|/);
  });

  it("lists each network's RPC variable from its row, with its old name while it is still read", () => {
    const table = serviceEnvTable();
    for (const id of SHIPPED_NETWORKS.ids) expect(table).toContain(`| \`${rpcUrlVariable(id)}\` | URL | — |`);
    expect(table).toMatch(/\| `RPC_URL_BASE_SEPOLIA` \| URL \| — \| The Base Sepolia RPC \(eip155:84532\).*https:\/\/sepolia\.base\.org.*LOCALNET_EVM_RPC_PORT.*BASE_SEPOLIA_RPC_URL is still read/);
    // The old names are aliases, not variables of their own.
    expect(table).not.toContain("| `BASE_SEPOLIA_RPC_URL` |");
  });

  it("rejects malformed input: a source file that does not exist", () => {
    expect(() => fieldComments("server/no-such-env.ts")).toThrow();
  });
});
