import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFrontServer } from "./front-server";
import { PEER_ADDRESS_HEADER } from "./peer-address";

describe("stampPeerAddress() in the front server", () => {
  let server: http.Server;
  let port: number;
  const seen: { header: unknown; raw: string[] }[] = [];
  beforeAll(async () => {
    server = createFrontServer((req, res) => {
      seen.push({
        header: req.headers[PEER_ADDRESS_HEADER],
        raw: req.rawHeaders.filter((_, i) => i % 2 === 0 && req.rawHeaders[i]!.toLowerCase() === PEER_ADDRESS_HEADER),
      });
      res.end("ok");
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  const get = (headers: http.OutgoingHttpHeaders) =>
    new Promise<void>((resolve, reject) => {
      http.get({ host: "127.0.0.1", port, headers }, (res) => res.resume().on("end", resolve)).on("error", reject);
    });

  it("replaces every client-sent copy of the peer-address header with the socket's own address", async () => {
    await get({ "X-Signet-Peer-Address": ["203.0.113.9", "198.51.100.1"] });
    await get({});
    for (const s of seen) {
      expect(s.header).toBe("127.0.0.1");
      expect(s.raw).toHaveLength(1);
    }
  });
});
