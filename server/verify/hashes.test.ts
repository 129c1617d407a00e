import { describe, expect, it } from "vitest";
import {
  legacyPromptHashOfMessages,
  matchPromptHash,
  promptHashCandidates,
  promptHashOfMessages,
  responseHash,
  responseText,
  sha256Hex,
} from "./hashes";

const messages = [
  { role: "system", content: "You are a helpful assistant." },
  { role: "user", content: "Say hi in one word." },
];

describe("sha256Hex()", () => {
  it("hashes the UTF-8 bytes", () => {
    expect(sha256Hex("")).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    expect(sha256Hex("é")).toBe("4a99557e4033c3539de2eb65472017cad5f9557f7a0625a09f1c3f6e2ba69c4c");
  });
});

describe("promptHashCandidates()", () => {
  it("offers the canonical and the legacy form for a messages array", () => {
    const forms = promptHashCandidates(messages);
    expect(forms).toEqual([
      {
        form: "canonical",
        hash: sha256Hex(
          JSON.stringify([
            { content: messages[0]!.content, role: "system" },
            { content: messages[1]!.content, role: "user" },
          ]),
        ),
      },
      { form: "legacy", hash: sha256Hex("system:You are a helpful assistant.\nuser:Say hi in one word.") },
    ]);
  });

  it("gives different hashes for the canonical and legacy forms", () => {
    expect(promptHashOfMessages(messages)).not.toBe(legacyPromptHashOfMessages(messages));
  });

  it("reads a request body with messages, or with a prompt string hashed raw", () => {
    expect(promptHashCandidates({ model: "m", messages })).toEqual(promptHashCandidates(messages));
    expect(promptHashCandidates({ prompt: "What?" })).toEqual([{ form: "raw", hash: sha256Hex("What?") }]);
  });

  it("hashes a plain string raw, and as the one text of an embeddings input", () => {
    expect(promptHashCandidates("hello")).toEqual([
      { form: "raw", hash: sha256Hex("hello") },
      { form: "embeddings", hash: sha256Hex('["hello"]') },
    ]);
  });

  it("reads an embeddings request body, or its input, as the list of its inputs", () => {
    const texts = { form: "embeddings", hash: sha256Hex('["a","b"]') };
    expect(promptHashCandidates({ model: "local/hash-embed-1", input: ["a", "b"], encoding_format: "base64" })).toEqual(
      [texts],
    );
    expect(promptHashCandidates(["a", "b"])).toEqual([texts]);
    expect(promptHashCandidates([3, 4])).toEqual([{ form: "embeddings", hash: sha256Hex("[[3,4]]") }]);
    expect(promptHashCandidates({ input: [[3, 4]] })).toEqual([{ form: "embeddings", hash: sha256Hex("[[3,4]]") }]);
    // `{"input":"hi"}` reads as a Responses request and as an embeddings one: each form is a candidate.
    expect(promptHashCandidates({ input: "hi" })).toEqual([
      { form: "canonical", hash: promptHashOfMessages([{ role: "user", content: "hi" }]) },
      { form: "legacy", hash: sha256Hex("user:hi") },
      { form: "embeddings", hash: sha256Hex('["hi"]') },
    ]);
    expect(matchPromptHash({ model: "m", input: "hi" }, sha256Hex('["hi"]'))).toEqual({
      form: "embeddings",
      hash: sha256Hex('["hi"]'),
    });
  });

  it("hashes unicode and escapes through canonical JSON", () => {
    const tricky = [{ role: "user", content: 'emoji 😀, line sep \u2028, "quotes", back\\slash' }];
    expect(promptHashOfMessages(tricky)).toBe(
      sha256Hex(`[{"content":${JSON.stringify(tricky[0]!.content)},"role":"user"}]`),
    );
  });

  it("skips the legacy form for non-string content", () => {
    const parts = [{ role: "user", content: [{ type: "text", text: "hi" }] }];
    expect(promptHashCandidates(parts).map((c) => c.form)).toEqual(["canonical"]);
  });

  it("hashes a Responses request body as the messages its instructions and input map to", () => {
    const mapped = [
      { role: "system", content: "Be brief." },
      { role: "user", content: [{ type: "text", text: "hi" }] },
    ];
    const body = {
      model: "local/echo-1",
      instructions: "Be brief.",
      input: [{ role: "user", content: [{ type: "input_text", text: "hi" }] }],
    };
    expect(promptHashCandidates(body)[0]).toEqual({ form: "canonical", hash: promptHashOfMessages(mapped) });
    expect(matchPromptHash(body, promptHashOfMessages(mapped))).toEqual({
      form: "canonical",
      hash: promptHashOfMessages(mapped),
    });
    expect(promptHashCandidates({ input: "hi" }).map((c) => c.hash)).toContain(
      promptHashOfMessages([{ role: "user", content: "hi" }]),
    );
  });

  it.each([
    [null],
    [42],
    [{}],
    [{ messages: "nope" }],
    [undefined],
    [{ input: 5 }],
    [{ input: [{ role: "user", content: [{ type: "input_image", image_url: "x" }] }] }],
  ])("rejects malformed input %j with no candidates", (input) => {
    expect(promptHashCandidates(input)).toEqual([]);
  });
});

