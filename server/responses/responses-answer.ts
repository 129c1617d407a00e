// A served call as OpenAI's Responses API answers it. The pipeline serves the call as a chat completion (its stored
// answer, its receipt and its replay are chat's); this maps that answer onto the Responses shape at the edge:
// - a plain answer: the `response` object (`resp_<inference id>`: one assistant message with one `output_text` part,
//   then a `function_call` item per function call the model made; a message only when there is text or no call);
// - a stream: the Responses events in OpenAI's order, each with its `sequence_number`, the text as
//   `response.output_text.delta` events (a message item from the first text on; none when the model only called),
//   each function call as its own item after it (`response.function_call_arguments.delta` events, then `.done`), and
//   the receipt on the last event's `response` as the extra field
//   `service_receipt` (the chat stream's receipt chunk's body, unchanged). Clients that validate events (the AI SDK)
//   strip an unknown field and accept the event; a reader of the raw stream finds the receipt there.
// The receipt's response hash covers the output text, which is the chat answer's text: both shapes hash the same.
import "server-only";
import { SSE_HEADERS } from "../streaming/sse-inference";
import type { ServedCall } from "../pipeline/call-types";
import type { ResponsesRequest } from "../schemas/responses-request-schema";

/** The chat answer's fields this mapping reads (completion-body.ts, and the stream's chunks). */
interface ChatAnswer {
  id: string;
  created: number;
  model: string;
  choices: {
    message?: { content?: string | null; tool_calls?: ChatToolCall[] | null };
    finish_reason?: string | null;
  }[];
  usage?: ChatUsage | null;
}

interface ChatToolCall {
  id: string;
  function: { name: string; arguments: string };
}

/** A fragment of a tool call in a chat stream's delta: the first names the call, the rest carry its arguments. */
interface ChatToolCallDelta {
  index: number;
  id?: string;
  function?: { name?: string; arguments?: string };
}

interface ChatUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

/** The request's echoed settings: what a Responses object repeats of the request that made it. */
function echoed(request: ResponsesRequest) {
  return {
    instructions: request.instructions ?? null,
    max_output_tokens: request.max_output_tokens ?? null,
    metadata: request.metadata ?? {},
    parallel_tool_calls: request.parallel_tool_calls ?? true,
    previous_response_id: null,
    reasoning: { effort: null, summary: null },
    service_tier: "default",
    store: false,
    temperature: request.temperature ?? 1,
    text: { format: { type: "text" } },
    tool_choice: request.tool_choice ?? "auto",
    tools: request.tools ?? [],
    top_p: request.top_p ?? 1,
    truncation: "disabled",
    user: request.user ?? null,
    background: false,
    error: null,
  };
}

/** The inference id a chat answer's id (`chatcmpl-<id>`) carries. */
function inferenceIdOf(chatId: string): string {
  return chatId.startsWith("chatcmpl-") ? chatId.slice("chatcmpl-".length) : chatId;
}

function responsesUsage(usage: ChatUsage | null | undefined) {
  if (!usage) return null;
  return {
    input_tokens: usage.prompt_tokens,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: usage.completion_tokens,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: usage.total_tokens,
  };
}

/** A cut answer (`length`: the output cap was reached) is `incomplete`, as OpenAI reports it; any other is `completed`. */
function statusOf(finishReason: string | null | undefined): {
  status: "completed" | "incomplete";
  incomplete_details: { reason: "max_output_tokens" } | null;
} {
  return finishReason === "length"
    ? { status: "incomplete", incomplete_details: { reason: "max_output_tokens" } }
    : { status: "completed", incomplete_details: null };
}

const messageId = (inferenceId: string) => `msg_${inferenceId}`;
const outputPart = (text: string) => ({ type: "output_text", text, annotations: [], logprobs: [] });
const messageItem = (inferenceId: string, status: string, content: unknown[]) => ({
  id: messageId(inferenceId),
  type: "message",
  status,
  role: "assistant",
  content,
});

