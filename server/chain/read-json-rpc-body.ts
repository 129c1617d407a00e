// The request side of our local JSON-RPC servers (the Solana localnet and the anvil fault proxy): a POST body read up
// to a size limit and parsed as JSON, answered -32700 when it is not JSON, as a real node answers.
import "server-only";
import type http from "node:http";

/** Largest JSON-RPC request body accepted; a larger one is cut off without an answer. */
const MAX_JSON_RPC_BODY_BYTES = 2_000_000;

/** The JSON-RPC answer to a body that is not JSON. */
const PARSE_ERROR = { jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } } as const;

/**
 * Reads the request's body and calls `handle` with it parsed, or with PARSE_ERROR answered for it when it is not JSON.
 * An oversized body destroys the request, and `handle` is never called.
 */
export function readJsonRpcBody(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  handle: (parsed: unknown) => Promise<void>,
): void {
  const chunks: Buffer[] = [];
  let size = 0;
  req.on("data", (c: Buffer) => {
    size += c.length;
    if (size > MAX_JSON_RPC_BODY_BYTES) req.destroy();
    else chunks.push(c);
  });
  req.on("end", () => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    } catch {
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(PARSE_ERROR));
      return;
    }
    void handle(parsed);
  });
}
