// The HTTP server in front of Next for `npm start` and `npm run dev` (spawned by bin/start.ts and bin/dev.ts): plain
// node:http that stamps each request with the connection's own address (server/http/peer-address.ts), then Next's
// request handler. Usage: serve-next.ts <dev|start>; PORT picks the port. Loaded without the react-server condition,
// so it imports nothing that is server-only.
// SIGTERM (or SIGINT) drains: readiness turns 503 at once, no new connection or request is taken, the requests in
// flight get up to SHUTDOWN_GRACE_MS to finish, then the process exits 0.
import next from "next";
import { createDrainTracker, drainOnSignals } from "../server/health/drain-server";
import { createPeerAddressServer } from "../server/http/peer-address";

const dev = process.argv[2] === "dev";
const port = Number(process.env.PORT ?? 3000);
const hostname = process.env.HOSTNAME ?? "localhost";
// server/env.ts validates it (0–600000) before `npm start` spawns this; the default matches its schema.
const graceMs = Number(process.env.SHUTDOWN_GRACE_MS || 20_000);

const tracker = createDrainTracker();
// Requests are only accepted after `listen`, by which time `handle` is set.
const server = createPeerAddressServer(tracker.handle((req, res) => handle(req, res)));
const app = next({ dev, dir: process.cwd(), hostname, port, httpServer: server });
await app.prepare();
const handle = app.getRequestHandler();
// Like `next start`: every interface, IPv4 and IPv6.
server.listen(port, () => console.log(`signet: serving on http://${hostname}:${port} (next ${dev ? "dev" : "start"})`));

drainOnSignals(server, tracker, graceMs, () => app.close());
