// The upstream the compat suite's tool round trips run against: the fake provider (a real local HTTP server) playing a
// model that, offered a tool, calls `get_weather` for Oslo, and answers in text once the tool's result is in the
// conversation; plain or streamed, as the request asks. Without tools it echoes the last user message.
import {
  completionAnswer,
  startFakeProvider,
  streamOf,
  toolCallAnswer,
  type FakeProvider,
  type ProviderRequest,
} from "../support/fake-provider";

export const PROVIDER_MODEL = "openai/gpt-4o-mini";
export const WEATHER_CALL = {
  id: "call_oslo",
  type: "function" as const,
  function: { name: "get_weather", arguments: '{"city":"Oslo"}' },
};
/** The model's answer once the tool has answered. */
export const WEATHER_ANSWER = "It is 12 °C in Oslo.";
/** The JSON Schema of the tool's parameters. */
export const WEATHER_PARAMETERS: {
  type: "object";
  properties: Record<string, { type: "string" }>;
  required: string[];
  additionalProperties: false;
} = {
  type: "object",
  properties: { city: { type: "string" } },
  required: ["city"],
  additionalProperties: false,
};

type Message = { role: string; content?: unknown };

export interface WeatherModel {
  provider: FakeProvider;
  /** Every request body the provider got, in order. */
  received: ProviderRequest["body"][];
}

export async function startWeatherModel(): Promise<WeatherModel> {
  const received: ProviderRequest["body"][] = [];
  const provider = await startFakeProvider(({ body }) => {
    received.push(body);
    const messages = body.messages as Message[];
    const last = messages.at(-1);
    const answer =
      body.tools && last?.role === "user"
        ? toolCallAnswer(body.model, [WEATHER_CALL], { prompt_tokens: 40, completion_tokens: 12, cost: 0.000011 })
        : last?.role === "tool"
          ? completionAnswer(body.model, WEATHER_ANSWER, { prompt_tokens: 60, completion_tokens: 9, cost: 0.000013 })
          : completionAnswer(
              body.model,
              `echo: ${typeof last?.content === "string" ? last.content : JSON.stringify(last?.content)}`,
              { prompt_tokens: 10, completion_tokens: 4 },
            );
    return body.stream ? streamOf(answer) : answer;
  });
  return { provider, received };
}

/** The env that points the service at the model (with the built-in model still served). */
export const weatherEnv = (model: WeatherModel): Record<string, string> => ({
  UPSTREAM_API_KEY: "sk-test",
  UPSTREAM_BASE_URL: model.provider.url,
  UPSTREAM_PROVIDER_NAME: "openrouter",
  SERVICE_TESTNET_PROVIDER_MODELS: "true",
  LOCAL_MODEL_STREAM_DELAY_MS: "0",
});