/** The Responses object of a chat answer served for `request`. */
export function responsesObject(request: ResponsesRequest, answer: ChatAnswer): Record<string, unknown> {
  const inferenceId = inferenceIdOf(answer.id);
  const choice = answer.choices[0];
  const text = choice?.message?.content ?? "";
  const calls = choice?.message?.tool_calls ?? [];
  const { status, incomplete_details } = statusOf(choice?.finish_reason);
  // The model's function calls follow its text, as OpenAI lists them; an answer that only calls has no message item.
  const output = [
    ...(text !== "" || calls.length === 0 ? [messageItem(inferenceId, status, [outputPart(text)])] : []),
    ...calls.map((call, i) => ({
      id: `fc_${inferenceId}_${i}`,
      type: "function_call",
      status: "completed",
      call_id: call.id,
      name: call.function.name,
      arguments: call.function.arguments,
    })),
  ];
  return {
    id: `resp_${inferenceId}`,
    object: "response",
    created_at: answer.created,
    status,
    incomplete_details,
    model: answer.model,
    output,
    usage: responsesUsage(answer.usage),
    ...echoed(request),
  };
}

/** A served call's answer in the Responses shape: the object for a plain answer, the Responses events for a stream. */
export function asResponsesAnswer(request: ResponsesRequest, served: ServedCall): ServedCall {
  if (served.stream)
    return { stream: responsesEventStream(request, served.stream), headers: { ...served.headers, ...SSE_HEADERS } };
  return { body: responsesObject(request, served.body as unknown as ChatAnswer), headers: served.headers };
}

const encoder = new TextEncoder();

/**
 * The Responses events of a chat answer's SSE stream, read as it arrives. Cancelling this stream cancels the chat
 * stream (the client left: the pipeline records what was produced, with no receipt).
 */
