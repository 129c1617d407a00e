// The receipt log's edges over HTTP, served as the production front server serves the log's read routes (their real
// route handlers reached through directHandler and serveFetchRoute, outside Next's pipeline): an empty log answers a
// signed checkpoint of size 0 with the empty tree's root (RFC 6962: SHA-256 of no bytes); tiles and entry bundles are
// gzip-encoded exactly when Accept-Encoding takes gzip, with Vary: Accept-Encoding; partial tiles are cached as
// immutable like full ones; and no answer carries Next's `Vary: rsc, …`.
import { logIdentity } from "../support/env";
import { randomUUID } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { attachReceipt } from "../../ledger/attach-receipt";
import { operatorKeypair } from "../support/env";
import { buildReceipt } from "../../receipts/build-receipt";
import { signReceipt } from "../../receipts/sign-receipt";
import { DIRECT_LOG_ROUTES, directHandler, type RouteHandler } from "../../http/direct-api-routes";
import { serveFetchRoute } from "../../http/serve-fetch-route";
import { publishAll } from "../support/publish-all";
import { decodeEntryBundle, EMPTY_ROOT, leafHash, openCheckpoint, rootOfLeaves, splitTile } from "../../verify";
import { startDbStack, type DbStack } from "../support/db-stack";
import { createLogger } from "../../log";

/** Where this file's own sequencer rounds log: nowhere. */
const quietLog = createLogger("silent");

const APP_DIR = path.resolve(import.meta.dirname, "../../../app");

let stack: DbStack;
let server: http.Server;
let port: number;

beforeAll(async () => {
  stack = await startDbStack({ SERVICE_BASE_URL: "http://signet.test" });
  // The front server's table of direct routes, from the app's own route modules instead of a build's.
  const routes = new Map<string, Map<string, RouteHandler>>();
  for (const route of DIRECT_LOG_ROUTES) {
    const module = (await import(path.join(APP_DIR, route, "route.ts"))) as Record<string, unknown>;
    routes.set(
      route,
      new Map(
        ["GET", "POST", "OPTIONS"]
          .filter((m) => typeof module[m] === "function")
          .map((m) => [m, module[m] as RouteHandler]),
      ),
    );
  }
  server = http.createServer((req, res) => {
    const route = directHandler(routes, req.method, req.url);
    if (!route) return void res.writeHead(500).end("not a direct log route");
    void serveFetchRoute(route, req, res);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server?.closeAllConnections();
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  await stack?.close();
});

interface RawAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The body as sent on the wire (still gzip-encoded when it was). */
  raw: Buffer;
}

/** A GET with exactly these headers (fetch would add its own Accept-Encoding and decode the body). */
function get(urlPath: string, headers: Record<string, string> = {}): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port, path: urlPath, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, raw: Buffer.concat(chunks) }));
    });
    req.on("error", reject);
    req.end();
  });
}

const logKey = async () =>
  (JSON.parse((await get("/log/key")).raw.toString()) as { verifier_key: string }).verifier_key;

function expectNoNextVary(answer: RawAnswer, what: string): void {
  expect(String(answer.headers.vary ?? ""), `${what} carries no Vary of Next's router`).not.toMatch(/rsc|next-router/i);
}

async function appendReceipts(n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    const id = randomUUID();
    await stack.tdb.prisma.inferenceLog.create({
      data: {
        id,
        agentPubkey: "a",
        network: "n",
        route: "inference",
        model: "local/echo-1",
        upstream: "local",
        costUnits: 1n,
        latencyMs: 1,
        status: "served",
      },
    });
    const receipt = signReceipt(
      buildReceipt({
        agentPubkey: "a",
        upstream: "local",
        model: "local/echo-1",
        costUnits: 1n,
        prompt: { text: `${id} ${"padding ".repeat(40)}` },
        responseText: "r",
        timestampMs: 1,
        inferenceId: id,
        pointsTotal: i + 1,
      }),
      operatorKeypair(),
    );
    await attachReceipt(stack.tdb.prisma, id, receipt);
  }
  await publishAll(stack.tdb.prisma, logIdentity(), quietLog);
}

