// The start-up check of the service's keys: loads the key of every role the config uses, as the service will, and
// refuses two roles that share one, or a role holding one of the operator's retired keys. `npm start` and
// `npm run dev` run it before they serve; routes never do.
import "server-only";
import bs58 from "bs58";
import type { Config } from "../env";
import { ed25519RoleKey, evmRoleKey, refuseSharedKeys, type RoleKey } from "../keys/refuse-shared-keys";
import { refuseRetiredOperatorKey } from "../keys/retired-operator-keys";
import { createServiceKeys, type ServiceKeys } from "../keys/service-keys";
import { loadFeePayerKey } from "../facilitator/create-facilitator";
import { loadRelayerKey } from "../facilitator/create-evm-facilitator";

/**
 * Loads every service role's key that `cfg` names (in development, generating each role's own dev key into the data
 * dir) and throws a ConfigError naming the variable when one is missing or unreadable, or naming both variables when
 * two roles share a key. The EVM relayer is compared only when a Base network has an RPC: otherwise the service never
 * reads FACILITATOR_EVM_SECRET_KEY. `keys`: the lazy loaders to fill (default: a fresh set for `cfg`).
 */
export function checkServiceKeys(cfg: Config, keys: ServiceKeys = createServiceKeys(cfg)): void {
  // The order production reports a missing key in: the receipt-signing key first, the fee payers last.
  const roles: RoleKey[] = [
    ed25519RoleKey("SERVICE_OPERATOR_SECRET_KEY", keys.operator()),
    ed25519RoleKey("VERIFIER_SECRET_KEY", keys.verifier()),
    // LOG_SECRET_KEY (and LOG_WITNESS_KEYS): the receipt log signs checkpoints with it from the first call on.
    ed25519RoleKey("LOG_SECRET_KEY", keys.log().keypair),
    ed25519RoleKey("FACILITATOR_SECRET_KEY", loadFeePayerKey(cfg)),
  ];
  const previousLogKey = keys.log().previous;
  if (previousLogKey) roles.push(ed25519RoleKey("LOG_PREVIOUS_SECRET_KEY", previousLogKey.keypair));
  const relayer = loadRelayerKey(cfg);
  if (relayer !== null) roles.push(evmRoleKey("FACILITATOR_EVM_SECRET_KEY", relayer));
  refuseSharedKeys(roles);
  // The operator's retired keys (SERVICE_OPERATOR_RETIRED_KEYS) sign nothing again, in any role.
  const { retired } = keys.operatorKeys();
  for (const role of roles)
    if (role.publicKey !== null) refuseRetiredOperatorKey(retired, role.variable, bs58.encode(role.publicKey));
}
