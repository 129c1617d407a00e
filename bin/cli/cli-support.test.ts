import { describe, expect, it } from "vitest";
import {
  closestMatch,
  defaultEndpoint,
  editDistance,
  fetchFailureReason,
  resolveEndpoint,
  serviceDidNotAnswer,
  UsageError,
} from "./cli-support";

describe("defaultEndpoint()", () => {
  it("takes SIGNET_ENDPOINT, else SERVICE_BASE_URL, else http://localhost:$PORT, else port 3000", () => {
    const all = { SIGNET_ENDPOINT: "http://a.example:1/", SERVICE_BASE_URL: "https://b.example", PORT: "4100" };
    expect(defaultEndpoint(all)).toBe("http://a.example:1");
    expect(defaultEndpoint({ ...all, SIGNET_ENDPOINT: "" })).toBe("https://b.example");
    expect(defaultEndpoint({ PORT: "4100" })).toBe("http://localhost:4100");
    expect(defaultEndpoint({})).toBe("http://localhost:3000");
  });

  it("rejects malformed input: a variable that is not an http(s) URL or a port, naming the variable", () => {
    expect(() => defaultEndpoint({ SIGNET_ENDPOINT: "localhost:3000" })).toThrow(
      /SIGNET_ENDPOINT must be an http\(s\) URL/,
    );
    expect(() => defaultEndpoint({ SERVICE_BASE_URL: "not a url" })).toThrow(/SERVICE_BASE_URL is not a URL/);
    expect(() => defaultEndpoint({ PORT: "70000" })).toThrow(UsageError);
    expect(() => resolveEndpoint("ftp://x.example")).toThrow(/--endpoint must be an http\(s\) URL/);
  });
});

describe("closestMatch()", () => {
  const options = ["--network", "--endpoint", "--keypair", "--rpc", "--stream", "--save", "--help"];
  it("suggests the option a slip or a swap of two letters came from, or the one a prefix starts", () => {
    expect(closestMatch("--netwrok", options)).toBe("--network");
    expect(closestMatch("--endpiont", options)).toBe("--endpoint");
    expect(closestMatch("--rcp", options)).toBe("--rpc");
    expect(closestMatch("--end", options)).toBe("--endpoint");
    expect(closestMatch("chta", ["chat", "verify", "log"])).toBe("chat");
  });

  it("suggests nothing for a word close to none", () => {
    expect(closestMatch("--frobnicate", options)).toBeNull();
    expect(closestMatch("frobnicate", ["chat", "verify", "log"])).toBeNull();
  });

  it("counts a swap of neighbours as one edit", () => {
    expect(editDistance("ab", "ba")).toBe(1);
    expect(editDistance("kitten", "sitting")).toBe(3);
    expect(editDistance("", "abc")).toBe(3);
  });
});

describe("serviceDidNotAnswer()", () => {
  const refused = Object.assign(new TypeError("fetch failed"), {
    cause: Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:3000"), { code: "ECONNREFUSED" }),
  });
  it("names the service and why it did not answer, with the dev hint for a local one", () => {
    expect(serviceDidNotAnswer("http://localhost:3000", refused).message).toBe(
      "the service at http://localhost:3000 did not answer (connection refused): is `npm run dev` running?",
    );
    expect(serviceDidNotAnswer("https://signet.example", new DOMException("t", "TimeoutError"), 5_000).message).toBe(
      "the service at https://signet.example did not answer (timed out after 5 s): is the URL right and the service up?",
    );
  });

  it("reads undici's causes: host not found, connect timeout, an aggregate of refused addresses", () => {
    expect(fetchFailureReason(Object.assign(new TypeError("fetch failed"), { cause: { code: "ENOTFOUND" } }))).toBe(
      "host not found",
    );
    expect(
      fetchFailureReason(Object.assign(new TypeError("fetch failed"), { cause: { code: "UND_ERR_CONNECT_TIMEOUT" } })),
    ).toBe("timed out");
    expect(
      fetchFailureReason(
        Object.assign(new TypeError("fetch failed"), {
          cause: { errors: [{ code: "ECONNREFUSED" }, { code: "ECONNREFUSED" }] },
        }),
      ),
    ).toBe("connection refused");
  });
});
