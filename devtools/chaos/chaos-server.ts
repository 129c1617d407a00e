// The service as a separate process for the chaos suite: the real route handlers (chat, prepaid, operator key) behind
// a plain node:http server, configured by the environment. With SIGNET_CHAOS_CRASH_AT set it SIGKILLs itself at that
// step of a call (server/env/crash-point.ts). Prints `ready <url>` once it listens.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { POST as chat } from "@/app/api/v1/chat/completions/route";
import { POST as inference } from "@/app/api/v1/inference/route";
import { GET as operatorKey } from "@/app/api/v1/operator-key/route";
import { routeRuntime } from "../../server/runtime/route-edge";
import { answerWithRoute } from "../../server/test/support/route-adapter";

await routeRuntime();
const server = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    const route =
      req.url === "/api/v1/operator-key"
        ? (r: Request) => operatorKey(r, {})
        : req.url === "/api/v1/inference"
          ? (r: Request) => inference(r, {})
          : (r: Request) => chat(r, {});
    void answerWithRoute(route, req, Buffer.concat(chunks), res);
  });
});
server.listen(0, "127.0.0.1", () => {
  process.stdout.write(`ready http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
});
