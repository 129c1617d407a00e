// The chaos server as one esbuild bundle, made once per suite and started with plain `node`: a cold `tsx` start loads
// about a hundred modules through the TypeScript loader (5-9 s a process on two cores), and the suite starts dozens.
// Packages stay out of the bundle (node loads them from node_modules, so the bundle lives under it); `server-only` is
// its empty module, as under Next's react-server condition.
import { mkdirSync, rmSync } from "node:fs";
import path from "node:path";
import { build, type Plugin } from "esbuild";

const ROOT = path.resolve(import.meta.dirname, "../..");
const ENTRY = "devtools/chaos/chaos-server.ts";

const serverOnlyAsEmpty: Plugin = {
  name: "server-only-as-empty",
  setup(b) {
    b.onResolve({ filter: /^server-only$/ }, () => ({ path: "server-only", namespace: "server-only-empty" }));
    b.onLoad({ filter: /.*/, namespace: "server-only-empty" }, () => ({ contents: "", loader: "js" }));
  },
};

export interface ChaosServerBundle {
  /** The bundle's entry: `node --conditions=react-server <entry>` starts the chaos server. */
  entry: string;
  /** Removes the bundle. */
  remove(): void;
}

/** Bundles devtools/chaos/chaos-server.ts into its own folder in node_modules/.cache/signet-chaos/. */
export async function bundleChaosServer(): Promise<ChaosServerBundle> {
  const outdir = path.join(
    ROOT,
    "node_modules",
    ".cache",
    "signet-chaos",
    `build-${Date.now().toString(36)}-${process.pid}`,
  );
  mkdirSync(outdir, { recursive: true });
  await build({
    absWorkingDir: ROOT,
    entryPoints: { "chaos-server": ENTRY },
    outdir,
    bundle: true,
    format: "esm",
    platform: "node",
    target: "node20",
    packages: "external",
    outExtension: { ".js": ".mjs" },
    logLevel: "error",
    plugins: [serverOnlyAsEmpty],
  });
  return {
    entry: path.join(outdir, "chaos-server.mjs"),
    remove: () => rmSync(outdir, { recursive: true, force: true }),
  };
}
