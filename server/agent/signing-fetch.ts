// A `fetch` that spends prepaid credit instead of paying per call: each POST's JSON body gets the replay fields the
// prepaid admission checks (a fresh `nonce` and the sender's `timestamp`, unless the body has them) and is signed with
// the agent's key over the exact bytes sent, the method and the URL's origin and path. Any client that takes a `fetch`
// then spends credit unchanged: `new OpenAI({ baseURL: "<origin>/api/v1", apiKey: "unused", fetch: signingFetch(kp) })`
// calls /chat/completions, /responses and /embeddings from credit. Other methods (the free GET routes) pass through.
import "server-only";
import { systemClock } from "../clock";
import { newNonce, signRequestHeaders } from "./sign-request";
import type { Ed25519Keypair } from "../keys/parse-secret-key";

export interface SigningFetchOptions {
  /** The fetch that sends the signed request (the global one by default). */
  fetch?: typeof fetch;
  /** The sender's clock, epoch ms (the system's by default): the service refuses a timestamp far from its own. */
  now?: () => number;
  /**
   * The service's public origin (its SERVICE_BASE_URL), when it is reached at another address (a tunnel, a local
   * port): the signature names the origin the service knows itself by. Default: the request URL's own.
   */
  origin?: string;
}

/** A fetch whose POSTs are signed prepaid requests of `keypair` (see the module comment). */
export function signingFetch(keypair: Ed25519Keypair, options: SigningFetchOptions = {}): typeof fetch {
  const send = options.fetch ?? fetch;
  return async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    if (request.method !== "POST") return send(request);
    const signed = signPrepaidRequest(keypair, request.url, await request.text(), options);
    const headers = new Headers(request.headers);
    for (const [name, value] of Object.entries(signed.headers)) headers.set(name, value);
    return send(request.url, { method: "POST", headers, body: signed.body, signal: request.signal });
  };
}

/**
 * A POST of `body` (a JSON object's text) to `url` as a signed prepaid request: the body with its replay fields, and the
 * headers that sign it. Throws TypeError for a body that is not a JSON object.
 */
export function signPrepaidRequest(
  keypair: Ed25519Keypair,
  url: string,
  body: string,
  options: Pick<SigningFetchOptions, "now" | "origin"> = {},
): { body: string; headers: Record<string, string> } {
  const signedBody = JSON.stringify(withReplayFields(body, options.now ?? (() => systemClock.now())));
  const target = new URL(url);
  const signedUrl = options.origin ? `${new URL(options.origin).origin}${target.pathname}` : url;
  return { body: signedBody, headers: signRequestHeaders(keypair, "POST", signedUrl, signedBody) };
}

/** The body as a JSON object with a nonce and a timestamp; a body that is no JSON object cannot be signed. */
function withReplayFields(text: string, now: () => number): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new TypeError("a signed prepaid request's body must be a JSON object");
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed))
    throw new TypeError("a signed prepaid request's body must be a JSON object");
  const fields = parsed as Record<string, unknown>;
  return { ...fields, nonce: fields.nonce ?? newNonce(), timestamp: fields.timestamp ?? now() };
}
