// The operator key resource (GET /api/v1/operator-key).
import "server-only";
import { ConfigError } from "../env";
import { AppError } from "../errors";
import { log } from "../log";
import { operatorKeypair } from "./service-keys";

export interface KeyResource {
  pubkey: string;
  algorithm: "ed25519";
  encoding: "base58";
}

/** The public half of the receipt-signing key. */
export function operatorKeyResource(): KeyResource {
  try {
    return { pubkey: operatorKeypair().publicKeyBase58, algorithm: "ed25519", encoding: "base58" };
  } catch (err) {
    if (err instanceof ConfigError) {
      log.error({ event: "operator.key_missing", reason: err.message }, "operator key unavailable");
      throw new AppError("server_misconfigured", "the service has no usable operator key");
    }
    throw err;
  }
}
