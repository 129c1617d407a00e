// The hosted verifier: runs the pure library on a VerifyRequest and signs the verdict with the verifier key.
// The verdict binds the receipt's own signature (`receipt_signature`) so it cannot be replayed for another receipt.
import "server-only";
import { ConfigError, type Config } from "../env";
import { AppError } from "../errors";
import type { Logger } from "../log";
import type { ServiceKeys } from "../keys/service-keys";
import type { Runtime } from "../context/runtime";
import { signDocument } from "../receipts/sign-receipt";
import { serverVerifier } from "../keys/server-verifier";
import { promptHashCandidates, RESPONSE_FORMS, responseHash, VerifierFetchError, VerifyInputError } from "../verify";
import { createBackoffFetch } from "../facilitator/rpc-backoff";
import { createGuardedFetch } from "./guarded-fetch";
import type { VerifyRequest, VerifyResponse } from "../schemas/verify-request-schema";

/** The whole hosted verification is bounded: a verdict comes back within about 10 s or the request fails. */
const VERIFY_REQUEST_TIMEOUT_MS = 10_000;

/** The verifier's public key resource (GET /api/verify/operator-key). */
export function verifierKeyResource(rt: { keys: ServiceKeys; log: Logger }): {
  pubkey: string;
  algorithm: "ed25519";
  encoding: "base58";
} {
  return { pubkey: loadVerifierKey(rt).publicKeyBase58, algorithm: "ed25519", encoding: "base58" };
}

/** Verifies and returns the signed VerifyResponse. Throws AppError upstream_error / server_misconfigured. */
export async function issueVerdict(
  runtime: Pick<Runtime, "config" | "keys" | "metrics" | "state" | "clock" | "log">,
  request: VerifyRequest,
): Promise<VerifyResponse> {
  // A prompt or response in no form the library reads is the caller's mistake, not a verdict to sign.
  if (promptHashCandidates(request.prompt).length === 0)
    throw new AppError(
      "invalid_request",
      "prompt: expected chat messages, a request body (chat, Responses or embeddings), or text",
      {
        detail: "prompt",
      },
    );
  if (responseHash(request.response) === null)
    throw new AppError("invalid_request", `response: expected ${RESPONSE_FORMS}`, { detail: "response" });
  const cfg = runtime.config;
  const verifierKey = loadVerifierKey(runtime);
  // With neither a pin nor an endpoint, the default endpoint is this service itself: use its keys in-process, the
  // current one and the retired ones, as GET /api/v1/operator-key publishes them.
  const keySource = request.operatorKey
    ? { operatorKey: request.operatorKey }
    : request.endpoint
      ? { endpoint: request.endpoint }
      : { operatorKeys: runtime.keys.operatorKeys() };
  const guardedFetch = createGuardedFetch({ allowPrivateNetworks: cfg.verifierAllowPrivateNetworks });
  // Without a caller's `rpc`, use this service's own RPC for the receipt's network (the verifier lives in the same
  // app), else the library's public default.
  const network = (request.receipt as { payment?: { network?: unknown } }).payment?.network;
  const rpc = request.rpc ?? ownRpcFor(cfg, network);
  // This service's own RPC shares its rate limit with the facilitator: wait at the same gate, and close it on a 429.
  // The library retries on its own, so one attempt per call here.
  const ownRpcFetch =
    rpc && !request.rpc
      ? createBackoffFetch(
          rpc,
          { network: String(network), maxAttempts: 1, gates: runtime.state.rpcGates, metrics: runtime.metrics },
          guardedFetch,
        )
      : null;

  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), VERIFY_REQUEST_TIMEOUT_MS);
  let result;
  try {
    result = await Promise.race([
      serverVerifier.verifyReceipt({
        receipt: request.receipt,
        prompt: request.prompt,
        response: request.response,
        ...keySource,
        ...(rpc ? { rpc } : {}),
        // The networks this service takes payment on: the ones its receipts can name.
        networks: cfg.networks,
        fetch: (url, init) =>
          (ownRpcFetch && url === rpc ? ownRpcFetch : guardedFetch)(url, {
            ...init,
            signal: anySignal(init?.signal, deadline.signal),
          }),
      }),
      new Promise<never>((_, reject) =>
        deadline.signal.addEventListener("abort", () =>
          reject(new AppError("upstream_error", `verification did not finish within ${VERIFY_REQUEST_TIMEOUT_MS} ms`)),
        ),
      ),
    ]);
  } catch (err) {
    if (err instanceof VerifierFetchError) {
      // SECURITY: the service's own RPC URL often carries a provider API key; only a caller-chosen `rpc` is echoed.
      const message = rpc && !request.rpc ? err.message.split(rpc).join("the service's chain RPC") : err.message;
      throw new AppError("upstream_error", message, { reason: err.reason });
    }
    if (err instanceof VerifyInputError) throw new AppError("invalid_request", err.message, { detail: "receipt" });
    throw err;
  } finally {
    clearTimeout(timer);
  }

  const receipt = request.receipt as Record<string, unknown>;
  const receiptSignature =
    receipt.v === 1 || typeof receipt.service_signature !== "string" ? null : receipt.service_signature;
  const unsigned = {
    v: 1 as const,
    ok: result.ok,
    checks: result.checks,
    receipt_signature: receiptSignature,
    verified_at: runtime.clock.now(),
    verifier_pubkey: verifierKey.publicKeyBase58,
    operator_pubkey: result.operatorKey,
    // Signed with the rest, so a relying party knows which chain was asked and whether the caller chose the RPC
    // that answered (a caller's own RPC can say anything). A receipt with no payment asks no chain: null.
    network: typeof network === "string" ? network : null,
    rpc: request.rpc ? ("caller" as const) : ("service" as const),
  };
  return signDocument(unsigned, "verifier_signature", verifierKey);
}

/** This service's own RPC for the network a receipt names (as the verifier reads it), when one is configured. */
function ownRpcFor(cfg: Pick<Config, "networks" | "rpcUrls">, network: unknown): string | undefined {
  if (typeof network !== "string") return undefined;
  const row = cfg.networks.ofReceiptNetwork(network);
  return row ? cfg.rpcUrls[row.id] : undefined;
}

function loadVerifierKey(rt: { keys: ServiceKeys; log: Logger }) {
  try {
    return rt.keys.verifier();
  } catch (err) {
    // The message names the missing variable for the operator's logs; clients see only the stable code.
    if (err instanceof ConfigError) {
      rt.log.error({ event: "verifier.key_missing", reason: err.message }, "verifier key unavailable");
      throw new AppError("server_misconfigured", "the verifier has no usable signing key");
    }
    throw err;
  }
}

function anySignal(a: AbortSignal | null | undefined, b: AbortSignal): AbortSignal {
  return a ? AbortSignal.any([a, b]) : b;
}
