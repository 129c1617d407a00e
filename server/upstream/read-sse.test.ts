import { describe, expect, it } from "vitest";
import { splitIntoTokens } from "./local-model";
import { readStreamedAnswer, receiptOfEvent, sseDataText } from "./read-sse";

/** A body delivered in the given pieces, as a network would cut it. */
function body(...pieces: string[]): ReadableStream<Uint8Array> {
  const bytes = pieces.map((p) => new TextEncoder().encode(p));
  return new ReadableStream({
    pull(controller) {
      const next = bytes.shift();
      if (next) controller.enqueue(next);
      else controller.close();
    },
  });
}

async function all(stream: ReadableStream<Uint8Array>): Promise<string[]> {
  const out: string[] = [];
  for await (const d of sseDataText(stream)) out.push(d);
  return out;
}

describe("sseDataText", () => {
  it("splits events on blank lines across arbitrary chunk cuts, LF or CRLF, and joins multi-line data", async () => {
    expect(await all(body('data: {"a"', ":1}\n\ndata: x\r\n", "\r\ndata: line1\ndata: line2\n\n"))).toEqual([
      '{"a":1}',
      "x",
      "line1\nline2",
    ]);
  });

  it("yields '' for comment-only events (keep-alives) and ignores a trailing partial event", async () => {
    expect(await all(body(": OPENROUTER PROCESSING\n\n", "data: [DONE]\n\n", "data: cut off"))).toEqual(["", "[DONE]"]);
  });

  it("splits a UTF-8 character cut between chunks correctly", async () => {
    const euro = new TextEncoder().encode('data: "€"\n\n');
    const stream = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(euro.slice(0, 8));
        c.enqueue(euro.slice(8));
        c.close();
      },
    });
    expect(await all(stream)).toEqual(['"€"']);
  });
});

describe("readStreamedAnswer", () => {
  const chunk = (content: string) =>
    `data: ${JSON.stringify({ object: "chat.completion.chunk", choices: [{ index: 0, delta: { content } }] })}\n\n`;

  const receiptChunk = (body: unknown) =>
    `data: ${JSON.stringify({ id: "chatcmpl-x", object: "chat.completion.chunk", created: 1, model: "m", choices: [], service_receipt: body })}\n\n`;

  it("collects the answer's chunks, their text, the receipt chunk's receipt and [DONE]", async () => {
    const x402 = { format: "jws", signature: "s" };
    const answer = await readStreamedAnswer(
      body(
        chunk("Hel"),
        chunk("lo"),
        receiptChunk({ object: "service.receipt", receipt: { v: 2 }, log_proof_url: "u", x402_receipt: x402 }),
        "data: [DONE]\n\n",
      ),
    );
    expect(answer).toMatchObject({ text: "Hello", receipt: { v: 2 }, x402Receipt: x402, error: null, done: true });
    expect(answer.chunks).toHaveLength(2);
  });

  it("still reads the bare receipt event that streams sent before the receipt chunk", async () => {
    const answer = await readStreamedAnswer(
      body(
        chunk("Hel"),
        chunk("lo"),
        `data: ${JSON.stringify({ object: "service.receipt", receipt: { v: 2 } })}\n\n`,
        "data: [DONE]\n\n",
      ),
    );
    expect(answer).toMatchObject({ text: "Hello", receipt: { v: 2 }, x402Receipt: null, done: true });
    expect(answer.chunks).toHaveLength(2);
  });

  it("reports an error event and no receipt", async () => {
    const answer = await readStreamedAnswer(
      body(chunk("Hel"), `data: ${JSON.stringify({ error: { code: "upstream_error", message: "m" } })}\n\n`),
    );
    expect(answer).toMatchObject({ text: "Hel", receipt: null, error: { code: "upstream_error" }, done: false });
  });
});

describe("receiptOfEvent", () => {
  it("rejects malformed input: non-objects, chunks without a service_receipt, and bodies that are not a service.receipt with a receipt", () => {
    for (const data of [
      null,
      "[DONE]",
      7,
      [],
      { object: "chat.completion.chunk", choices: [] },
      { object: "chat.completion.chunk", choices: [], service_receipt: "x" },
      { object: "chat.completion.chunk", choices: [], service_receipt: { object: "other", receipt: { v: 2 } } },
      { object: "chat.completion.chunk", choices: [], service_receipt: { object: "service.receipt" } },
      { object: "service.receipt" },
      { receipt: { v: 2 } },
    ]) {
      expect(receiptOfEvent(data)).toBeNull();
    }
  });

  it("does not take a bare receipt body nested under a chunk other than as service_receipt", () => {
    expect(receiptOfEvent({ object: "chat.completion.chunk", choices: [], receipt: { v: 2 } })).toBeNull();
  });

  it("reads a Responses stream's last event: response.completed or response.incomplete, from its response's service_receipt", () => {
    const body = {
      object: "service.receipt",
      receipt: { v: 2 },
      log_proof_url: "u",
      x402_receipt: { format: "jws", signature: "s" },
    };
    expect(
      receiptOfEvent({
        type: "response.completed",
        sequence_number: 9,
        response: { object: "response", service_receipt: body },
      }),
    ).toEqual({ receipt: { v: 2 }, x402Receipt: { format: "jws", signature: "s" } });
    expect(
      receiptOfEvent({
        type: "response.incomplete",
        response: { service_receipt: { object: "service.receipt", receipt: { v: 2 } } },
      }),
    ).toEqual({ receipt: { v: 2 }, x402Receipt: null });
    for (const data of [
      { type: "response.completed", response: {} },
      { type: "response.completed" },
      { type: "response.created", response: { service_receipt: body } },
      { type: "response.completed", service_receipt: body },
    ]) {
      expect(receiptOfEvent(data)).toBeNull();
    }
  });
});

describe("splitIntoTokens (the built-in model's stream pieces)", () => {
  it("concatenates back to the text, whatever its spacing", () => {
    for (const text of [
      "",
      "one",
      "  lead and  double spaces ",
      '[local/echo-1] You said: "hi".\nFingerprint: a-b-c.',
      "   ",
    ]) {
      expect(splitIntoTokens(text).join("")).toBe(text);
    }
    expect(splitIntoTokens("a b c")).toEqual(["a ", "b ", "c"]);
  });
});
