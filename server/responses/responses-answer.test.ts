import { describe, expect, it } from "vitest";
import { sseData } from "../upstream/read-sse";
import { responsesEventStream, responsesObject } from "./responses-answer";

const request = { model: "local/echo-1", input: "hi" };
const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) => ({
  id: "chatcmpl-abc",
  object: "chat.completion.chunk",
  created: 1,
  model: "local/echo-1",
  choices,
  ...extra,
});
const frames = (...events: unknown[]) =>
  events.map((e) => `data: ${typeof e === "string" ? e : JSON.stringify(e)}\n\n`).join("");

/** A chat SSE body delivered in pieces cut at `cut` bytes, as a network might deliver it. */
function chatBody(text: string, cut = 7): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  let at = 0;
  return new ReadableStream({
    pull(controller) {
      if (at >= bytes.length) return controller.close();
      controller.enqueue(bytes.slice(at, at + cut));
      at += cut;
    },
  });
}

async function eventsOf(stream: ReadableStream<Uint8Array>) {
  const out: Record<string, unknown>[] = [];
  for await (const data of sseData(stream)) out.push(data as Record<string, unknown>);
  return out;
}

describe("responsesObject()", () => {
  it("lists the model's function calls as function_call items after its text, and no message when it only called", () => {
    const call = (id: string, city: string) => ({
      id,
      type: "function",
      function: { name: "get_weather", arguments: JSON.stringify({ city }) },
    });
    const answer = (content: string | null) => ({
      id: "chatcmpl-abc",
      created: 5,
      model: "m",
      choices: [{ message: { content, tool_calls: [call("call_a", "Oslo"), call("call_b", "Bergen")] } }],
    });
    const tools = [{ type: "function" as const, name: "get_weather", parameters: {} }];
    const only = responsesObject({ ...request, tools }, answer(null));
    expect(only.output).toEqual([
      {
        id: "fc_abc_0",
        type: "function_call",
        status: "completed",
        call_id: "call_a",
        name: "get_weather",
        arguments: '{"city":"Oslo"}',
      },
      {
        id: "fc_abc_1",
        type: "function_call",
        status: "completed",
        call_id: "call_b",
        name: "get_weather",
        arguments: '{"city":"Bergen"}',
      },
    ]);
    expect(only.tools).toEqual(tools);
    const both = responsesObject({ ...request, tools }, answer("Let me look."));
    expect((both.output as { type: string }[]).map((item) => item.type)).toEqual([
      "message",
      "function_call",
      "function_call",
    ]);
  });

  it("maps a chat answer to the Responses object, resp_ and msg_ ids carrying the inference id", () => {
    const answer = {
      id: "chatcmpl-abc",
      created: 5,
      model: "local/echo-1",
      choices: [{ message: { content: "Hi!" }, finish_reason: "stop" }],
      usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
    };
    expect(responsesObject(request, answer)).toMatchObject({
      id: "resp_abc",
      object: "response",
      created_at: 5,
      status: "completed",
      incomplete_details: null,
      output: [
        {
          id: "msg_abc",
          type: "message",
          role: "assistant",
          status: "completed",
          content: [{ type: "output_text", text: "Hi!", annotations: [] }],
        },
      ],
      usage: { input_tokens: 3, output_tokens: 2, total_tokens: 5 },
    });
  });

  it("reports an answer cut by the output cap as incomplete (max_output_tokens)", () => {
    const answer = {
      id: "chatcmpl-abc",
      created: 5,
      model: "m",
      choices: [{ message: { content: "Hi" }, finish_reason: "length" }],
    };
    expect(responsesObject(request, answer)).toMatchObject({
      status: "incomplete",
      incomplete_details: { reason: "max_output_tokens" },
      output: [{ status: "incomplete" }],
    });
  });
});

