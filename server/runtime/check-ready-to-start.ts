// What `npm start` checks before it serves, in the order it reports a refusal: the config production must state, no dev
// keys beside it, every role's key, and the facilitator built from them. `signet doctor --local` runs the same checks.
import "server-only";
import { assertReadyToServe, type Config } from "../env";
import { createFacilitator, type Facilitator } from "../facilitator/create-facilitator";
import { checkServiceKeys } from "./check-service-keys";
import { refuseDevKeysInProduction } from "./refuse-dev-keys";

/**
 * Runs every start-up check on `cfg`; throws a one-line ConfigError naming the variable at the first that fails.
 * Returns the facilitator it built: a check build, which announces nothing (the server announces its own).
 */
export async function checkReadyToStart(cfg: Config): Promise<Facilitator> {
  if (typeof cfg !== "object" || cfg === null || typeof cfg.isProduction !== "boolean")
    throw new TypeError("checkReadyToStart: a loaded config is required");
  // TRUSTED_PROXY_HOPS, METRICS_TOKEN, DATABASE_URL (or the embedded database's opt-in), SERVICE_OPERATOR_PUBKEYS.
  assertReadyToServe(cfg);
  // SIGNET_DATA_DIR must hold no dev key (unless SIGNET_DEV_KEYS_IN_PRODUCTION says this is a local rehearsal).
  refuseDevKeysInProduction(cfg);
  // Loads every role's key (SERVICE_OPERATOR_SECRET_KEY, VERIFIER_SECRET_KEY, LOG_SECRET_KEY with LOG_WITNESS_KEYS,
  // FACILITATOR_SECRET_KEY, and FACILITATOR_EVM_SECRET_KEY when a Base RPC is set) and refuses two roles sharing a key.
  checkServiceKeys(cfg);
  // Loads FACILITATOR_SECRET_KEY and checks SERVICE_DEPOSIT_ADDRESS against it (a mismatch fails start-up: payments
  // would go to an address the facilitator does not control), and that it is none of the operator's keys (the
  // receipt-signing key, the dashboard's sign-in keys).
  return createFacilitator(cfg);
}
