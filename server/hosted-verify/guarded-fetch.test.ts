import http from "node:http";
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { VerifierFetchError } from "../verify";
import { createGuardedFetch, isBlockedAddress, MAX_RESPONSE_BYTES } from "./guarded-fetch";

describe("isBlockedAddress()", () => {
  it.each([
    ["127.0.0.1", "IPv4 loopback"],
    ["127.1.2.3", "the rest of 127/8"],
    ["10.0.0.1", "private 10/8"],
    ["172.16.5.4", "private 172.16/12"],
    ["172.31.255.255", "the top of 172.16/12"],
    ["192.168.1.1", "private 192.168/16"],
    ["169.254.169.254", "the cloud metadata address"],
    ["100.64.0.1", "carrier-grade NAT"],
    ["0.0.0.0", "the unspecified IPv4 address"],
    ["224.0.0.1", "multicast"],
    ["::1", "IPv6 loopback"],
    ["::", "the unspecified IPv6 address"],
    ["fe80::1", "IPv6 link-local"],
    ["FE80::1", "IPv6 link-local in capitals"],
    ["fe80::1%eth0", "IPv6 link-local with a zone id"],
    ["fc00::1", "IPv6 unique-local"],
    ["fd00:ec2::254", "the AWS IPv6 metadata address"],
    ["::ffff:127.0.0.1", "IPv4-mapped loopback"],
    ["::ffff:7f00:1", "IPv4-mapped loopback in hex (how new URL() writes it)"],
    ["::ffff:10.0.0.1", "IPv4-mapped private"],
    ["::ffff:a00:1", "IPv4-mapped private in hex"],
    ["64:ff9b::10.0.0.1", "NAT64 of a private address"],
    ["64:ff9b::a00:1", "NAT64 of a private address in hex (how new URL() writes it)"],
    ["64:ff9b::7f00:1", "NAT64 of loopback"],
    ["::127.0.0.1", "IPv4-compatible loopback"],
    ["2002:a00:1::", "6to4 of a private address"],
  ])("blocks %s (%s)", (address) => {
    expect(isBlockedAddress(address)).toBe(true);
  });

  it.each([
    ["fec0::1", "deprecated IPv6 site-local (fec0::/10)"],
    ["feff:ffff::1", "the top of fec0::/10"],
    ["::ffff:0:7f00:1", "IPv4-translated loopback (::ffff:0:0:0/96)"],
    ["::ffff:0:808:808", "IPv4-translated, even of a public address (::ffff:0:0:0/96)"],
    ["2001:0:4136:e378:8000:63bf:3fff:fdd2", "Teredo (2001::/32), which tunnels to an address it hides"],
    ["2001::1", "the start of Teredo (2001::/32)"],
    ["100::1", "the IPv6 discard prefix (100::/64)"],
    ["100::ffff:ffff:ffff:ffff", "the top of 100::/64"],
  ])("blocks %s (%s)", (address) => {
    expect(isBlockedAddress(address)).toBe(true);
  });

  it.each([
    "8.8.8.8",
    "1.1.1.1",
    "172.32.0.1",
    "2606:4700::1111",
    "::ffff:8.8.8.8",
    "64:ff9b::808:808",
    "2001:4860:4860::8888",
    "100:0:0:1::1",
    "fe00::1",
  ])("allows the public address %s", (address) => {
    expect(isBlockedAddress(address)).toBe(false);
  });

  it.each(["not-an-ip", "", "localhost", "127.0.0.1.evil.example", "999.1.1.1", "[::1]"])(
    "rejects malformed input %j by blocking it",
    (address) => {
      expect(isBlockedAddress(address)).toBe(true);
    },
  );
});