describe("an empty receipt log", () => {
  it("serves a signed checkpoint of size 0 whose root is the empty tree's, the same to concurrent readers", async () => {
    expect(await stack.tdb.prisma.logCheckpoint.count()).toBe(0);
    const answers = await Promise.all(Array.from({ length: 4 }, () => get("/log/checkpoint")));
    for (const answer of answers) {
      expect(answer.status).toBe(200);
      expect(answer.headers["content-type"]).toBe("text/plain; charset=utf-8");
      expectNoNextVary(answer, "the checkpoint");
    }
    const note = answers[0]!.raw.toString();
    expect(new Set(answers.map((a) => a.raw.toString()))).toEqual(new Set([note]));
    const opened = openCheckpoint(note, { logKey: await logKey() });
    if (!opened.ok) throw new Error(opened.reason);
    expect(opened.checkpoint.size).toBe(0);
    expect(Buffer.from(opened.checkpoint.root).toString("hex")).toBe(
      "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    );
    expect(opened.checkpoint.root).toEqual(EMPTY_ROOT);
    expect(note.split("\n")[1]).toBe("0");
    expect(await stack.tdb.prisma.logCheckpoint.count()).toBe(1);
    const bySize = await get("/log/checkpoints/0");
    expect(bySize.status).toBe(200);
    expect(bySize.raw.toString()).toBe(note);
    // An empty log has no tile yet.
    expect((await get("/log/tile/0/000.p/1")).status).toBe(404);
  });
});

describe("the log's tiles and entry bundles over HTTP", () => {
  const SIZE = 5;
  beforeAll(() => appendReceipts(SIZE));

  it("the checkpoint grows from the empty one", async () => {
    const opened = openCheckpoint((await get("/log/checkpoint")).raw.toString(), { logKey: await logKey() });
    if (!opened.ok) throw new Error(opened.reason);
    expect(opened.checkpoint.size).toBe(SIZE);
    expect((await get("/log/checkpoints/0")).status).toBe(200);
  });

  it.each([`/log/tile/0/000.p/${SIZE}`, `/log/tile/entries/000.p/${SIZE}`])(
    "%s is gzip-encoded when Accept-Encoding takes gzip, identity otherwise",
    async (urlPath) => {
      const identity = await get(urlPath);
      expect(identity.status).toBe(200);
      expect(identity.headers["content-encoding"]).toBeUndefined();
      for (const acceptEncoding of ["gzip", "gzip, deflate, br", "br;q=1, *;q=0.5"]) {
        const gzipped = await get(urlPath, { "accept-encoding": acceptEncoding });
        expect(gzipped.status, acceptEncoding).toBe(200);
        expect(gzipped.headers["content-encoding"], acceptEncoding).toBe("gzip");
        expect(gzipped.headers.vary, acceptEncoding).toBe("Accept-Encoding");
        expect(gunzipSync(gzipped.raw).equals(identity.raw), acceptEncoding).toBe(true);
        expect(gzipped.raw.equals(identity.raw)).toBe(false);
      }
      for (const acceptEncoding of ["identity", "gzip;q=0", "br, deflate"]) {
        const plain = await get(urlPath, { "accept-encoding": acceptEncoding });
        expect(plain.headers["content-encoding"], acceptEncoding).toBeUndefined();
        expect(plain.headers.vary, acceptEncoding).toBe("Accept-Encoding");
        expect(plain.raw.equals(identity.raw), acceptEncoding).toBe(true);
      }
    },
  );

  it("serves bytes that decode to the checkpoint's tree", async () => {
    const opened = openCheckpoint((await get("/log/checkpoint")).raw.toString(), { logKey: await logKey() });
    if (!opened.ok) throw new Error(opened.reason);
    const entries = decodeEntryBundle(
      new Uint8Array(gunzipSync((await get(`/log/tile/entries/000.p/${SIZE}`, { "accept-encoding": "gzip" })).raw)),
    )!;
    expect(rootOfLeaves(entries.map(leafHash))).toEqual(opened.checkpoint.root);
    const level0 = splitTile(
      new Uint8Array(gunzipSync((await get(`/log/tile/0/000.p/${SIZE}`, { "accept-encoding": "gzip" })).raw)),
      SIZE,
    )!;
    expect(level0).toEqual(entries.map(leafHash));
  });

  it("caches a partial tile as immutable, like a full one, and no answer of the log carries Next's Vary", async () => {
    for (const urlPath of [
      `/log/tile/0/000.p/${SIZE}`,
      `/log/tile/entries/000.p/${SIZE}`,
      `/log/tile/0/000.p/${SIZE - 2}`,
    ]) {
      const answer = await get(urlPath, { "accept-encoding": "gzip" });
      expect(answer.headers["cache-control"], urlPath).toBe("public, max-age=31536000, immutable");
      expectNoNextVary(answer, urlPath);
    }
    for (const urlPath of ["/log/checkpoint", `/log/checkpoints/${SIZE}`, "/log/key", "/log/tile/0/999"])
      expectNoNextVary(await get(urlPath, { "accept-encoding": "gzip" }), urlPath);
    // A tile not yet published is a plain 404, cached by nobody.
    const missing = await get(`/log/tile/0/000.p/${SIZE + 1}`, { "accept-encoding": "gzip" });
    expect(missing.status).toBe(404);
    expect(missing.headers["cache-control"]).toBeUndefined();
    expect(JSON.parse(missing.raw.toString())).toMatchObject({ error: { code: "not_found" } });
  });
});
