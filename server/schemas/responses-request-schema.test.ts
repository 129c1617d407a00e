import { describe, expect, it } from "vitest";
import { parseWith } from "../http/parse-with";
import { responsesRequestSchema } from "./responses-request-schema";
import { chatRequestOf } from "../responses/chat-request-of";

const refusal = (body: unknown) => {
  try {
    parseWith(responsesRequestSchema, body);
  } catch (err) {
    return err as { code: string; details: { detail: string } };
  }
  throw new Error("accepted");
};

describe("responsesRequestSchema", () => {
  it("accepts what the openai SDK and the AI SDK send: a string or message items, text parts, ignored metadata and user", () => {
    for (const body of [
      {
        model: "m",
        input: "hi",
        instructions: "Be brief.",
        max_output_tokens: 64,
        temperature: 0.2,
        top_p: 0.9,
        stream: true,
        metadata: { a: "b" },
        user: "u",
        store: false,
      },
      {
        model: "m",
        input: [
          { role: "system", content: "s" },
          { role: "user", content: [{ type: "input_text", text: "hi" }] },
          { role: "assistant", id: "msg_1", content: [{ type: "output_text", text: "yo", annotations: [] }] },
        ],
      },
      {
        model: "m",
        input: "hi",
        text: { format: { type: "json_schema", name: "answer", schema: { type: "object" }, strict: true } },
        tools: [],
        include: null,
      },
    ]) {
      expect(() => parseWith(responsesRequestSchema, body)).not.toThrow();
    }
  });

  it.each([
    ["store", { store: true }],
    ["previous_response_id", { previous_response_id: "resp_1" }],
    ["conversation", { conversation: { id: "conv_1" } }],
    ["background", { background: true }],
    ["tools.0.type", { tools: [{ type: "web_search" }] }],
    ["tool_choice", { tool_choice: "sometimes" }],
    ["input.0.call_id", { input: [{ type: "function_call", name: "f", arguments: "{}" }] }],
    ["include", { include: ["reasoning.encrypted_content"] }],
    ["text.format.type", { text: { format: { type: "grammar" } } }],
    ["input.0.content.0.type", { input: [{ role: "user", content: [{ type: "input_file", file_id: "f" }] }] }],
    [
      "input.1.type",
      {
        input: [
          { role: "user", content: "hi" },
          { type: "item_reference", id: "x" },
        ],
      },
    ],
    ["input", { input: [] }],
    ["model", { model: "" }],
  ])("rejects malformed or unserved input: %s", (field, extra) => {
    expect(refusal({ model: "m", input: "hi", ...extra })).toMatchObject({
      code: "invalid_request",
      details: { detail: field },
    });
  });
});

describe("chatRequestOf()", () => {
  it("maps the request onto chat's: the mapped messages, max_output_tokens as the cap, the sampling parameters and a JSON format", () => {
    const body = parseWith(responsesRequestSchema, {
      model: "m",
      instructions: "Be brief.",
      input: "hi",
      max_output_tokens: 32,
      temperature: 0.5,
      network: "devnet",
      stream: true,
      text: { format: { type: "json_schema", name: "answer", schema: { type: "object" } } },
    });
    expect(chatRequestOf(body)).toEqual({
      model: "m",
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: "hi" },
      ],
      network: "devnet",
      max_tokens: 32,
      temperature: 0.5,
      top_p: undefined,
      stream: true,
      response_format: { type: "json_schema", json_schema: { name: "answer", schema: { type: "object" } } },
    });
    expect(
      chatRequestOf(parseWith(responsesRequestSchema, { model: "m", input: "hi", text: { format: { type: "text" } } })),
    ).not.toHaveProperty("response_format");
  });
});
