import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type LocalServer } from "../../../server/test/verify/local-servers";
import { SOLANA_DEVNET_CAIP2 } from "../../../server/verify/networks";
import {
  advertisedRpc,
  isLoopbackAddressUrl,
  isLoopbackService,
  trustAdvertisedRpc,
  type AdvertisedRpc,
} from "./advertised-rpc";

const named = (rpc: string, source = "http://127.0.0.1:3000/.well-known/x402"): AdvertisedRpc => ({
  ok: true,
  rpc,
  source,
});

describe("isLoopbackService()", () => {
  it.each([
    ["http://127.0.0.1:3000", "IPv4 loopback"],
    ["http://127.1.2.3:8080/prefix", "the rest of 127.0.0.0/8"],
    ["http://127.1:3000", "127.0.0.1 in short form (the URL parser writes 127.0.0.1)"],
    ["http://[::1]:3000", "IPv6 loopback"],
    ["http://[0:0:0:0:0:0:0:1]:3000", "IPv6 loopback written out (the URL parser writes [::1])"],
    ["http://localhost:3000", "the name localhost exactly"],
    ["https://LOCALHOST", "localhost in capitals"],
  ])("takes a service at %s (%s)", (endpoint) => {
    expect(isLoopbackService(endpoint)).toBe(true);
  });

  it.each([
    ["http://evil.localhost:3000", "a subdomain of localhost: a resolver may hand it to DNS"],
    ["http://app.localhost", "another subdomain of localhost"],
    ["http://localhost.:3000", "localhost as an absolute DNS name"],
    ["http://localhost.example.com", "a name that starts like localhost"],
    ["http://127.0.0.1.nip.io:3000", "a name that starts like a loopback address"],
    ["http://127.0.0.1@evil.example", "a loopback address as user info"],
    ["http://[::ffff:127.0.0.1]:3000", "IPv4-mapped IPv6"],
    ["http://0.0.0.0:3000", "the unspecified address"],
    ["http://10.0.0.2:3000", "a private address"],
    ["https://signet.example", "a public name"],
  ])("refuses a service at %s (%s)", (endpoint) => {
    expect(isLoopbackService(endpoint)).toBe(false);
  });

  it("rejects malformed input: not a URL, or not http(s)", () => {
    for (const bad of ["", "127.0.0.1:3000", "not a url", "ftp://127.0.0.1", "file:///tmp/x"])
      expect(isLoopbackService(bad), bad).toBe(false);
  });
});

describe("isLoopbackAddressUrl()", () => {
  it("takes an http(s) URL to 127.0.0.0/8 or [::1], and refuses every name, localhost included", () => {
    for (const rpc of ["http://127.0.0.1:8899", "https://127.9.9.9", "http://[::1]:8545"])
      expect(isLoopbackAddressUrl(rpc), rpc).toBe(true);
    for (const rpc of [
      "http://localhost:8899",
      "http://evil.localhost:8899",
      "https://api.devnet.solana.com",
      "http://10.0.0.1:8899",
      "ws://127.0.0.1:8900",
      "not a url",
    ]) {
      expect(isLoopbackAddressUrl(rpc), rpc).toBe(false);
    }
  });
});

describe("trustAdvertisedRpc()", () => {
  it("takes a loopback RPC named by a service at a loopback address or at localhost", () => {
    expect(trustAdvertisedRpc("http://127.0.0.1:3000", named("http://127.0.0.1:8899"))).toEqual({
      ok: true,
      rpc: "http://127.0.0.1:8899",
      source: "http://127.0.0.1:3000/.well-known/x402",
    });
    expect(trustAdvertisedRpc("http://[::1]:3000", named("http://[::1]:8545"))).toMatchObject({
      ok: true,
      rpc: "http://[::1]:8545",
    });
    expect(trustAdvertisedRpc("http://localhost:3000", named("http://127.0.0.1:8899"))).toMatchObject({ ok: true });
  });

  it("refuses whatever a service at a name other than localhost names, a subdomain of localhost included", () => {
    for (const endpoint of ["http://evil.localhost:3000", "http://127.0.0.1.nip.io:3000", "https://signet.example"]) {
      expect(
        trustAdvertisedRpc(endpoint, named("http://127.0.0.1:8899", `${endpoint}/.well-known/x402`)),
        endpoint,
      ).toEqual({ ok: false, reason: "service_not_loopback" });
    }
  });

  it("refuses an RPC that is not at a loopback address, even from a service at 127.0.0.1", () => {
    for (const rpc of [
      "https://rpc.evil.example",
      "http://10.0.0.1:8899",
      "http://localhost:8899",
      "http://rpc.localhost:8899",
      "http://127.0.0.1.nip.io:8899",
    ]) {
      expect(trustAdvertisedRpc("http://127.0.0.1:3000", named(rpc)), rpc).toEqual({
        ok: false,
        reason: "rpc_not_loopback",
      });
    }
  });

  it("refuses an answer that was a redirect, and passes on a document that named none", () => {
    const source = "http://127.0.0.1:3000/.well-known/x402";
    expect(
      trustAdvertisedRpc("http://127.0.0.1:3000", {
        ok: false,
        reason: "redirected",
        source,
        status: 302,
        location: "http://127.0.0.1:4000/.well-known/x402",
      }),
    ).toEqual({ ok: false, reason: "redirected" });
    expect(trustAdvertisedRpc("http://127.0.0.1:3000", { ok: false, reason: "none_named", source })).toEqual({
      ok: false,
      reason: "none_named",
    });
  });
});

describe("advertisedRpc()", () => {
  const document = JSON.stringify({ networks: [{ network: SOLANA_DEVNET_CAIP2, rpc: "http://127.0.0.1:8899" }] });
  let elsewhere: LocalServer;
  let redirecting: LocalServer;
  beforeAll(async () => {
    elsewhere = await startServer((_req, _body, res) =>
      res.writeHead(200, { "content-type": "application/json" }).end(document),
    );
    redirecting = await startServer((req, _body, res) =>
      res.writeHead(302, { location: `${elsewhere.url}${req.url}` }).end(),
    );
  });
  afterAll(async () => {
    await redirecting?.close();
    await elsewhere?.close();
  });

  it("reads the RPC a service names for the receipt's network, in any spelling of its Solana cluster", async () => {
    expect(await advertisedRpc(elsewhere.url, "solana:devnet", fetch)).toEqual({
      ok: true,
      rpc: "http://127.0.0.1:8899",
      source: `${elsewhere.url}/.well-known/x402`,
    });
  });

  it("does not follow a redirect, even to a loopback URL: the answer is `redirected`, and its target is never asked", async () => {
    const before = elsewhere.hits.length;
    expect(await advertisedRpc(redirecting.url, SOLANA_DEVNET_CAIP2, fetch)).toEqual({
      ok: false,
      reason: "redirected",
      source: `${redirecting.url}/.well-known/x402`,
      status: 302,
      location: `${elsewhere.url}/.well-known/x402`,
    });
    expect(elsewhere.hits.length).toBe(before);
  });
});
