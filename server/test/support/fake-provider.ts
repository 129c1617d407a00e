// A local OpenAI-compatible provider for tests that need the upstream to answer, fail, or take its time on cue: a real
// HTTP server on 127.0.0.1 that the upstream client reaches as it would reach OpenRouter.
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface ProviderRequest {
  /** The request body as sent. */
  raw: string;
  body: { model: string; max_tokens?: number; [key: string]: unknown };
}

export interface ProviderAnswer {
  status: number;
  json: unknown;
}

export interface FakeProvider {
  /** The base URL for UPSTREAM_BASE_URL (…/api/v1). */
  url: string;
  close(): Promise<void>;
}

/** A completion as OpenRouter answers it: `content`, with its token usage and, if given, its own `cost` in USD. */
export function completionAnswer(model: string, content: string, usage: { prompt_tokens: number; completion_tokens: number; cost?: number }): ProviderAnswer {
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

/** A provider failure: 500 with an OpenAI-shaped error body. */
export const failureAnswer: ProviderAnswer = { status: 500, json: { error: { message: "boom" } } };

/** Starts the provider; `answer` decides each response (it may wait first). */
export async function startFakeProvider(answer: (req: ProviderRequest) => ProviderAnswer | Promise<ProviderAnswer>): Promise<FakeProvider> {
  const server = http.createServer((req, res) => {
    let raw = "";
    req.on("data", (c: Buffer) => (raw += c.toString()));
    req.on("end", () => {
      // The service's health check lists the provider's models (GET /models): a body-less request is that probe.
      if (req.method === "GET") return void res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ object: "list", data: [] }));
      void (async () => {
        const { status, json } = await answer({ raw, body: JSON.parse(raw) as ProviderRequest["body"] });
        res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(json));
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