describe("responseText()", () => {
  it("reads choices[0].message.content of a chat completion", () => {
    expect(responseText({ choices: [{ message: { role: "assistant", content: "Hello!" } }] })).toBe("Hello!");
  });

  it("reads {result}, plain strings, and concatenates stream chunks", () => {
    expect(responseText({ result: "Paris." })).toBe("Paris.");
    expect(responseText("plain")).toBe("plain");
    const chunks = [
      { object: "chat.completion.chunk", choices: [{ delta: { role: "assistant" } }] },
      { object: "chat.completion.chunk", choices: [{ delta: { content: "Hel" } }] },
      { object: "chat.completion.chunk", choices: [{ delta: { content: "lo!" }, finish_reason: "stop" }] },
      { object: "chat.completion.chunk", choices: [], usage: { total_tokens: 3 } },
    ];
    expect(responseText(chunks)).toBe("Hello!");
  });

  it("takes nothing from the receipt chunk (choices: [] and the receipt in service_receipt), so a whole stream's chunks read as the answer", () => {
    const chunks = [
      { object: "chat.completion.chunk", choices: [{ delta: { role: "assistant", content: "Hel" } }] },
      { object: "chat.completion.chunk", choices: [{ delta: { content: "lo!" }, finish_reason: "stop" }] },
      {
        object: "chat.completion.chunk",
        choices: [],
        service_receipt: { object: "service.receipt", receipt: { response_hash: "h" }, log_proof_url: "u" },
      },
    ];
    expect(responseText(chunks)).toBe("Hello!");
  });

  it("reads a Responses object: the output_text parts of its message items, in order", () => {
    const response = {
      id: "resp_1",
      object: "response",
      status: "completed",
      output: [
        { type: "reasoning", id: "rs_1", summary: [] },
        {
          type: "message",
          id: "msg_1",
          role: "assistant",
          status: "completed",
          content: [
            { type: "output_text", text: "Hel", annotations: [] },
            { type: "refusal", refusal: "no" },
            { type: "output_text", text: "lo!", annotations: [] },
          ],
        },
      ],
    };
    expect(responseText(response)).toBe("Hello!");
    expect(responseHash(response)).toBe(sha256Hex("Hello!"));
    expect(responseText({ object: "response", output: [] })).toBe("");
  });

  it("reads a Responses stream's events: the deltas of its output_text.delta events, in order, and nothing else", () => {
    const events = [
      { type: "response.created", sequence_number: 0, response: { object: "response", output: [] } },
      { type: "response.output_text.delta", sequence_number: 1, output_index: 0, content_index: 0, delta: "Hel" },
      { type: "response.function_call_arguments.delta", sequence_number: 2, delta: '{"city"' },
      { type: "response.output_text.delta", sequence_number: 3, output_index: 0, content_index: 0, delta: "lo!" },
      { type: "response.output_text.done", sequence_number: 4, text: "Hello!" },
      { type: "response.completed", sequence_number: 5, response: { object: "response", service_receipt: {} } },
    ];
    expect(responseText(events)).toBe("Hello!");
    expect(responseHash(events)).toBe(sha256Hex("Hello!"));
    // A malformed event, or a delta that is no string, reads as nothing rather than as part of an answer.
    expect(responseText([...events, 5])).toBeNull();
    expect(responseText([{ type: "response.output_text.delta", delta: 5 }])).toBeNull();
    expect(responseText([{ type: "response.created" }, { object: "chat.completion.chunk", choices: [] }])).toBeNull();
  });

  it("hashes an embeddings answer over its vectors, not a text (it has none)", () => {
    const body = {
      object: "list",
      data: [{ object: "embedding", index: 0, embedding: [0.5, -1] }],
      model: "m",
      usage: { prompt_tokens: 1, total_tokens: 1 },
    };
    expect(responseText(body)).toBeNull();
    expect(responseHash(body)).toBe(sha256Hex("[[0.5,-1]]"));
    expect(responseHash([[0.5, -1]])).toBe(sha256Hex("[[0.5,-1]]"));
    expect(responseHash([0.5, -1])).toBe(sha256Hex("[[0.5,-1]]"));
  });

  it.each([
    [{ object: "response" }],
    [{ object: "response", output: [{ type: "message", content: "x" }] }],
    [{ object: "response", output: [{ type: "message", content: [{ type: "output_text", text: 1 }] }] }],
    [{ object: "response", output: [7] }],
  ])("rejects a malformed Responses object %j", (input) => {
    expect(responseText(input)).toBeNull();
  });

  it.each([
    [null],
    [{}],
    [{ choices: [] }],
    [{ choices: [{ message: { content: 5 } }] }],
    [[{ choices: [{ delta: { content: 1 } }] }]],
    [7],
  ])("rejects malformed input %j", (input) => {
    expect(responseText(input)).toBeNull();
    expect(responseHash(input)).toBeNull();
  });
});

describe("matchPromptHash()", () => {
  it("answers as searching every candidate does, for each form and for no match", () => {
    const messages = [
      { role: "user", content: "hi" },
      { role: "assistant", content: "yo" },
    ];
    const inputs: unknown[] = [
      messages,
      { messages },
      { prompt: "What?" },
      "plain",
      { messages, prompt: "both" },
      42,
      null,
      [1, 2],
      ["a", "b"],
      { input: "hi" },
      { input: [[1], [2]] },
    ];
    for (const prompt of inputs) {
      const candidates = promptHashCandidates(prompt);
      for (const expected of [...candidates.map((c) => c.hash), "0".repeat(64), undefined]) {
        expect(matchPromptHash(prompt, expected)).toEqual(candidates.find((c) => c.hash === expected));
      }
    }
  });
});
