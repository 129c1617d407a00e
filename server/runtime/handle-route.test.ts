import { describe, expect, it } from "vitest";
import { z } from "zod";
import { AppError } from "../errors";
import { handleRoute } from "./handle-route";
import { parseWith } from "../http/parse-with";

const get = (headers: Record<string, string> = {}) => new Request("http://x/y", { headers });
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function parseError(schema: z.ZodType, value: unknown): AppError {
  try {
    parseWith(schema, value);
  } catch (e) {
    expect(e).toBeInstanceOf(AppError);
    return e as AppError;
  }
  throw new Error("parseWith accepted the value");
}

describe("parseWith()", () => {
  const schema = z.object({ a: z.object({ b: z.string() }), list: z.array(z.number()).optional() });

  it("returns the parsed value", () => {
    expect(parseWith(schema, { a: { b: "x" } })).toEqual({ a: { b: "x" } });
  });

  it.each([
    [{ a: { b: 1 } }, "a.b"],
    [{}, "a"],
    [{ a: { b: "x" }, list: [1, "two"] }, "list.1"],
    [null, "body"],
    ["a string", "body"],
  ])("rejects malformed input %j with a 400 whose detail names %s", (value, field) => {
    const err = parseError(schema, value);
    expect(err).toMatchObject({ code: "invalid_request", status: 400, details: { detail: field } });
    expect(err.message.startsWith(`${field}: `)).toBe(true);
  });
});

describe("handleRoute()", () => {
  it("passes a handler's answer through and tags it with a fresh request id", async () => {
    const res = await handleRoute(async () => Response.json({ fine: true }, { status: 201 }))(get(), {});
    expect(res.status).toBe(201);
    expect(await res.json()).toEqual({ fine: true });
    expect(res.headers.get("x-request-id")).toMatch(UUID);
  });

  it("echoes a caller's clean request id, and hands it to the handler", async () => {
    let seen = "";
    const res = await handleRoute(async (_req, _ctx, requestId) => {
      seen = requestId;
      return new Response("ok");
    })(get({ "x-request-id": "abc-123.def_4" }), {});
    expect(res.headers.get("x-request-id")).toBe("abc-123.def_4");
    expect(seen).toBe("abc-123.def_4");
  });

  it.each([
    ["markup", "abc<script>", "abcscript"],
    ["a very long id", "a".repeat(500), "a".repeat(64)],
  ])("rejects malformed input: sanitises a caller's request id holding %s", async (_label, sent, echoed) => {
    const res = await handleRoute(async () => {
      throw new AppError("not_found", "nothing here");
    })(get({ "x-request-id": sent }), {});
    expect(res.headers.get("x-request-id")).toBe(echoed);
    expect(((await res.json()) as { request_id: string }).request_id).toBe(echoed);
  });

  it("replaces a request id with nothing usable left by a fresh one", async () => {
    const res = await handleRoute(async () => new Response("ok"))(get({ "x-request-id": "<<>>" }), {});
    expect(res.headers.get("x-request-id")).toMatch(UUID);
  });

  it("maps an AppError to its status, code, message and details", async () => {
    const res = await handleRoute(async () => {
      throw new AppError("invalid_request", "prompt: bad", { detail: "prompt" });
    })(get(), {});
    expect(res.status).toBe(400);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toEqual({
      error: {
        message: "prompt: bad",
        type: "invalid_request_error",
        param: "prompt",
        code: "invalid_request",
        detail: "prompt",
      },
      request_id: res.headers.get("x-request-id"),
    });
  });

  it("maps an unknown error to a generic 500 internal_error with a request id and no trace of its message", async () => {
    const res = await handleRoute(async () => {
      throw new Error("secret internals at /srv/app/server/x.ts:12");
    })(get(), {});
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(text).not.toMatch(/secret|\/srv|\.ts|stack/);
    const body = JSON.parse(text) as Record<string, unknown>;
    expect(body).toEqual({
      error: { message: "internal error", type: "server_error", param: null, code: "internal_error" },
      request_id: res.headers.get("x-request-id"),
    });
    expect(body.request_id).toMatch(UUID);
  });

  it("maps a thrown non-Error value to the same generic 500", async () => {
    const res = await handleRoute(async () => {
      throw "a bare string with a password=hunter2";
    })(get(), {});
    expect(res.status).toBe(500);
    expect(await res.text()).not.toContain("hunter2");
  });
});
