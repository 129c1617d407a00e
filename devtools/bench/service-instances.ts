// The bench's service instances for the real-timing run: bench-server.ts bundled once and started `count` times with
// plain node, as an operator runs one instance per core on one database. Each shares the environment it is given (the
// stack's database, chain and data dir, so the same keys); the bench calls them over keep-alive HTTP.
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { bundleForNode } from "../node-bundle";
import { sumGauges, type ServiceGauges, type ServiceSource } from "./load-view";

const ROOT = path.resolve(import.meta.dirname, "../..");
const READY_TIMEOUT_MS = 60_000;

export interface ServiceInstances extends ServiceSource {
  urls: readonly string[];
  close(): Promise<void>;
}

/** Starts `count` instances with `env` (and `nodeArgs`, such as --cpu-prof); resolves once every one listens. */
export async function startServiceInstances(
  count: number,
  env: NodeJS.ProcessEnv,
  nodeArgs: readonly string[] = [],
): Promise<ServiceInstances> {
  const bundle = await bundleForNode("devtools/bench/bench-server.ts");
  const children: ChildProcess[] = [];
  const stop = async () => {
    await Promise.all(
      children.map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve();
            child.once("exit", () => resolve());
            child.kill("SIGTERM");
          }),
      ),
    );
    bundle.remove();
  };
  try {
    const urls = await Promise.all(
      Array.from({ length: count }, () => {
        const child = spawn(
          process.execPath,
          ["--conditions=react-server", "--max-semi-space-size=64", ...nodeArgs, bundle.entry],
          {
            cwd: ROOT,
            env,
            stdio: ["ignore", "pipe", "pipe"],
          },
        );
        children.push(child);
        return readyUrl(child);
      }),
    );
    return {
      urls,
      pids: children.map((c) => c.pid!),
      async gauges(): Promise<ServiceGauges> {
        return sumGauges(
          await Promise.all(
            urls.map(async (url) => (await (await fetch(`${url}/bench/gauges`)).json()) as ServiceGauges),
          ),
        );
      },
      close: stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

function readyUrl(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = "";
    let err = "";
    const timer = setTimeout(
      () => reject(new Error(`a bench instance was not ready in ${READY_TIMEOUT_MS} ms: ${err}`)),
      READY_TIMEOUT_MS,
    );
    child.stderr!.on("data", (c: Buffer) => (err = (err + c.toString()).slice(-2000)));
    child.stdout!.on("data", (c: Buffer) => {
      out += c.toString();
      const ready = /ready (\S+)/.exec(out);
      if (ready) {
        clearTimeout(timer);
        resolve(ready[1]!);
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`a bench instance exited (${code}) before it was ready: ${err}`));
    });
  });
}
