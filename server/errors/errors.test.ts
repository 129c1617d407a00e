import { describe, expect, it } from "vitest";
import { AppError, errorObjectOf, toErrorBody } from "./index";
import { createLogger } from "../log";

/** Where the errors are logged: nowhere, but in the test that logs one for real. */
const QUIET_LOG = createLogger("silent");

describe("toErrorBody()", () => {
  it("answers a frozen unknown error (kit's RPC errors are frozen) with the generic 500, logging it", () => {
    const out = toErrorBody(Object.freeze(new Error("rpc said no")), createLogger("error"), "req-1");
    expect(out.status).toBe(500);
    expect(out.body).toEqual({
      error: { message: "internal error", type: "server_error", param: null, code: "internal_error" },
      request_id: "req-1",
    });
  });

  it("answers a thrown non-error (a string) with the generic 500", () => {
    expect(toErrorBody("boom", QUIET_LOG).status).toBe(500);
  });
});

describe("toErrorBody() body shape (OpenAI's error object, Signet's code in `code`)", () => {
  it("puts an AppError's code, type and details inside `error`, its `detail` as `param`, and the request id beside it", () => {
    const out = toErrorBody(
      new AppError("invalid_request", "messages.0.content: bad", { detail: "messages.0.content", balance_usdc: "1" }),
      QUIET_LOG,
      "req-3",
    );
    expect(out.status).toBe(400);
    expect(out.body).toStrictEqual({
      error: {
        message: "messages.0.content: bad",
        type: "invalid_request_error",
        param: "messages.0.content",
        code: "invalid_request",
        detail: "messages.0.content",
        balance_usdc: "1",
      },
      request_id: "req-3",
    });
    expect(Object.keys(out.body)).toEqual(["error", "request_id"]);
    expect(Object.keys(errorObjectOf(out.body)).slice(0, 4)).toEqual(["message", "type", "param", "code"]);
  });

  it("answers the 500 fallback as a server_error with a null param, and no request_id when none is given", () => {
    const out = toErrorBody(new Error("secret internals"), QUIET_LOG);
    expect(out.status).toBe(500);
    expect(out.body).toStrictEqual({
      error: { message: "internal error", type: "server_error", param: null, code: "internal_error" },
    });
    expect(out.headers).toEqual({});
  });

  it("maps each status to OpenAI's error type", () => {
    const typeOf = (err: AppError) => errorObjectOf(toErrorBody(err, QUIET_LOG).body).type;
    expect(typeOf(new AppError("missing_auth_headers", "m"))).toBe("authentication_error");
    expect(typeOf(new AppError("payment_required", "m"))).toBe("payment_required_error");
    expect(typeOf(new AppError("forbidden", "m"))).toBe("permission_error");
    expect(typeOf(new AppError("rate_limited", "m"))).toBe("rate_limit_error");
    expect(typeOf(new AppError("upstream_error", "m"))).toBe("server_error");
    expect(typeOf(new AppError("payment_replay", "m"))).toBe("invalid_request_error");
  });
});

describe("toErrorBody() for a database that dropped the connection", () => {
  it("answers 503 database_unavailable with Retry-After, not the generic 500", () => {
    const out = toErrorBody(
      Object.assign(new Error("terminating connection due to administrator command"), {
        code: "57P01",
        severity: "FATAL",
      }),
      QUIET_LOG,
      "req-2",
    );
    expect(out.status).toBe(503);
    expect(out.body).toEqual({
      error: {
        message: "the database is unavailable; retry the same request",
        type: "server_error",
        param: null,
        code: "database_unavailable",
      },
      request_id: "req-2",
    });
    expect(Number(out.headers["retry-after"])).toBeGreaterThan(0);
  });
});

describe("param", () => {
  it("names the request field only on a 400: another status's detail (a facilitator's reason) stays in detail", () => {
    expect(
      errorObjectOf(
        toErrorBody(
          new AppError("payment_required", "payment verification failed", {
            detail: "invalid_exact_svm_payload_transaction_simulation_failed",
            reason: "payment_invalid",
          }),
          QUIET_LOG,
        ).body,
      ),
    ).toMatchObject({
      param: null,
      detail: "invalid_exact_svm_payload_transaction_simulation_failed",
    });
    expect(
      errorObjectOf(toErrorBody(new AppError("invalid_signature", "bad", { detail: "the old form" }), QUIET_LOG).body)
        .param,
    ).toBeNull();
    expect(
      errorObjectOf(toErrorBody(new AppError("model_not_allowed", "no", { detail: "model" }), QUIET_LOG).body).param,
    ).toBe("model");
  });
});
