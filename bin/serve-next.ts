// The HTTP server in front of Next for `npm start` and `npm run dev` (spawned by bin/start.ts and bin/dev.ts): plain
// node:http that stamps each request with the connection's own address (server/http/peer-address.ts), then Next's
// request handler. Usage: serve-next.ts <dev|start>; PORT picks the port. Loaded without the react-server condition,
// so it imports nothing that is server-only.
// SIGTERM (or SIGINT) drains: readiness turns 503 at once, no new connection or request is taken, the requests in
// flight get up to SHUTDOWN_GRACE_MS to finish, then the process exits 0.
// On a production build (`start`) the hot API routes and the receipt log's read routes go straight to their built route
// handlers, without Next's request pipeline (server/http/direct-api-routes.ts); SIGNET_API_DIRECT=false sends them
// through Next like every other path.
import path from "node:path";
import next from "next";
import { createDrainTracker, drainOnSignals } from "../server/health/drain-server";
import { directHandler, loadDirectApiRoutes } from "../server/http/direct-api-routes";
import { createPeerAddressServer } from "../server/http/peer-address";
import { serveFetchRoute } from "../server/http/serve-fetch-route";

const dev = process.argv[2] === "dev";
const port = Number(process.env.PORT ?? 3000);
const hostname = process.env.HOSTNAME ?? "localhost";
// server/env.ts validates it (0–600000) before `npm start` spawns this; the default matches its schema.
const graceMs = Number(process.env.SHUTDOWN_GRACE_MS || 20_000);

const tracker = createDrainTracker();
// Requests are only accepted after `listen`, by which time `handle` and `direct` are set.
const server = createPeerAddressServer(
  tracker.handle((req, res) => {
    const route = directHandler(direct, req.method, req.url);
    return route ? serveFetchRoute(route, req, res) : handle(req, res);
  }),
);
const app = next({ dev, dir: process.cwd(), hostname, port, httpServer: server });
await app.prepare();
const handle = app.getRequestHandler();
const distDir = path.resolve(process.env.SIGNET_NEXT_DIST_DIR || ".next");
const direct = dev || process.env.SIGNET_API_DIRECT === "false" ? new Map() : await loadDirectApiRoutes(distDir, (line) => console.warn(line));
// Like `next start`: every interface, IPv4 and IPv6.
server.listen(port, () => {
  console.log(`signet: serving on http://${hostname}:${port} (next ${dev ? "dev" : "start"})`);
  if (direct.size > 0) console.log(`signet: served straight from their built handlers: ${[...direct.keys()].join(", ")}`);
});

drainOnSignals(server, tracker, graceMs, () => app.close());
