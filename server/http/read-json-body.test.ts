import { describe, expect, it } from "vitest";
import { AppError } from "../errors";
import {
  DEFAULT_MAX_BODY_BYTES,
  DRAIN_REFUSED_BODY_BYTES,
  parseJsonText,
  readBodyBytes,
  readJsonBody,
} from "./read-json-body";

const post = (body: BodyInit | null, headers: Record<string, string> = {}) =>
  new Request("http://x/y", { method: "POST", body, headers, duplex: "half" } as RequestInit);

/** A body stream with no content-length that never ends on its own; counts the chunks actually pulled. */
function endlessStream(chunkBytes = 64 * 1024): { stream: ReadableStream<Uint8Array>; pulled: () => number } {
  let pulled = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      pulled++;
      controller.enqueue(new Uint8Array(chunkBytes).fill(0x20));
    },
  });
  return { stream, pulled: () => pulled };
}

async function caught(promise: Promise<unknown>): Promise<AppError> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  return err as AppError;
}

describe("readJsonBody()", () => {
  it("parses a JSON body", async () => {
    expect(await readJsonBody(post('{"a":[1,"é"]}'))).toEqual({ a: [1, "é"] });
  });

  it("accepts a body of exactly the cap", async () => {
    const text = `"${"x".repeat(98)}"`;
    expect(await readJsonBody(post(text), 100)).toBe("x".repeat(98));
  });

  it.each([
    ["invalid JSON", () => post("{nope"), "invalid_request", 400],
    ["an empty body", () => post(""), "invalid_request", 400],
    ["a whitespace-only body", () => post(" \n "), "invalid_request", 400],
    ["no body at all", () => new Request("http://x/y", { method: "POST" }), "invalid_request", 400],
    ["invalid UTF-8", () => post(new Uint8Array([0x7b, 0xff, 0x7d])), "invalid_request", 400],
    [
      "a declared content-length over the cap",
      () => post("{}", { "content-length": String(DEFAULT_MAX_BODY_BYTES + 1) }),
      "payload_too_large",
      413,
    ],
    ["a body over the cap", () => post(`"${"x".repeat(DEFAULT_MAX_BODY_BYTES)}"`), "payload_too_large", 413],
  ])("rejects malformed input: %s → %s", async (_label, req, code, status) => {
    const err = await caught(readJsonBody(req()));
    expect(err).toMatchObject({ code, status });
    if (status === 400) expect(err.details).toEqual({ detail: "body" });
  });

  it("never echoes the JSON parser's message", async () => {
    const err = await caught(readJsonBody(post('{"secret": tru')));
    expect(err.message).toBe("request body is not valid JSON");
    expect(err.details).toEqual({ detail: "body" });
  });

  it("stops reading a streamed body without content-length once past what it drains of a refused body", async () => {
    const chunk = 64 * 1024;
    const { stream, pulled } = endlessStream(chunk);
    const err = await caught(readJsonBody(post(stream), 100_000));
    expect(err.code).toBe("payload_too_large");
    // The reader gave up just past DRAIN_REFUSED_BODY_BYTES, not at the end of an endless stream.
    expect(pulled()).toBeGreaterThan(DRAIN_REFUSED_BODY_BYTES / chunk);
    expect(pulled()).toBeLessThanOrEqual(DRAIN_REFUSED_BODY_BYTES / chunk + 3);
  });

  it.each([
    ["declared over the cap", true],
    ["found over the cap while read", false],
  ])(
    "reads a refused body to its end before the 413 (%s), so a proxy still sending it is not cut off",
    async (_label, declare) => {
      const size = 3 * 100_000;
      let sent = 0;
      let closed = false;
      const stream = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (sent >= size) {
            closed = true;
            return controller.close();
          }
          const piece = new Uint8Array(Math.min(16 * 1024, size - sent)).fill(0x20);
          sent += piece.byteLength;
          controller.enqueue(piece);
        },
      });
      const req = post(stream, declare ? { "content-length": String(size) } : {});
      const err = await caught(readJsonBody(req, 100_000));
      expect(err.code).toBe("payload_too_large");
      expect(closed).toBe(true);
      expect(sent).toBe(size);
    },
  );
});

describe("readBodyBytes()", () => {
  it("returns the exact bytes sent", async () => {
    const bytes = new Uint8Array([0, 1, 2, 0xff, 0xfe]);
    expect(await readBodyBytes(post(bytes))).toEqual(bytes);
  });

  it("rejects malformed input: a body over the cap", async () => {
    expect((await caught(readBodyBytes(post(new Uint8Array(11)), 10))).code).toBe("payload_too_large");
  });
});

describe("parseJsonText()", () => {
  it("parses JSON text", () => {
    expect(parseJsonText("[1]")).toEqual([1]);
  });

  it.each(["", "{", "undefined", "{'a':1}"])("rejects malformed input %j with invalid_request", (text) => {
    expect(() => parseJsonText(text)).toThrow(AppError);
    try {
      parseJsonText(text);
    } catch (e) {
      expect(e).toMatchObject({ code: "invalid_request", details: { detail: "body" } });
    }
  });
});
