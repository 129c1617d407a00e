import { afterEach, describe, expect, it } from "vitest";
import { toErrorBody } from "./errors";
import { log } from "./log";

const quietLevel = log.level;
afterEach(() => {
  log.level = quietLevel;
});

describe("toErrorBody()", () => {
  it("answers a frozen unknown error (kit's RPC errors are frozen) with the generic 500, logging it", () => {
    log.level = "error";
    const out = toErrorBody(Object.freeze(new Error("rpc said no")), "req-1");
    expect(out.status).toBe(500);
    expect(out.body).toEqual({ error: "internal_error", message: "internal error", request_id: "req-1" });
  });

  it("answers a thrown non-error (a string) with the generic 500", () => {
    expect(toErrorBody("boom").status).toBe(500);
  });
});
