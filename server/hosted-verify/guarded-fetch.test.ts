import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { VerifierFetchError } from "../verify";
import { createGuardedFetch, isBlockedAddress, MAX_RESPONSE_BYTES } from "./guarded-fetch";

describe("isBlockedAddress()", () => {
  it.each([
    "127.0.0.1", "127.1.2.3", "10.0.0.1", "172.16.5.4", "172.31.255.255", "192.168.1.1", "169.254.169.254", "100.64.0.1", "0.0.0.0",
    "::1", "::", "fe80::1", "fc00::1", "fd00:ec2::254", "::ffff:127.0.0.1", "::ffff:10.0.0.1", "64:ff9b::10.0.0.1", "224.0.0.1", "not-an-ip",
  ])("blocks %s", (address) => {
    expect(isBlockedAddress(address)).toBe(true);
  });

  it.each(["8.8.8.8", "1.1.1.1", "172.32.0.1", "2606:4700::1111", "::ffff:8.8.8.8"])("allows public %s", (address) => {
    expect(isBlockedAddress(address)).toBe(false);
  });
});

describe("createGuardedFetch()", () => {
  let server: http.Server;
  let base: string;
  const seen: { method?: string; body: string }[] = [];

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      let body = "";
      req.on("data", (c: Buffer) => (body += c.toString()));
      req.on("end", () => {
        seen.push({ method: req.method, body });
        if (req.url === "/redirect") return res.writeHead(302, { location: "http://169.254.169.254/" }).end();
        if (req.url === "/huge") return res.end(Buffer.alloc(MAX_RESPONSE_BYTES + 10));
        if (req.url === "/slow") return setTimeout(() => res.end("{}"), 2_000);
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ echo: body }));
      });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  const closed = createGuardedFetch({ allowPrivateNetworks: false });
  const open = createGuardedFetch({ allowPrivateNetworks: true });

  it.each(["127.0.0.1", "localhost"])("refuses %s when private networks are not allowed, without sending anything", async (host) => {
    const before = seen.length;
    const err = await closed(`${base.replace("127.0.0.1", host)}/x`).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(VerifierFetchError);
    expect((err as VerifierFetchError).reason).toBe("fetch_refused");
    expect(seen.length).toBe(before);
  });

  it("fetches from loopback when allowed, delivering the POST body", async () => {
    const res = await open(`${base}/rpc`, { method: "POST", headers: { "content-type": "application/json" }, body: '{"a":1}' });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ echo: '{"a":1}' });
    expect(seen.at(-1)?.method).toBe("POST");
  });

  it.each(["file:///etc/passwd", "ftp://example.com/x", "http://user:pw@example.com/", "not a url"])("rejects malformed or unsafe URL %s", async (url) => {
    await expect(open(url)).rejects.toMatchObject({ reason: "fetch_refused" });
  });

  it("does not follow redirects", async () => {
    const res = await open(`${base}/redirect`);
    expect(res.status).toBe(302);
  });

  it("caps oversized answers", async () => {
    await expect(open(`${base}/huge`)).rejects.toMatchObject({ reason: "fetch_refused" });
  });

  it("honours an abort signal", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    await expect(open(`${base}/slow`, { signal: controller.signal })).rejects.toThrow();
  });
});
