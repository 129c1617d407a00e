// The deployment's facts the settings' consequences depend on and no setting holds: production or not, which
// networks have an RPC, the facilitator's Solana address, and whether development generated its IP-hash salt.
import "server-only";
import { access } from "node:fs/promises";
import path from "node:path";
import type { Runtime } from "../context/runtime";
import type { DeploymentFacts } from "../settings/setting-consequences";
import type { SettingKey } from "../settings/setting-definitions";

/**
 * The file development generates the IP-hash salt into, in the data dir, when IP_HASH_SALT is unset: the name
 * server/http/ip-hash-salt.ts writes (server/test/dashboard/operator-settings.test.ts holds the two together).
 */
export const DEV_IP_HASH_SALT_FILE = "ip-hash-salt";

/** The facts of the deployment `runtime` serves. */
export async function readDeploymentFacts(
  runtime: Pick<Runtime, "config" | "gateway" | "chains">,
): Promise<DeploymentFacts> {
  const { config } = runtime;
  const generatedSecrets: SettingKey[] = [];
  // Production never falls back to a generated salt, so a file left in its data dir is not what the service uses.
  if (!config.isProduction && (await exists(path.join(config.dataDir, DEV_IP_HASH_SALT_FILE))))
    generatedSecrets.push("IP_HASH_SALT");
  return {
    production: config.isProduction,
    networks: config.networks,
    offeredNetworks: config.networks.ids.filter((id) => runtime.gateway.supports(id)),
    facilitatorAddress: runtime.chains.facilitator.address,
    generatedSecrets,
  };
}

async function exists(file: string): Promise<boolean> {
  return access(file).then(
    () => true,
    () => false,
  );
}