export function responsesEventStream(
  request: ResponsesRequest,
  chatStream: ReadableStream<Uint8Array>,
): ReadableStream<Uint8Array> {
  let sequence = 0;
  let started: { inferenceId: string; created: number; model: string } | null = null;
  let text = "";
  let finishReason: string | null = null;
  let usage: ChatUsage | null = null;

  const event = (type: string, fields: Record<string, unknown>) =>
    encoder.encode(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence++, ...fields })}\n\n`);
  const snapshot = (status: string, output: unknown[], extra: Record<string, unknown> = {}) => ({
    id: `resp_${started!.inferenceId}`,
    object: "response",
    created_at: started!.created,
    status,
    incomplete_details: null,
    model: started!.model,
    output,
    usage: null,
    ...echoed(request),
    ...extra,
  });
  /** Output items in the order they began: the message (when the model wrote text) and each function call. */
  let items = 0;
  let messageIndex: number | null = null;
  let messageDone = false;
  const at = () => ({ item_id: messageId(started!.inferenceId), output_index: messageIndex!, content_index: 0 });
  const calls: {
    index: number;
    outputIndex: number;
    itemId: string;
    callId: string;
    name: string;
    args: string;
    done: boolean;
  }[] = [];
  type Call = (typeof calls)[number];
  const callItem = (call: Call, status: string) => ({
    id: call.itemId,
    type: "function_call",
    status,
    call_id: call.callId,
    name: call.name,
    arguments: status === "in_progress" ? "" : call.args,
  });
  const callAt = (call: Call) => ({ item_id: call.itemId, output_index: call.outputIndex });

  /** Begins the message item, at its first text (or at the end, empty, when the model wrote nothing and called nothing). */
  function startMessage(): Uint8Array[] {
    messageIndex = items++;
    return [
      event("response.output_item.added", {
        output_index: messageIndex,
        item: messageItem(started!.inferenceId, "in_progress", []),
      }),
      event("response.content_part.added", { ...at(), part: outputPart("") }),
    ];
  }

  /** Ends the message item: its text is what it is now (a later delta still comes as a delta of the same item). */
  function endMessage(status: string): Uint8Array[] {
    messageDone = true;
    const item = messageItem(started!.inferenceId, status, [outputPart(text)]);
    return [
      event("response.output_text.done", { ...at(), text, logprobs: [] }),
      event("response.content_part.done", { ...at(), part: outputPart(text) }),
      event("response.output_item.done", { output_index: messageIndex, item }),
    ];
  }

  /** Ends a function call item: its arguments are whole. */
  function endCall(call: Call): Uint8Array[] {
    call.done = true;
    return [
      event("response.function_call_arguments.done", { ...callAt(call), name: call.name, arguments: call.args }),
      event("response.output_item.done", { output_index: call.outputIndex, item: callItem(call, "completed") }),
    ];
  }

  /** The events of a frame's tool call fragments: an item per new call, its arguments as deltas. */
  function callEventsOf(fragments: ChatToolCallDelta[]): Uint8Array[] {
    const out: Uint8Array[] = [];
    for (const fragment of fragments) {
      let call = calls.find((c) => c.index === fragment.index);
      if (!call) {
        // The message ends before the first call begins, and each call before the next, as OpenAI orders items.
        if (messageIndex !== null && !messageDone) out.push(...endMessage("completed"));
        for (const open of calls.filter((c) => !c.done)) out.push(...endCall(open));
        call = {
          index: fragment.index,
          outputIndex: items++,
          itemId: `fc_${started!.inferenceId}_${calls.length}`,
          callId: fragment.id ?? "",
          name: fragment.function?.name ?? "",
          args: "",
          done: false,
        };
        calls.push(call);
        out.push(
          event("response.output_item.added", { output_index: call.outputIndex, item: callItem(call, "in_progress") }),
        );
      }
      const delta = fragment.function?.arguments;
      if (typeof delta === "string" && delta !== "") {
        call.args += delta;
        out.push(event("response.function_call_arguments.delta", { ...callAt(call), delta }));
      }
    }
    return out;
  }

  /** The events one chat stream frame becomes. */
  function eventsOf(data: unknown): Uint8Array[] {
    if (data === "[DONE]" || typeof data !== "object" || data === null) return [];
    const frame = data as Partial<ChatAnswer> & {
      error?: Record<string, unknown>;
      service_receipt?: unknown;
      choices?: { delta?: { content?: unknown; tool_calls?: ChatToolCallDelta[] }; finish_reason?: string | null }[];
    };
    if (frame.error) {
      const { code, message, ...details } = frame.error;
      return [event("error", { code: code ?? null, message: message ?? "the call failed", param: null, ...details })];
    }
    const out: Uint8Array[] = [];
    if (!started) {
      // Every chunk of the chat stream carries its `created` (when the call was served): the response's time is its.
      started = {
        inferenceId: inferenceIdOf(frame.id ?? ""),
        created: frame.created ?? 0,
        model: frame.model ?? request.model,
      };
      out.push(event("response.created", { response: snapshot("in_progress", []) }));
      out.push(event("response.in_progress", { response: snapshot("in_progress", []) }));
    }
    if (frame.usage) usage = frame.usage;
    const choice = frame.choices?.[0];
    if (choice?.finish_reason) finishReason = choice.finish_reason;
    const delta = choice?.delta?.content;
    if (typeof delta === "string" && delta !== "") {
      if (messageIndex === null) out.push(...startMessage());
      text += delta;
      out.push(event("response.output_text.delta", { ...at(), delta, logprobs: [] }));
    }
    if (Array.isArray(choice?.delta?.tool_calls)) out.push(...callEventsOf(choice.delta.tool_calls));
    if (frame.service_receipt) {
      const { status, incomplete_details } = statusOf(finishReason);
      // An answer with neither text nor calls still has its (empty) message, as the plain answer has.
      if (messageIndex === null && calls.length === 0) out.push(...startMessage());
      if (messageIndex !== null && !messageDone) out.push(...endMessage(status));
      for (const open of calls.filter((c) => !c.done)) out.push(...endCall(open));
      const output: { index: number; item: unknown }[] = calls.map((call) => ({
        index: call.outputIndex,
        item: callItem(call, "completed"),
      }));
      if (messageIndex !== null)
        output.push({ index: messageIndex, item: messageItem(started.inferenceId, status, [outputPart(text)]) });
      output.sort((a, b) => a.index - b.index);
      const response = snapshot(
        status,
        output.map((o) => o.item),
        {
          incomplete_details,
          usage: responsesUsage(usage),
          service_receipt: frame.service_receipt,
        },
      );
      out.push(event(status === "completed" ? "response.completed" : "response.incomplete", { response }));
    }
    return out;
  }

  let buffered = "";
  const decoder = new TextDecoder();
  const events = new TransformStream<Uint8Array, Uint8Array>({
    transform(bytes, controller) {
      buffered += decoder.decode(bytes, { stream: true });
      let cut: RegExpExecArray | null;
      while ((cut = /\r?\n\r?\n/.exec(buffered))) {
        const frameText = buffered.slice(0, cut.index);
        buffered = buffered.slice(cut.index + cut[0].length);
        const data = frameText
          .split(/\r?\n/)
          .filter((line) => line.startsWith("data:"))
          .map((line) => line.slice(5).replace(/^ /, ""))
          .join("\n");
        if (data === "") continue;
        for (const bytes of eventsOf(data === "[DONE]" ? data : (JSON.parse(data) as unknown)))
          controller.enqueue(bytes);
      }
    },
  });
  // Piped, so a client that leaves cancels the chat stream underneath (and the pipeline records the partial call).
  return chatStream.pipeThrough(events);
}
