import { describe, expect, it } from "vitest";
import { AppError } from "../errors";
import { readJsonBody } from "./read-json-body";
import { handleRoute, parseWith } from "./handle-route";
import { z } from "zod";

const post = (body: BodyInit | null, headers: Record<string, string> = {}) => new Request("http://x/y", { method: "POST", body, headers, duplex: "half" } as RequestInit);

describe("readJsonBody()", () => {
  it("parses JSON", async () => {
    expect(await readJsonBody(post('{"a":[1]}'))).toEqual({ a: [1] });
  });

  it.each([
    ["invalid JSON", post("{nope"), "invalid_request"],
    ["an empty body", post(""), "invalid_request"],
    ["invalid UTF-8", post(new Uint8Array([0x7b, 0xff, 0x7d])), "invalid_request"],
    ["a declared oversize body", post("{}", { "content-length": "999999999" }), "payload_too_large"],
  ])("rejects %s with %s", async (_label, req, code) => {
    await expect(readJsonBody(req)).rejects.toMatchObject({ code });
  });

  it("stops reading a streamed body past the cap", async () => {
    const stream = new ReadableStream({
      pull(controller) {
        controller.enqueue(new Uint8Array(64 * 1024));
      },
    });
    await expect(readJsonBody(post(stream), 100_000)).rejects.toMatchObject({ code: "payload_too_large" });
  });
});

describe("parseWith()", () => {
  it("names the offending field in detail", () => {
    const schema = z.object({ a: z.object({ b: z.string() }) });
    const err = (() => {
      try {
        parseWith(schema, { a: { b: 1 } });
      } catch (e) {
        return e as AppError;
      }
    })();
    expect(err).toMatchObject({ code: "invalid_request", details: { detail: "a.b" } });
  });
});

describe("handleRoute()", () => {
  it("maps unknown errors to a generic 500 with a request id and no message", async () => {
    const res = await handleRoute(async () => {
      throw new Error("secret internals at /srv/x.ts:12");
    })(post("{}"), {});
    expect(res.status).toBe(500);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ error: "internal_error", message: "internal error" });
    expect(JSON.stringify(body)).not.toContain("secret");
    expect(res.headers.get("x-request-id")).toBe(body.request_id);
  });

  it("maps AppErrors to their status and sanitises a caller's request id", async () => {
    const res = await handleRoute(async () => {
      throw new AppError("not_found", "nothing here");
    })(post("{}", { "x-request-id": "abc<script>" }), {});
    expect(res.status).toBe(404);
    expect(res.headers.get("x-request-id")).toBe("abcscript");
  });
});
