// An entry point as one esbuild bundle, made once and started with plain `node` as often as a test needs: a cold `tsx`
// start loads about a hundred modules through the TypeScript loader (5-9 s a process on a busy two-core machine), and
// the crash suite and the start-up refusals start dozens. Packages stay out of the bundle (node loads them from
// node_modules, so the bundle lives under it); `server-only` is its empty module, as under Next's react-server
// condition. Start it with `node --conditions=react-server <entry>`.
import { mkdirSync, rmSync } from "node:fs";
import path from "node:path";
import { build, type Plugin } from "esbuild";

const ROOT = path.resolve(import.meta.dirname, "..");

const serverOnlyAsEmpty: Plugin = {
  name: "server-only-as-empty",
  setup(b) {
    b.onResolve({ filter: /^server-only$/ }, () => ({ path: "server-only", namespace: "server-only-empty" }));
    b.onLoad({ filter: /.*/, namespace: "server-only-empty" }, () => ({ contents: "", loader: "js" }));
  },
};

export interface NodeBundle {
  /** The bundle's entry: `node --conditions=react-server <entry>` runs it. */
  entry: string;
  /** Removes the bundle. */
  remove(): void;
}

/**
 * Bundles `entry` (a path from the repository's root) into its own folder in node_modules/.cache/signet-bundles/. The
 * bundle's `import.meta.dirname` is that folder: an entry that finds files beside itself runs only up to there.
 */
export async function bundleForNode(entry: string): Promise<NodeBundle> {
  const name = path.basename(entry, path.extname(entry));
  const outdir = path.join(
    ROOT,
    "node_modules",
    ".cache",
    "signet-bundles",
    `${name}-${Date.now().toString(36)}-${process.pid}`,
  );
  mkdirSync(outdir, { recursive: true });
  await build({
    absWorkingDir: ROOT,
    entryPoints: { [name]: entry },
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
    entry: path.join(outdir, `${name}.mjs`),
    remove: () => rmSync(outdir, { recursive: true, force: true }),
  };
}
