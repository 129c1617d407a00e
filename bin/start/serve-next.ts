// The HTTP server in front of Next for `npm start` and `npm run dev` (spawned by bin/start/start.ts and bin/dev/dev.ts): plain
// node:http (server/http/front-server.ts) that bounds how long a client may take to send a request, refuses a request
// target that is not a path, makes every answer refuse framing and stamps each request with the connection's own
// address, then Next's request handler. Usage: serve-next.ts <dev|start> with the options its launcher (bin/start/start.ts,
// bin/dev/dev.ts) read from the config (bin/start/serve-next-args.ts). Loaded without the react-server condition, so it imports
// nothing that is server-only.
// SIGTERM (or SIGINT) drains: readiness turns 503 at once, no new connection or request is taken, the requests in
// flight get up to SHUTDOWN_GRACE_MS to finish, then the process exits 0.
// On a production build (`start`) the hot API routes and the receipt log's read routes go straight to their built route
// handlers, without Next's request pipeline (server/http/direct-api-routes.ts); SIGNET_API_DIRECT=false sends them
// through Next like every other path.
import path from "node:path";
import next from "next";
import { createDrainTracker, drainOnSignals } from "../../server/health/drain-server";
import { systemClock } from "../../server/clock";
import { directHandler, loadDirectApiRoutes } from "../../server/http/direct-api-routes";
import { createFrontServer } from "../../server/http/front-server";
import { serveFetchRoute } from "../../server/http/serve-fetch-route";
import { edgeShutdown, flushRouteRecords } from "../../server/runtime/route-edge";
import { parseFrontServerArgs } from "./serve-next-args";

const { mode, port, hostname, graceMs, distDir: dist, direct: directOn } = parseFrontServerArgs(process.argv.slice(2));
const dev = mode === "dev";

// The drain flag the routes' readiness reads (the route edge's: Next's route bundles are another module instance).
const tracker = createDrainTracker(edgeShutdown, systemClock);
// Requests are only accepted after `listen`, by which time `handle` and `direct` are set.
const server = createFrontServer(
  tracker.handle((req, res) => {
    const route = directHandler(direct, req.method, req.url);
    return route ? serveFetchRoute(route, req, res) : handle(req, res);
  }),
);
const app = next({ dev, dir: process.cwd(), hostname, port, httpServer: server });
await app.prepare();
const handle = app.getRequestHandler();
const distDir = path.resolve(dist);
const direct = dev || !directOn ? new Map() : await loadDirectApiRoutes(distDir, (line) => console.warn(line));
// Like `next start`: every interface, IPv4 and IPv6.
server.listen(port, () => {
  console.log(
    `signet: serving on http://${hostname}:${port} (${dev ? "npm run dev: development, reloads on change" : "npm start: the production build"})`,
  );
  if (direct.size > 0)
    console.log(`signet: served straight from their built handlers: ${[...direct.keys()].join(", ")}`);
});

/**
 * How long a draining process keeps trying to write the records of calls it answered while the database was away: a
 * record left behind means that call's takeover asks the model again. Well inside an orchestrator's 30 s SIGKILL.
 */
const RECORD_FLUSH_MS = 5_000;

drainOnSignals(server, tracker, graceMs, async () => {
  const left = await flushRouteRecords(RECORD_FLUSH_MS);
  if (left > 0)
    console.error(
      `signet: ${left} answered call(s) could not be recorded before exit; their payments are left to their lease`,
    );
  await app.close();
});
