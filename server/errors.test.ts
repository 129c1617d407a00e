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

describe("toErrorBody() for a database that dropped the connection", () => {
  it("answers 503 database_unavailable with Retry-After, not the generic 500", () => {
    const out = toErrorBody(Object.assign(new Error("terminating connection due to administrator command"), { code: "57P01", severity: "FATAL" }), "req-2");
    expect(out.status).toBe(503);
    expect(out.body).toEqual({ error: "database_unavailable", message: "the database is unavailable; retry the same request", request_id: "req-2" });
    expect(Number(out.headers["retry-after"])).toBeGreaterThan(0);
  });
});
