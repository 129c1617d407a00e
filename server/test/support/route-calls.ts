// One inference call on any route, as a client reads it: the chat route, the Responses route and the prepaid route,
// plain or streamed. A fetch hands each request to its route handler in process (remembering the headers of the last
// paid request, for a repeat of the same payment), and `readAnswer` takes from the answer what a client would: the
// text, the receipt, the x402 receipt, the error, and what a verifier takes as the response.
import { POST as chatRoute } from "@/app/api/v1/chat/completions/route";
import { POST as inferenceRoute } from "@/app/api/v1/inference/route";
import { POST as responsesRoute } from "@/app/api/v1/responses/route";
import { signRequestHeaders, newNonce } from "../../agent/sign-request";
import type { Ed25519Keypair } from "../../keys/parse-secret-key";
import type { Receipt } from "../../receipts/receipt-types";
import { readStreamedAnswer, receiptOfEvent, sseData } from "../../upstream/read-sse";
import { parseReceiptText } from "../../verify";

export type CallRoute = "chat" | "responses" | "inference";

/** Where the paid stack's requests are addressed (its SERVICE_BASE_URL). */
export const SERVICE_ORIGIN = "http://signet.test";

export const ROUTE_PATHS: Record<CallRoute, string> = {
  chat: "/api/v1/chat/completions",
  responses: "/api/v1/responses",
  inference: "/api/v1/inference",
};

const HANDLERS: Record<CallRoute, (req: Request) => Promise<Response>> = {
  chat: (req) => chatRoute(req, {}),
  responses: (req) => responsesRoute(req, {}),
  inference: (req) => inferenceRoute(req, {}),
};

/** A fetch to the routes' handlers, in process; `lastPaid` is the last request that carried a payment header. */
export function routeFetch(): { fetch: typeof fetch; lastPaid(): Request | null } {
  let paid: Request | null = null;
  const fetchRoute = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const req = new Request(input, init);
    const path = new URL(req.url).pathname;
    const route = (Object.keys(ROUTE_PATHS) as CallRoute[]).find((r) => ROUTE_PATHS[r] === path);
    if (!route) throw new Error(`no route at ${path}`);
    if (req.headers.has("payment-signature") || req.headers.has("x-payment")) paid = req.clone();
    return HANDLERS[route](req);
  };
  return { fetch: fetchRoute as typeof fetch, lastPaid: () => paid?.clone() ?? null };
}

/** The request body of a paid call asking `content` on `route` (chat or Responses). */
export function paidBody(
  route: Exclude<CallRoute, "inference">,
  content: string,
  opts: { stream: boolean; network?: string; model?: string },
): Record<string, unknown> {
  const model = opts.model ?? "local/echo-1";
  const network = opts.network ? { network: opts.network } : {};
  if (route === "responses") return { model, input: content, stream: opts.stream, ...network };
  return { model, messages: [{ role: "user", content }], stream: opts.stream, ...network };
}

/** A prepaid call asking `content`, signed by `kp`, on the inference route or the Responses route. */
export function signedCall(
  kp: Ed25519Keypair,
  route: Exclude<CallRoute, "chat">,
  content: string,
  opts: { stream: boolean; model?: string },
): { request: Request; body: Record<string, unknown> } {
  const model = opts.model ?? "local/echo-1";
  const body =
    route === "responses"
      ? { model, input: content, stream: opts.stream, nonce: newNonce(), timestamp: Date.now() }
      : { model, messages: [{ role: "user", content }], stream: opts.stream, nonce: newNonce(), timestamp: Date.now() };
  const url = `${SERVICE_ORIGIN}${ROUTE_PATHS[route]}`;
  const text = JSON.stringify(body);
  return {
    request: new Request(url, { method: "POST", headers: signRequestHeaders(kp, "POST", url, text), body: text }),
    body,
  };
}

/** What a client read of one answer. */
export interface ReadAnswer {
  status: number;
  /** The answer's text (message content, or output_text); null when none came. */
  text: string | null;
  receipt: Receipt | null;
  /** The x402 signed receipt as the answer carried it (PAYMENT-RESPONSE, or the stream's receipt event), as JSON. */
  x402: string | null;
  /** The error the answer ended with (an error body, or a stream's error event). */
  error: { code?: string; message?: string; [key: string]: unknown } | null;
  /** What a verifier takes as the response: the body, or the text of a stream. */
  response: unknown;
  replayed: boolean;
}

/** Reads `res` as a client of `route` does. */
export async function readAnswer(res: Response, route: CallRoute, stream: boolean): Promise<ReadAnswer> {
  const replayed = res.headers.get("x-answer-replayed") === "true";
  const header = res.headers.get("x-service-receipt");
  const headerReceipt = header ? parseReceiptText(header) : null;
  const base = { status: res.status, replayed, x402: res.headers.get("payment-response") };
  const isStream = res.status === 200 && (res.headers.get("content-type") ?? "").startsWith("text/event-stream");
  if (!isStream || !stream) {
    const body = (await res.json()) as Record<string, unknown>;
    if (res.status !== 200)
      return { ...base, text: null, receipt: null, error: body.error as ReadAnswer["error"], response: body };
    const text =
      route === "responses"
        ? ((body.output as { content?: { text?: string }[] }[] | undefined)?.[0]?.content?.[0]?.text ?? "")
        : ((body.choices as { message?: { content?: string | null } }[])[0]?.message?.content ?? "");
    return {
      ...base,
      text,
      receipt: headerReceipt?.ok ? (headerReceipt.receipt as unknown as Receipt) : null,
      error: null,
      response: body,
    };
  }
  if (route !== "responses") {
    const answer = await readStreamedAnswer(res.body!);
    return {
      ...base,
      text: answer.text,
      receipt: answer.receipt,
      x402: answer.x402Receipt ? JSON.stringify(answer.x402Receipt) : null,
      error: answer.error,
      response: answer.text,
    };
  }
  let text = "";
  let carried: ReturnType<typeof receiptOfEvent> = null;
  let error: ReadAnswer["error"] = null;
  for await (const data of sseData(res.body!)) {
    const event = data as { type?: string; delta?: string; code?: string; message?: string };
    if (event.type === "response.output_text.delta") text += event.delta ?? "";
    if (event.type === "error") error = { code: event.code, message: event.message };
    carried = receiptOfEvent(data) ?? carried;
  }
  return {
    ...base,
    text,
    receipt: carried?.receipt ?? null,
    x402: carried?.x402Receipt ? JSON.stringify(carried.x402Receipt) : null,
    error,
    response: text,
  };
}
