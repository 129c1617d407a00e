import { describe, expect, it } from "vitest";
import { responsesPromptMessages } from "./responses-prompt";

describe("responsesPromptMessages()", () => {
  it("maps a string input to one user message, after the instructions as a system message", () => {
    expect(responsesPromptMessages({ input: "hi" })).toEqual([{ role: "user", content: "hi" }]);
    expect(responsesPromptMessages({ instructions: "Be brief.", input: "hi" })).toEqual([
      { role: "system", content: "Be brief." },
      { role: "user", content: "hi" },
    ]);
  });

  it("keeps each message item's role and string content, and its text parts as chat text parts in order", () => {
    const input = [
      { role: "developer", content: "rules" },
      {
        type: "message",
        role: "user",
        content: [
          { type: "input_text", text: "a" },
          { type: "input_text", text: "b" },
        ],
      },
      { role: "assistant", id: "msg_1", content: [{ type: "output_text", text: "c", annotations: [] }] },
    ];
    expect(responsesPromptMessages({ input })).toEqual([
      { role: "developer", content: "rules" },
      {
        role: "user",
        content: [
          { type: "text", text: "a" },
          { type: "text", text: "b" },
        ],
      },
      { role: "assistant", content: [{ type: "text", text: "c" }] },
    ]);
  });

  it("maps an earlier answer's function calls to one assistant message with tool_calls, and each output to a tool message", () => {
    const input = [
      { role: "user", content: "Weather in Oslo and Bergen?" },
      { type: "function_call", id: "fc_1", call_id: "call_a", name: "get_weather", arguments: '{"city":"Oslo"}' },
      { type: "function_call", call_id: "call_b", name: "get_weather", arguments: '{"city":"Bergen"}', status: "done" },
      { type: "function_call_output", call_id: "call_a", output: "12" },
      { type: "function_call_output", id: "fco_1", call_id: "call_b", output: "9" },
      { role: "assistant", content: "Oslo 12, Bergen 9." },
      { type: "function_call", call_id: "call_c", name: "get_weather", arguments: "{}" },
    ];
    const call = (id: string, args: string) => ({
      id,
      type: "function",
      function: { name: "get_weather", arguments: args },
    });
    expect(responsesPromptMessages({ input })).toEqual([
      { role: "user", content: "Weather in Oslo and Bergen?" },
      {
        role: "assistant",
        content: null,
        tool_calls: [call("call_a", '{"city":"Oslo"}'), call("call_b", '{"city":"Bergen"}')],
      },
      { role: "tool", tool_call_id: "call_a", content: "12" },
      { role: "tool", tool_call_id: "call_b", content: "9" },
      { role: "assistant", content: "Oslo 12, Bergen 9." },
      { role: "assistant", content: null, tool_calls: [call("call_c", "{}")] },
    ]);
  });

  it.each([
    [{}],
    [{ input: 7 }],
    [{ input: [{ role: "user", content: [{ type: "input_image", image_url: "data:," }] }] }],
    [{ input: [{ type: "function_call_output", call_id: "c", output: [{ type: "input_text", text: "x" }] }] }],
    [{ input: [{ type: "function_call", call_id: "c", name: "f" }] }],
    [{ input: [{ type: "reasoning", id: "rs_1", summary: [] }] }],
    [{ input: [{ role: "user", content: [{ type: "input_text" }] }] }],
    [{ input: [null] }],
  ])("rejects malformed input %j", (body) => {
    expect(responsesPromptMessages(body)).toBeNull();
  });
});