describe("responsesEventStream()", () => {
  const receipt = { object: "service.receipt", receipt: { v: 2 }, log_proof_url: "u" };

  it("turns the chat chunks, cut anywhere, into the Responses events with the receipt on response.completed", async () => {
    const chat = frames(
      chunk([{ index: 0, delta: { role: "assistant", content: "Hel" } }]),
      chunk([{ index: 0, delta: { content: "lo" }, finish_reason: null }]),
      chunk([{ index: 0, delta: {}, finish_reason: "stop" }], {
        usage: { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 },
      }),
      chunk([], { service_receipt: receipt }),
      "[DONE]",
    );
    const events = await eventsOf(responsesEventStream(request, chatBody(chat)));
    expect(events.map((e) => e.type)).toEqual([
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.content_part.added",
      "response.output_text.delta",
      "response.output_text.delta",
      "response.output_text.done",
      "response.content_part.done",
      "response.output_item.done",
      "response.completed",
    ]);
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    expect(events.at(-1)).toMatchObject({
      response: {
        id: "resp_abc",
        status: "completed",
        output: [{ content: [{ text: "Hello" }] }],
        usage: { total_tokens: 3 },
        service_receipt: receipt,
      },
    });
  });

  it("gives each streamed function call its own item: added, argument deltas, done, and in the final output", async () => {
    const fragment = (index: number, extra: Record<string, unknown>) => ({ index, ...extra });
    const chat = frames(
      chunk([{ index: 0, delta: { role: "assistant", content: "" } }]),
      chunk([
        {
          index: 0,
          delta: {
            tool_calls: [
              fragment(0, { id: "call_a", type: "function", function: { name: "get_weather", arguments: "" } }),
            ],
          },
        },
      ]),
      chunk([{ index: 0, delta: { tool_calls: [fragment(0, { function: { arguments: '{"city":' } })] } }]),
      chunk([{ index: 0, delta: { tool_calls: [fragment(0, { function: { arguments: '"Oslo"}' } })] } }]),
      chunk([
        {
          index: 0,
          delta: { tool_calls: [fragment(1, { id: "call_b", function: { name: "get_time", arguments: "{}" } })] },
        },
      ]),
      chunk([{ index: 0, delta: {}, finish_reason: "tool_calls" }]),
      chunk([], { service_receipt: receipt }),
      "[DONE]",
    );
    const events = await eventsOf(responsesEventStream(request, chatBody(chat, 11)));
    // No text: no message item, as the plain answer has none.
    expect(events.map((e) => `${e.type}${e.output_index === undefined ? "" : `@${e.output_index}`}`)).toEqual([
      "response.created",
      "response.in_progress",
      "response.output_item.added@0",
      "response.function_call_arguments.delta@0",
      "response.function_call_arguments.delta@0",
      "response.function_call_arguments.done@0",
      "response.output_item.done@0",
      "response.output_item.added@1",
      "response.function_call_arguments.delta@1",
      "response.function_call_arguments.done@1",
      "response.output_item.done@1",
      "response.completed",
    ]);
    expect(events.find((e) => e.type === "response.function_call_arguments.done")).toMatchObject({
      item_id: "fc_abc_0",
      name: "get_weather",
      arguments: '{"city":"Oslo"}',
    });
    expect((events.at(-1) as { response: { output: unknown[] } }).response.output).toEqual([
      expect.objectContaining({
        type: "function_call",
        call_id: "call_a",
        name: "get_weather",
        arguments: '{"city":"Oslo"}',
      }),
      expect.objectContaining({ type: "function_call", call_id: "call_b", name: "get_time", arguments: "{}" }),
    ]);
  });

  it("ends the message before a call that follows its text, and keeps an empty message for an answer with neither", async () => {
    const withText = frames(
      chunk([{ index: 0, delta: { role: "assistant", content: "Let me look." } }]),
      chunk([
        {
          index: 0,
          delta: { tool_calls: [{ index: 0, id: "call_a", function: { name: "get_weather", arguments: "{}" } }] },
        },
      ]),
      chunk([{ index: 0, delta: {}, finish_reason: "tool_calls" }]),
      chunk([], { service_receipt: receipt }),
      "[DONE]",
    );
    const events = await eventsOf(responsesEventStream(request, chatBody(withText)));
    expect(events.map((e) => `${e.type}${e.output_index === undefined ? "" : `@${e.output_index}`}`)).toEqual([
      "response.created",
      "response.in_progress",
      "response.output_item.added@0",
      "response.content_part.added@0",
      "response.output_text.delta@0",
      "response.output_text.done@0",
      "response.content_part.done@0",
      "response.output_item.done@0",
      "response.output_item.added@1",
      "response.function_call_arguments.delta@1",
      "response.function_call_arguments.done@1",
      "response.output_item.done@1",
      "response.completed",
    ]);
    const empty = frames(
      chunk([{ index: 0, delta: { role: "assistant", content: "" } }]),
      chunk([{ index: 0, delta: {}, finish_reason: "stop" }]),
      chunk([], { service_receipt: receipt }),
      "[DONE]",
    );
    const last = (await eventsOf(responsesEventStream(request, chatBody(empty)))).at(-1) as {
      response: { output: { type: string; content: { text: string }[] }[] };
    };
    expect(last.response.output).toEqual([
      expect.objectContaining({ type: "message", content: [expect.objectContaining({ text: "" })] }),
    ]);
  });

  it("ends with response.incomplete for a cut answer, and with an error event (its details kept) for a failed one", async () => {
    const cut = frames(
      chunk([{ index: 0, delta: { content: "He" } }]),
      chunk([{ index: 0, delta: {}, finish_reason: "length" }]),
      chunk([], { service_receipt: receipt }),
      "[DONE]",
    );
    expect((await eventsOf(responsesEventStream(request, chatBody(cut)))).at(-1)).toMatchObject({
      type: "response.incomplete",
      response: { status: "incomplete", service_receipt: receipt },
    });
    const failed = frames(chunk([{ index: 0, delta: { content: "He" } }]), {
      error: { code: "upstream_error", message: "the model provider failed", tx_signature: "t" },
    });
    expect((await eventsOf(responsesEventStream(request, chatBody(failed)))).at(-1)).toMatchObject({
      type: "error",
      code: "upstream_error",
      message: "the model provider failed",
      param: null,
      tx_signature: "t",
    });
  });

  it("cancels the chat stream underneath when its reader leaves", async () => {
    let cancelled = false;
    const chat = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(frames(chunk([{ index: 0, delta: { content: "He" } }]))));
      },
      cancel() {
        cancelled = true;
      },
    });
    const reader = responsesEventStream(request, chat).getReader();
    await reader.read();
    await reader.cancel();
    // The pipe passes the cancel on to its source once it sees its destination gone.
    await new Promise((r) => setTimeout(r, 10));
    expect(cancelled).toBe(true);
  });
});
