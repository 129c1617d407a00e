// The operator key resource (GET /api/v1/operator-key), and the operator key as the public routes load it.
import "server-only";
import { ConfigError } from "../env";
import { AppError } from "../errors";
import type { Logger } from "../log";
import type { OperatorKeys, RetiredOperatorKey } from "../verify";
import type { Ed25519Keypair } from "./parse-secret-key";
import type { ServiceKeys } from "./service-keys";

interface KeyResource {
  pubkey: string;
  algorithm: "ed25519";
  encoding: "base58";
}

/** The operator's resource: its current key as before, and the keys it retired, each with its retirement (Unix ms). */
export interface OperatorKeyResource extends KeyResource {
  retired: RetiredOperatorKey[];
}

/** The operator keypair, or server_misconfigured (logged) when none can be loaded: never a 500 with a trace. */
export function usableOperatorKeypair(rt: { keys: ServiceKeys; log: Logger }): Ed25519Keypair {
  try {
    return rt.keys.operator();
  } catch (err) {
    if (err instanceof ConfigError) {
      rt.log.error({ event: "operator.key_missing", reason: err.message }, "operator key unavailable");
      throw new AppError("server_misconfigured", "the service has no usable operator key");
    }
    throw err;
  }
}

/** The operator's public keys (current and retired), or server_misconfigured (logged) when they cannot be loaded. */
export function usableOperatorKeys(rt: { keys: ServiceKeys; log: Logger }): OperatorKeys {
  usableOperatorKeypair(rt);
  return rt.keys.operatorKeys();
}

/** The public half of the receipt-signing key, and the keys it replaced with the time each was retired. */
export function operatorKeyResource(rt: { keys: ServiceKeys; log: Logger }): OperatorKeyResource {
  const { pubkey, retired } = usableOperatorKeys(rt);
  return {
    pubkey,
    algorithm: "ed25519",
    encoding: "base58",
    retired: retired.map((r) => ({ pubkey: r.pubkey, retired_at: r.retired_at })),
  };
}
