// The service as a separate process for the chaos suite: the real route handlers (chat, top-up, operator key) behind
// a plain node:http server, configured by the environment. With SIGNET_CHAOS_CRASH_AT set it SIGKILLs itself at that
// step of the paid flow (server/chaos/crash-point.ts). Prints `ready <url>` once it listens.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { POST as chat } from "@/app/api/v1/chat/completions/route";
import { GET as operatorKey } from "@/app/api/v1/operator-key/route";
import { appContext } from "../../app-context";

await appContext();
const server = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", async () => {
    const request = new Request(`http://127.0.0.1${req.url}`, {
      method: req.method,
      headers: Object.entries(req.headers).filter((e): e is [string, string] => typeof e[1] === "string"),
      ...(req.method === "POST" ? { body: Buffer.concat(chunks) } : {}),
    });
    const answer = req.url === "/api/v1/operator-key" ? await operatorKey(request, {}) : await chat(request, {});
    res.writeHead(answer.status, Object.fromEntries(answer.headers));
    res.end(Buffer.from(await answer.arrayBuffer()));
  });
});
server.listen(0, "127.0.0.1", () => {
  process.stdout.write(`ready http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
});
