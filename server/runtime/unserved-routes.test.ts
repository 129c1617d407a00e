import { describe, expect, it } from "vitest";
import { allowHeader, apiRouteNotFound, methodsNotAllowed, type HttpMethod } from "./unserved-routes";

describe("allowHeader()", () => {
  it("names HEAD with GET, and OPTIONS always, in a fixed order", () => {
    expect(allowHeader(["GET"])).toBe("GET, HEAD, OPTIONS");
    expect(allowHeader(["DELETE", "POST", "OPTIONS"])).toBe("POST, DELETE, OPTIONS");
  });

  it("rejects malformed input: no method, or one that is not an HTTP method", () => {
    expect(() => allowHeader([])).toThrow(TypeError);
    expect(() => allowHeader(["FETCH" as HttpMethod])).toThrow(TypeError);
  });
});

describe("methodsNotAllowed()", () => {
  it("answers every method the route does not serve with 405 method_not_allowed, Allow and a request id", async () => {
    const refused = methodsNotAllowed(["POST", "OPTIONS"]);
    expect(Object.keys(refused).sort()).toEqual(["DELETE", "GET", "HEAD", "PATCH", "PUT"]);
    const res = await refused.GET(
      new Request("http://x/api/v1/chat/completions", { headers: { "x-request-id": "req-405" } }),
      {},
    );
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("POST, OPTIONS");
    expect(await res.json()).toEqual({
      error: {
        message: "GET is not served here; this path serves POST, OPTIONS",
        type: "invalid_request_error",
        param: null,
        code: "method_not_allowed",
      },
      request_id: "req-405",
    });
  });

  it("leaves HEAD to a GET route (Next answers it from GET)", () => {
    expect(Object.keys(methodsNotAllowed(["GET"])).sort()).toEqual(["DELETE", "PATCH", "POST", "PUT"]);
  });
});

describe("apiRouteNotFound()", () => {
  it("answers 404 not_found in JSON", async () => {
    const res = await apiRouteNotFound(new Request("http://x/api/v1/nope", { method: "POST" }), {});
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({
      error: { message: expect.any(String), type: "invalid_request_error", param: null, code: "not_found" },
      request_id: expect.any(String),
    });
  });
});
