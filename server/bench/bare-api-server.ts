// The prepaid route's own handler served by plain node:http, with no Next in front: what `npm run bench:http` compares
// the production Next server against. Started as its own process with the production environment; PORT picks the port.
// Not a way to run the service: it serves one route, for a measurement.
import "server-only";
import http from "node:http";
import { POST } from "@/app/api/v1/inference/route";
import { answerWithRoute } from "../test/support/route-adapter";

const port = Number(process.env.PORT);
const server = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    if (req.method !== "POST" || req.url !== "/api/v1/inference") {
      res.writeHead(404).end();
      return;
    }
    answerWithRoute((r) => POST(r, {}), req, Buffer.concat(chunks), res).catch(() => {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
});
server.listen(port, "127.0.0.1", () => console.log(`bare api server on ${port}`));
