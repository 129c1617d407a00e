#!/usr/bin/env node
// The package's `signet` binary. It runs the TypeScript CLI (bin/cli/signet.ts) from a bundle esbuild makes on first use,
// and again whenever a file it was made from changes, in node_modules/.cache/signet/ (never committed): loading the
// TypeScript through a runtime loader took seconds per start. Packages stay out of the bundle (Node loads them from
// node_modules, as before); `server-only` is bundled as its empty module, as Next's server bundles resolve it (the
// react-server condition; bin/cli/resolve-server-only.mjs does the same for tsx). Each command is its own chunk, loaded only
// when that command runs. Where the cache cannot be written, the CLI runs through tsx as before.
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const ENTRY = "bin/cli/signet.ts";
const CACHE = path.join(ROOT, "node_modules", ".cache", "signet");
const CURRENT = path.join(CACHE, "current.json");
// Files that shape the bundle without being in it: this launcher (the build options) and the compiler options.
const ALSO_BUILT_FROM = ["bin/cli/signet.mjs", "tsconfig.json"];
// A build another process may still be loading chunks from is kept this long after it was replaced.
const KEEP_OLD_BUILDS_MS = 60 * 60 * 1000;

const bundle = freshBundle() ?? (await buildBundle());
if (bundle) {
  await import(pathToFileURL(bundle).href);
} else {
  const { register } = await import("node:module");
  register("./resolve-server-only.mjs", import.meta.url);
  (await import("tsx/esm/api")).register();
  await import("./signet.ts");
}

/** Size and modification time: a file that changed has another stamp. */
function stamp(file) {
  const s = statSync(path.join(ROOT, file));
  return `${s.size}:${s.mtimeMs}`;
}

/** The current bundle's entry file when every file it was built from is unchanged, else null. */
function freshBundle() {
  try {
    const current = JSON.parse(readFileSync(CURRENT, "utf8"));
    for (const [file, was] of Object.entries(current.inputs)) if (stamp(file) !== was) return null;
    const entry = path.join(CACHE, current.dir, "signet.mjs");
    return existsSync(entry) ? entry : null;
  } catch {
    return null;
  }
}

/** Builds a new bundle in its own folder and makes it current; null when the cache cannot be written. */
async function buildBundle() {
  const started = Date.now();
  const dir = `build-${started.toString(36)}-${process.pid}`;
  const outdir = path.join(CACHE, dir);
  try {
    mkdirSync(outdir, { recursive: true });
  } catch {
    return null;
  }
  // esbuild is a dev dependency: an install without it runs the CLI through tsx.
  const build = await import("esbuild").then(
    (m) => m.build,
    () => null,
  );
  if (!build) return null;
  let result;
  try {
    result = await build({
      absWorkingDir: ROOT,
      entryPoints: { signet: ENTRY },
      outdir,
      bundle: true,
      splitting: true,
      format: "esm",
      platform: "node",
      target: "node20",
      packages: "external",
      outExtension: { ".js": ".mjs" },
      metafile: true,
      logLevel: "silent",
      plugins: [serverOnlyAsEmpty()],
    });
  } catch (err) {
    const first = err.errors?.[0];
    const where = first?.location ? ` (${first.location.file}:${first.location.line})` : "";
    process.stderr.write(`signet: cannot build the CLI: ${first?.text ?? err.message}${where}\n`);
    process.exit(2);
  }
  const inputs = {};
  let changedDuringBuild = false;
  for (const file of [...Object.keys(result.metafile.inputs).filter((f) => !f.includes(":")), ...ALSO_BUILT_FROM]) {
    inputs[file] = stamp(file);
    if (statSync(path.join(ROOT, file)).mtimeMs >= started) changedDuringBuild = true;
  }
  // A file edited while the build read it may be in the bundle in either form: the next start builds again.
  if (!changedDuringBuild) {
    const temp = `${CURRENT}.${process.pid}`;
    writeFileSync(temp, JSON.stringify({ dir, inputs }));
    renameSync(temp, CURRENT);
  }
  for (const old of readdirSync(CACHE)) {
    if (!old.startsWith("build-") || old === dir) continue;
    const folder = path.join(CACHE, old);
    if (Date.now() - statSync(folder).mtimeMs > KEEP_OLD_BUILDS_MS) rmSync(folder, { recursive: true, force: true });
  }
  return path.join(outdir, "signet.mjs");
}

/** esbuild plugin: `server-only` is an empty module here, as on the server. */
function serverOnlyAsEmpty() {
  return {
    name: "server-only-as-empty",
    setup(build) {
      build.onResolve({ filter: /^server-only$/ }, () => ({ path: "server-only", namespace: "server-only-empty" }));
      build.onLoad({ filter: /.*/, namespace: "server-only-empty" }, () => ({ contents: "", loader: "js" }));
    },
  };
}
