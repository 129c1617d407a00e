// A local OpenAI-compatible provider for tests that need the upstream to answer, fail, or take its time on cue: a real
// HTTP server on 127.0.0.1 that the upstream client reaches as it would reach OpenRouter.
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface ProviderRequest {
  /** The path asked for, under the base URL's host: `/api/v1/chat/completions` or `/api/v1/embeddings`. */
  path: string;
  /** The Authorization header as sent. */
  authorization?: string;
  /** The request body as sent. */
  raw: string;
  body: { model: string; max_tokens?: number; [key: string]: unknown };
}

export interface ProviderAnswer {
  status: number;
  json: unknown;
}

/** A streamed answer: each event's `data` in order (JSON values, or the string "[DONE]"), sent as `text/event-stream`. */
export interface StreamedProviderAnswer {
  status: 200;
  events: unknown[];
  /** A pause before each event after the first, as a model producing tokens takes (none when absent). */
  gapMs?: number;
}

export interface FakeProvider {
  /** The base URL for UPSTREAM_BASE_URL (…/api/v1). */
  url: string;
  close(): Promise<void>;
}

/** A completion as OpenRouter answers it: `content`, with its token usage and, if given, its own `cost` in USD. */
export function completionAnswer(
  model: string,
  content: string,
  usage: { prompt_tokens: number; completion_tokens: number; cost?: number },
): ProviderAnswer {
  return {
    status: 200,
    json: {
      id: "gen-1",
      model,
      choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }],
      usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
    },
  };
}

/** A completion that calls tools: no text, the calls as OpenAI sends them, finish reason `tool_calls`. */
export function toolCallAnswer(
  model: string,
  toolCalls: readonly unknown[],
  usage: { prompt_tokens: number; completion_tokens: number; cost?: number },
): ProviderAnswer {
  return {
    status: 200,
    json: {
      id: "gen-tools",
      model,
      choices: [
        { index: 0, message: { role: "assistant", content: null, tool_calls: toolCalls }, finish_reason: "tool_calls" },
      ],
      usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
    },
  };
}

/**
 * A plain completion answer streamed as OpenAI streams it: the role, the text word by word, each tool call as a first
 * fragment (index, id, type, name, empty arguments) and its arguments in pieces of `argumentPiece` characters, the
 * finish chunk, the usage chunk (choices []), then [DONE].
 */
export function streamOf(answer: ProviderAnswer, argumentPiece = 5): StreamedProviderAnswer {
  const body = answer.json as {
    id: string;
    model: string;
    choices: {
      message: {
        content: string | null;
        tool_calls?: { id: string; type: string; function: { name: string; arguments: string } }[];
      };
      finish_reason: string;
    }[];
    usage: unknown;
  };
  const chunk = (delta: unknown, finish: string | null = null) => ({
    id: body.id,
    object: "chat.completion.chunk",
    created: 1,
    model: body.model,
    choices: [{ index: 0, delta, finish_reason: finish }],
  });
  const { message, finish_reason } = body.choices[0]!;
  const events: unknown[] = [chunk({ role: "assistant", content: "" })];
  for (const word of message.content?.match(/\s*\S+\s*/g) ?? []) events.push(chunk({ content: word }));
  for (const [index, call] of (message.tool_calls ?? []).entries()) {
    events.push(
      chunk({
        tool_calls: [{ index, id: call.id, type: call.type, function: { name: call.function.name, arguments: "" } }],
      }),
    );
    for (let at = 0; at < call.function.arguments.length; at += argumentPiece) {
      events.push(
        chunk({
          tool_calls: [{ index, function: { arguments: call.function.arguments.slice(at, at + argumentPiece) } }],
        }),
      );
    }
  }
  events.push(chunk({}, finish_reason));
  events.push({
    id: body.id,
    object: "chat.completion.chunk",
    created: 1,
    model: body.model,
    choices: [],
    usage: body.usage,
  });
  events.push("[DONE]");
  return { status: 200, events };
}

/**
 * An embeddings answer as OpenAI and OpenRouter send it: one `embedding` item per vector, in order, each as JSON numbers
 * or (`base64`) as base64 of little-endian float32, with the input token count and, if given, its own `cost` in USD.
 */
export function embeddingsAnswer(
  model: string,
  vectors: readonly (readonly number[])[],
  usage: { prompt_tokens: number; cost?: number },
  encoding: "float" | "base64" = "float",
): ProviderAnswer {
  const base64 = (vector: readonly number[]) => {
    const bytes = new Uint8Array(vector.length * 4);
    const view = new DataView(bytes.buffer);
    vector.forEach((value, i) => view.setFloat32(i * 4, value, true));
    return Buffer.from(bytes).toString("base64");
  };
  return {
    status: 200,
    json: {
      object: "list",
      data: vectors.map((vector, index) => ({
        object: "embedding",
        index,
        embedding: encoding === "base64" ? base64(vector) : vector,
      })),
      model,
      usage: { ...usage, total_tokens: usage.prompt_tokens },
    },
  };
}

/** A provider failure: 500 with an OpenAI-shaped error body. */
export const failureAnswer: ProviderAnswer = { status: 500, json: { error: { message: "boom" } } };

/** Starts the provider; `answer` decides each response (it may wait first), plain or streamed. */
export async function startFakeProvider(
  answer: (
    req: ProviderRequest,
  ) => ProviderAnswer | StreamedProviderAnswer | Promise<ProviderAnswer | StreamedProviderAnswer>,
): Promise<FakeProvider> {
  const server = http.createServer((req, res) => {
    let raw = "";
    req.on("data", (c: Buffer) => (raw += c.toString()));
    req.on("end", () => {
      // The service's health check lists the provider's models (GET /models): a body-less request is that probe.
      if (req.method === "GET")
        return void res
          .writeHead(200, { "content-type": "application/json" })
          .end(JSON.stringify({ object: "list", data: [] }));
      void (async () => {
        const answered = await answer({
          path: req.url ?? "",
          ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}),
          raw,
          body: JSON.parse(raw) as ProviderRequest["body"],
        });
        if ("events" in answered) {
          res.writeHead(200, { "content-type": "text/event-stream" });
          for (const [i, data] of answered.events.entries()) {
            if (i > 0 && answered.gapMs) await new Promise((r) => setTimeout(r, answered.gapMs));
            if (res.destroyed) return;
            res.write(`data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`);
          }
          return void res.end();
        }
        res.writeHead(answered.status, { "content-type": "application/json" }).end(JSON.stringify(answered.json));
      })();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