describe("createGuardedFetch()", () => {
  // A real local server. Requests the guard refuses must never reach it: `hits` records every request it serves.
  let server: http.Server;
  let port: number;
  const hits: { method?: string; url?: string; body: string }[] = [];
  // A raw TCP server for answers node:http would never write (status 999).
  let raw: net.Server;
  let rawPort: number;

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      let body = "";
      req.on("data", (c: Buffer) => (body += c.toString()));
      req.on("end", () => {
        hits.push({ method: req.method, url: req.url, body });
        if (req.url === "/redirect")
          return res.writeHead(302, { location: "http://169.254.169.254/latest/meta-data/" }).end();
        if (req.url === "/huge") return res.end(Buffer.alloc(MAX_RESPONSE_BYTES + 10));
        if (req.url === "/slow") return setTimeout(() => res.end("{}"), 10_000);
        res
          .writeHead(200, { "content-type": "application/json", "x-served-by": "test" })
          .end(JSON.stringify({ method: req.method, echo: body }));
      });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    port = (server.address() as net.AddressInfo).port;

    raw = net.createServer((socket) => {
      socket.once("data", () =>
        socket.end("HTTP/1.1 999 Whatever\r\ncontent-length: 2\r\nconnection: close\r\n\r\n{}"),
      );
    });
    await new Promise<void>((r) => raw.listen(0, "127.0.0.1", r));
    rawPort = (raw.address() as net.AddressInfo).port;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
    await new Promise<void>((r) => raw.close(() => r()));
  });

  const closed = createGuardedFetch({ allowPrivateNetworks: false });
  const open = createGuardedFetch({ allowPrivateNetworks: true });

  it.each([
    ["127.0.0.1", (p: number) => `http://127.0.0.1:${p}/x`],
    ["localhost", (p: number) => `http://localhost:${p}/x`],
    ["[::ffff:127.0.0.1]", (p: number) => `http://[::ffff:127.0.0.1]:${p}/x`],
    ["[::1]", (p: number) => `http://[::1]:${p}/x`],
    ["2130706433 (127.0.0.1 as one number)", (p: number) => `http://2130706433:${p}/x`],
    ["[64:ff9b::127.0.0.1]", (p: number) => `http://[64:ff9b::127.0.0.1]:${p}/x`],
  ])("refuses %s when private networks are not allowed, without sending anything", async (_host, url) => {
    const before = hits.length;
    const err = await closed(url(port)).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(VerifierFetchError);
    expect((err as VerifierFetchError).reason).toBe("fetch_refused");
    expect(hits.length).toBe(before);
  });

  it("fetches from 127.0.0.1 when private networks are allowed: status, headers and JSON body", async () => {
    const res = await open(`http://127.0.0.1:${port}/get`);
    expect(res.status).toBe(200);
    expect(res.headers.get("x-served-by")).toBe("test");
    expect(await res.json()).toEqual({ method: "GET", echo: "" });
  });

  it("fetches from localhost when private networks are allowed", async () => {
    const res = await open(`http://localhost:${port}/get`);
    expect(res.status).toBe(200);
  });

  it("delivers a POST body and its headers", async () => {
    const res = await open(`http://127.0.0.1:${port}/rpc`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: '{"a":1}',
    });
    expect(await res.json()).toEqual({ method: "POST", echo: '{"a":1}' });
    expect(hits.at(-1)).toMatchObject({ method: "POST", url: "/rpc", body: '{"a":1}' });
  });

  it.each([
    ["a file: URL", "file:///etc/passwd"],
    ["an ftp: URL", "ftp://example.com/x"],
    ["a URL with credentials", "http://user:pw@example.com/"],
    ["a URL with a user name only", "http://user@example.com/"],
    ["a string that is not a URL", "not a url"],
    ["an empty string", ""],
  ])("rejects malformed or unsafe input: %s", async (_label, url) => {
    const err = await open(url).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(VerifierFetchError);
    expect((err as VerifierFetchError).reason).toBe("fetch_refused");
  });

  it("returns a redirect as it is instead of following it", async () => {
    const before = hits.length;
    const res = await open(`http://127.0.0.1:${port}/redirect`);
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("http://169.254.169.254/latest/meta-data/");
    expect(hits.slice(before).map((h) => h.url)).toEqual(["/redirect"]);
  });

  it("refuses an answer larger than MAX_RESPONSE_BYTES", async () => {
    await expect(open(`http://127.0.0.1:${port}/huge`)).rejects.toMatchObject({
      name: "VerifierFetchError",
      reason: "fetch_refused",
    });
  });

  it("refuses an answer whose HTTP status a Response cannot hold, instead of throwing out of an event handler", async () => {
    await expect(open(`http://127.0.0.1:${rawPort}/`)).rejects.toMatchObject({
      name: "VerifierFetchError",
      reason: "fetch_refused",
    });
  });

  it("stops waiting when its AbortSignal fires", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const started = Date.now();
    await expect(open(`http://127.0.0.1:${port}/slow`, { signal: controller.signal })).rejects.toMatchObject({
      name: "AbortError",
    });
    // Well before the slow answer, however loaded the machine.
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
