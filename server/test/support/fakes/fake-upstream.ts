// A model provider held in memory: it offers the built-in model's catalogue row and answers each call as the test
// scripted it: a plain answer, a stream of pieces, or a failure before the first byte. A call nobody scripted answers
// with the default text; embeddings are never asked of it (they throw).
import {
  findModel,
  LOCAL_MODEL_ID,
  UpstreamError,
  type CatalogModel,
  type Completion,
  type CompletionRequest,
  type StreamEvent,
  type Upstream,
} from "../../../upstream";

/** What the next call does. */
export type UpstreamScript = { answer: string } | { stream: string[] } | { fail: UpstreamError };

export interface FakeUpstream extends Upstream {
  /** What the next calls do, in order; after them, each call answers DEFAULT_ANSWER. */
  script(...steps: UpstreamScript[]): void;
  /** The requests the service sent, in order. */
  requests: CompletionRequest[];
}

export const DEFAULT_ANSWER = "the fake model's answer";

/** The cost of every answer, in USDC units: well under any flat price a test sets. */
export const ANSWER_COST_UNITS = 1_000n;

/** A provider whose one model is the built-in one. */
export function createFakeUpstream(): FakeUpstream {
  const model = findModel(LOCAL_MODEL_ID)!;
  const steps: UpstreamScript[] = [];
  const requests: CompletionRequest[] = [];
  const completion = (content: string): Completion => ({
    id: `fake-${requests.length}`,
    created: 1_700_000_000,
    model: model.id,
    content,
    finishReason: "stop",
    usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 },
    costUnits: ANSWER_COST_UNITS,
    upstream: "fake",
    latencyMs: 1,
  });
  const next = (req: CompletionRequest): UpstreamScript => {
    requests.push(req);
    return steps.shift() ?? { answer: DEFAULT_ANSWER };
  };
  const noEmbeddings = (): never => {
    throw new Error("fake upstream: embeddings were not expected");
  };
  return {
    requests,
    script: (...list) => void steps.push(...list),
    models: (): CatalogModel[] => [model],
    offered: (id) => (id === model.id ? model : null),
    async complete(req) {
      const step = next(req);
      if ("fail" in step) throw step.fail;
      return completion("answer" in step ? step.answer : step.stream.join(""));
    },
    async *stream(req): AsyncGenerator<StreamEvent> {
      const step = next(req);
      if ("fail" in step) throw step.fail;
      const pieces = "stream" in step ? step.stream : [step.answer];
      for (const content of pieces) yield { type: "delta", content };
      yield { type: "done", completion: completion(pieces.join("")) };
    },
    interrupted: () => ({ model: model.id, upstream: "fake", costUnits: ANSWER_COST_UNITS }),
    embeddingModels: () => [],
    offeredEmbeddingModel: () => null,
    embed: noEmbeddings,
  } as FakeUpstream;
}
