// The per-IP grant cap through the real custom server (server/http/front-server.ts, what bin/start/serve-next.ts puts in
// front of Next) over HTTP: what a client writes in X-Forwarded-For, or in the peer-address header itself, never
// changes the IP a request is counted under; only configured proxy hops are read from X-Forwarded-For.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { utf8ToBytes } from "@noble/hashes/utils.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET as challengeRoute } from "@/app/api/v1/grants/challenge/route";
import { POST as grantRoute } from "@/app/api/v1/grants/route";
import { createFrontServer } from "../../http/front-server";
import { PEER_ADDRESS_HEADER } from "../../http/peer-address";
import { generateKeypair, type Ed25519Keypair } from "../../keys/parse-secret-key";
import { signDetached } from "../../receipts/sign-receipt";
import { withEnv } from "../support/env";
import { startDbStack, type DbStack } from "../support/db-stack";
import { answerWithRoute } from "../support/route-adapter";

let stack: DbStack;
let server: http.Server;
let port: number;
// One keep-alive connection: every request below arrives on the same socket.
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

beforeAll(async () => {
  stack = await startDbStack({ SERVICE_GRANT_MAX_PER_IP: "3", SERVICE_GRANT_BUDGET_DAILY_USDC: "100" });
  // Stands in for Next's request handler: the same route modules, reached after the custom server stamped the peer.
  server = createFrontServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const path = (req.url ?? "/").split("?")[0];
      const route =
        path === "/api/v1/grants/challenge"
          ? (r: Request) => challengeRoute(r, {})
          : path === "/api/v1/grants"
            ? (r: Request) => grantRoute(r, {})
            : null;
      if (!route) return void res.writeHead(404).end();
      void answerWithRoute(route, req, Buffer.concat(chunks), res);
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  agent.destroy();
  server?.closeAllConnections();
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  await stack?.close();
});

function send(
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; json: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port, method, path, headers, agent }, (res) => {
      let text = "";
      res.on("data", (c: Buffer) => (text += c.toString()));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(text) as Record<string, unknown> }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

async function claimWithSpoofedHeaders(kp: Ed25519Keypair, i: number): Promise<number> {
  const spoofed = { "x-forwarded-for": `203.0.113.${i + 1}`, [PEER_ADDRESS_HEADER]: `198.51.100.${i + 1}` };
  const issued = await send("GET", `/api/v1/grants/challenge?agent_pubkey=${kp.publicKeyBase58}`, spoofed);
  expect(issued.status).toBe(200);
  const challenge = issued.json.challenge as string;
  const body = JSON.stringify({
    agent_pubkey: kp.publicKeyBase58,
    challenge,
    signature: signDetached(utf8ToBytes(challenge), kp),
  });
  return (await send("POST", "/api/v1/grants", { ...spoofed, "content-type": "application/json" }, body)).status;
}

describe("the grant per-IP cap over HTTP through the custom server", () => {
  it("counts 8 claims with distinct spoofed X-Forwarded-For and peer-address values from one connection as one IP: 3 granted of 8", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) statuses.push(await claimWithSpoofedHeaders(generateKeypair(), i));
    expect(statuses.filter((s) => s === 200)).toHaveLength(3);
    expect(statuses.filter((s) => s === 429)).toHaveLength(5);
    const hashes = await stack.tdb.prisma.grant.groupBy({ by: ["ipHash"], _count: { _all: true } });
    expect(hashes).toEqual([{ ipHash: expect.any(String), _count: { _all: 3 } }]);
  });

  it("reads X-Forwarded-For only through TRUSTED_PROXY_HOPS, counted from the right", async () => {
    await withEnv({ TRUSTED_PROXY_HOPS: "1" }, async () => {
      // Behind one proxy, the proxy's appended entry (the rightmost) is the client; what the client wrote before it is not.
      const kp = generateKeypair();
      const issued = await send("GET", `/api/v1/grants/challenge?agent_pubkey=${kp.publicKeyBase58}`, {
        "x-forwarded-for": "192.0.2.1, 100.64.9.9",
      });
      const challenge = issued.json.challenge as string;
      const body = JSON.stringify({
        agent_pubkey: kp.publicKeyBase58,
        challenge,
        signature: signDetached(utf8ToBytes(challenge), kp),
      });
      const claimed = await send(
        "POST",
        "/api/v1/grants",
        { "x-forwarded-for": "192.0.2.1, 100.64.9.9", "content-type": "application/json" },
        body,
      );
      expect(claimed.status).toBe(200);
      const hashes = await stack.tdb.prisma.grant.groupBy({ by: ["ipHash"], _count: { _all: true } });
      expect(hashes).toHaveLength(2);
    });
  });
});
