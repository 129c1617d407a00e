import { gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { acceptsGzip, bytesResponse } from "./encode-bytes-response";

describe("acceptsGzip()", () => {
  it.each([
    ["gzip", true],
    ["gzip, deflate, br", true],
    ["br;q=1.0, GZIP;q=0.5", true],
    ["x-gzip", true],
    ["*", true],
    ["identity", false],
    ["gzip;q=0", false],
    ["gzip;q=0.000", false],
    ["*;q=0.2, gzip;q=0", false],
    ["deflate, br", false],
  ])("reads %j as %s", (header, expected) => {
    expect(acceptsGzip(header)).toBe(expected);
  });

  it("rejects malformed input: no header, an empty one, or an unparseable q-value", () => {
    expect(acceptsGzip(null)).toBe(false);
    expect(acceptsGzip("")).toBe(false);
    expect(acceptsGzip("gzip;q=lots")).toBe(false);
    expect(acceptsGzip("gzip;q=2")).toBe(false);
  });
});

describe("bytesResponse()", () => {
  const bytes = new Uint8Array(4096).map((_, i) => i % 7);
  const headers = {
    "content-type": "application/octet-stream",
    "cache-control": "public, max-age=31536000, immutable",
  };

  it("gzip-encodes for a request that takes gzip, with Vary: Accept-Encoding", async () => {
    const res = await bytesResponse(
      new Request("http://x/log/tile/0/000", { headers: { "accept-encoding": "gzip, br" } }),
      bytes,
      headers,
    );
    expect(res.headers.get("content-encoding")).toBe("gzip");
    expect(res.headers.get("vary")).toBe("Accept-Encoding");
    expect(res.headers.get("cache-control")).toBe(headers["cache-control"]);
    expect(new Uint8Array(gunzipSync(Buffer.from(await res.arrayBuffer())))).toEqual(bytes);
  });

  it("answers identity, still with Vary: Accept-Encoding, to a request that does not", async () => {
    const res = await bytesResponse(
      new Request("http://x/log/tile/0/000", { headers: { "accept-encoding": "gzip;q=0" } }),
      bytes,
      headers,
    );
    expect(res.headers.get("content-encoding")).toBeNull();
    expect(res.headers.get("vary")).toBe("Accept-Encoding");
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(bytes);
  });

  it("answers identity under Next's route pipeline (a request with nextUrl), which would drop Content-Encoding", async () => {
    const req = Object.assign(new Request("http://x/log/tile/0/000", { headers: { "accept-encoding": "gzip" } }), {
      nextUrl: new URL("http://x/log/tile/0/000"),
    });
    const res = await bytesResponse(req, bytes, headers);
    expect(res.headers.get("content-encoding")).toBeNull();
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(bytes);
  });
});
