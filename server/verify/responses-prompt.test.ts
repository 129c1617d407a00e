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

  it.each([
    [{}],
    [{ input: 7 }],
    [{ input: [{ role: "user", content: [{ type: "input_image", image_url: "data:," }] }] }],
    [{ input: [{ type: "function_call_output", call_id: "c", output: "x" }] }],
    [{ input: [{ role: "user", content: [{ type: "input_text" }] }] }],
    [{ input: [null] }],
  ])("rejects malformed input %j", (body) => {
    expect(responsesPromptMessages(body)).toBeNull();
  });
});
