// A JSON-RPC proxy in front of anvil that plays a real Base RPC's failures from a seeded fault profile: HTTP 429 and
// 503 and timeouts, raw transactions that are answered with their hash but dropped or held back, and reorgs of depth
// 1 or 2 after new blocks (anvil_reorg). The harness's own set-up calls go to anvil directly and meet no fault.
import "server-only";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { keccak256, type Hex } from "viem";
import type { FaultDice } from "../localnet/fault-profile";
import { readJsonRpcBody } from "../../server/chain/read-json-rpc-body";

/** Largest request body forwarded, bytes. */
/** How often the reorg watcher looks for new blocks, ms (Base makes one every 2 s). */
const REORG_POLL_MS = 100;

export interface FaultProxy {
  url: string;
  close(): Promise<void>;
}

async function anvilCall(upstream: string, method: string, params: unknown[]): Promise<unknown> {
  const res = await fetch(upstream, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  const body = (await res.json()) as { result?: unknown; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result;
}

/** Starts the proxy on `host:port` (0 = a free port), forwarding to anvil at `upstream`. */
export async function startFaultProxy(
  upstream: string,
  dice: FaultDice,
  host: string,
  port: number,
): Promise<FaultProxy> {
  const timers = new Set<NodeJS.Timeout>();
  const later = (ms: number, fn: () => void) => {
    const t = setTimeout(() => {
      timers.delete(t);
      fn();
    }, ms);
    timers.add(t);
  };

  /** Answers one request, dropping or delaying raw transactions as the dice say. */
  const handle = async (request: { id?: unknown; method?: unknown; params?: unknown }): Promise<unknown> => {
    if (
      request.method === "eth_sendRawTransaction" &&
      Array.isArray(request.params) &&
      typeof request.params[0] === "string"
    ) {
      const raw = request.params[0] as Hex;
      const fate = dice.sendFate();
      // SECURITY: the hash answered is the transaction's real hash, so a client cannot tell a dropped send from one
      // still pending: exactly what it meets on a real chain.
      if (fate.kind === "drop") return { jsonrpc: "2.0", id: request.id ?? null, result: keccak256(raw) };
      if (fate.kind === "delay") {
        later(fate.delayMs, () => void anvilCall(upstream, "eth_sendRawTransaction", [raw]).catch(() => undefined));
        return { jsonrpc: "2.0", id: request.id ?? null, result: keccak256(raw) };
      }
    }
    const res = await fetch(upstream, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(request),
    });
    return res.json();
  };

  const server = http.createServer((req, res) => {
    if (req.method !== "POST") return void res.writeHead(405).end();
    readJsonRpcBody(req, res, async (parsed) => {
      const requests = Array.isArray(parsed) ? parsed : [parsed];
      const fate = dice.httpFate(requests.map((r) => String((r as { method?: unknown })?.method ?? "?")).join(","));
      if (fate.kind === "429")
        return void res
          .writeHead(429, { "retry-after": String(dice.profile.retryAfterSec), "content-type": "text/plain" })
          .end("Too Many Requests");
      if (fate.kind === "503")
        return void res.writeHead(503, { "content-type": "text/plain" }).end("Service Unavailable");
      let answer: unknown;
      try {
        answer = Array.isArray(parsed)
          ? await Promise.all(parsed.map((r) => handle(r as never)))
          : await handle(parsed as never);
      } catch {
        return void res.writeHead(502, { "content-type": "text/plain" }).end("Bad Gateway");
      }
      // A timed-out request still took effect upstream; only its answer is lost.
      if (fate.kind === "timeout") return later(dice.profile.timeoutHoldMs, () => res.destroy());
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(answer));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, resolve);
  });

  // Reorgs: after each new block, the dice may roll back its last 1 or 2 blocks and mine empty replacements.
  let lastSeen = -1;
  let stopped = false;
  const watchReorgs = async () => {
    if (stopped) return;
    try {
      const head = Number(await anvilCall(upstream, "eth_blockNumber", []));
      for (let n = Math.max(lastSeen + 1, 1); n <= head; n++) {
        const depth = dice.reorgAfterBlock(n);
        if (depth > 0 && head >= depth) await anvilCall(upstream, "anvil_reorg", [depth, []]);
      }
      lastSeen = Math.max(lastSeen, head);
    } catch {
      // anvil stopping under us: the next round (if any) tries again.
    }
    if (!stopped) later(REORG_POLL_MS, () => void watchReorgs());
  };
  if (dice.profile.reorgRate > 0) {
    lastSeen = Number(await anvilCall(upstream, "eth_blockNumber", []));
    later(REORG_POLL_MS, () => void watchReorgs());
  }

  const actual = (server.address() as AddressInfo).port;
  return {
    url: `http://${host.includes(":") ? `[${host}]` : host}:${actual}`,
    close: () =>
      new Promise<void>((resolve) => {
        stopped = true;
        for (const t of timers) clearTimeout(t);
        timers.clear();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
