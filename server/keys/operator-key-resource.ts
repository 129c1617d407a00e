// The operator key resource (GET /api/v1/operator-key), and the operator key as the public routes load it.
import "server-only";
import { ConfigError } from "../env";
import { AppError } from "../errors";
import { log } from "../log";
import type { Ed25519Keypair } from "./parse-secret-key";
import type { ServiceKeys } from "./service-keys";

export interface KeyResource {
  pubkey: string;
  algorithm: "ed25519";
  encoding: "base58";
}

/** The operator keypair, or server_misconfigured (logged) when none can be loaded: never a 500 with a trace. */
export function usableOperatorKeypair(keys: ServiceKeys): Ed25519Keypair {
  try {
    return keys.operator();
  } catch (err) {
    if (err instanceof ConfigError) {
      log.error({ event: "operator.key_missing", reason: err.message }, "operator key unavailable");
      throw new AppError("server_misconfigured", "the service has no usable operator key");
    }
    throw err;
  }
}

/** The public half of the receipt-signing key. */
export function operatorKeyResource(keys: ServiceKeys): KeyResource {
  return { pubkey: usableOperatorKeypair(keys).publicKeyBase58, algorithm: "ed25519", encoding: "base58" };
}
