// One instance of the service for the bench's real-timing run, in its own process: the chat route's real handler behind
// a plain node:http server (as `npm start` serves the paid routes, straight from their handlers), configured by the
// environment, on the database, chain and data dir the bench's stack made. GET /bench/gauges answers the gauges the
// per-second view reads (load-view.ts). Prints `ready <url>` once it listens.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { POST as chat } from "@/app/api/v1/chat/completions/route";
import { routeRuntime } from "../../server/runtime/route-edge";
import { answerWithRoute } from "../../server/test/support/route-adapter";
import { readServiceGauges } from "./load-view";

const runtime = await routeRuntime();
const server = http.createServer((req, res) => {
  if (req.method === "GET" && req.url === "/bench/gauges") {
    void readServiceGauges(runtime.metrics.registry).then((gauges) =>
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(gauges)),
    );
    return;
  }
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => void answerWithRoute((r) => chat(r, {}), req, Buffer.concat(chunks), res));
});
server.keepAliveTimeout = 60_000;
// Stopped by the bench with SIGTERM: exit normally, so a profile asked for with --cpu-prof is written.
process.once("SIGTERM", () => process.exit(0));
server.listen(0, "127.0.0.1", () => {
  process.stdout.write(`ready http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
});
