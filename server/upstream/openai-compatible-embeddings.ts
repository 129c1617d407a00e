// The embeddings call of an OpenAI-compatible provider (`POST {base}/embeddings`, OpenRouter by default): time-bounded
// and abortable like the chat call, and it never surfaces the provider's raw body or our API key in an error. The
// answer is read with the verifier's own reader (embeddingVectorsOf), so what the service hashes is what a verifier reads.
import "server-only";
import { embeddingVectorsOf } from "../verify";
import { postProviderJson, UpstreamError, type ProviderConfig } from "./openai-compatible-client";

export interface ProviderEmbeddingRequest {
  model: string;
  /** `input` as the caller sent it: a text, texts, token ids, or lists of token ids. */
  input: string | readonly string[] | readonly number[] | readonly (readonly number[])[];
  dimensions?: number;
  encoding_format?: "float" | "base64";
  user?: string;
}

export interface ProviderEmbeddings {
  /** One vector per input, in input order (by the answer's `index`), as float32 values. */
  vectors: Float32Array[];
  /** The input tokens the provider counted, and its own USD cost when it reports one (OpenRouter's `usage.cost`). */
  usage: { prompt_tokens: number; total_tokens: number; cost?: unknown };
}

/**
 * POSTs one embeddings request and checks the answer holds `inputCount` vectors of one length (`dimensions` when the
 * request set it): a malformed answer is UpstreamError `bad_response`, a failed one `http_error`, as for a completion.
 */
export async function requestEmbeddings(
  cfg: ProviderConfig,
  req: ProviderEmbeddingRequest,
  inputCount: number,
  signal?: AbortSignal,
): Promise<ProviderEmbeddings> {
  const body = await postProviderJson(cfg, "/embeddings", { ...req }, signal);
  return parseEmbeddings(body, inputCount, req.dimensions);
}

/** The provider's answer, checked: every input's vector, all of one length, and its input token count. */
function parseEmbeddings(body: unknown, inputCount: number, dimensions: number | undefined): ProviderEmbeddings {
  if (typeof body !== "object" || body === null || Array.isArray(body))
    throw new UpstreamError("bad_response", "provider answer is not an object");
  const vectors = embeddingVectorsOf(body);
  if (vectors === null)
    throw new UpstreamError(
      "bad_response",
      "provider answer lacks data[].embedding (finite float32 values, or their base64) with indexes 0 to n-1",
    );
  if (vectors.length !== inputCount)
    throw new UpstreamError("bad_response", `provider answered ${vectors.length} embeddings for ${inputCount} inputs`);
  const length = dimensions ?? vectors[0]!.length;
  if (vectors.some((v) => v.length !== length))
    throw new UpstreamError("bad_response", `provider answered vectors that are not all ${length} long`);
  const usage = (body as { usage?: { prompt_tokens?: unknown; cost?: unknown } }).usage;
  const prompt = usage?.prompt_tokens;
  if (typeof prompt !== "number" || !Number.isSafeInteger(prompt) || prompt < 0)
    throw new UpstreamError("bad_response", "provider answer lacks usage.prompt_tokens");
  // An embedding has no output: its total is its input, whatever total the provider wrote.
  return { vectors, usage: { prompt_tokens: prompt, total_tokens: prompt, cost: usage?.cost } };
}
