// The front server's drain as its own process, for the SIGTERM test: the same front server, drain tracker and
// signal handling as bin/start/serve-next.ts, with the real prepaid and models route handlers in place of Next's (Next's
// dev server cannot run from a git worktree whose node_modules is a symlink). Prints `ready <url>` once it listens.
import type { AddressInfo } from "node:net";
import { POST as inference } from "@/app/api/v1/inference/route";
import { GET as models } from "@/app/api/v1/models/route";
import { edgeShutdown, routeRuntime } from "../../runtime/route-edge";
import { testKnob } from "../support/env";
import { createDrainTracker, drainOnSignals } from "../../health/drain-server";
import { systemClock } from "../../clock";
import { createFrontServer } from "../../http/front-server";
import { answerWithRoute } from "../support/route-adapter";

await routeRuntime();
const tracker = createDrainTracker(edgeShutdown, systemClock);
const server = createFrontServer(
  tracker.handle(
    (req, res) =>
      new Promise<void>((done) => {
        const chunks: Buffer[] = [];
        req.on("data", (c: Buffer) => chunks.push(c));
        req.on("end", () => {
          const route =
            req.url === "/api/v1/inference" ? (r: Request) => inference(r, {}) : (r: Request) => models(r, {});
          void answerWithRoute(route, req, Buffer.concat(chunks), res).finally(done);
        });
      }),
  ),
);
drainOnSignals(server, tracker, testKnob("SHUTDOWN_GRACE_MS", 20_000));
server.listen(0, "127.0.0.1", () =>
  process.stdout.write(`ready http://127.0.0.1:${(server.address() as AddressInfo).port}\n`),
);
