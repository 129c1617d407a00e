// What a production install must hold, read from the build and the lockfile: every package `npm start` loads is one
// `npm install --omit=dev` installs. `npm start` runs tsx on bin/start (its imports, read with esbuild), and that serves
// Next's build (every file its routes need at run time, as Next traced them into the build's .nft.json files). A
// package the lockfile marks dev-only among them would be missing from a production install. The install itself, then
// a paid call under `npm start`, is production-install.test.ts (SIGNET_PRODUCTION_INSTALL=true).
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { build } from "esbuild";
import { beforeAll, describe, expect, it } from "vitest";
import { ensureProductionBuild, SOAK_DIST_DIR } from "../../../devtools/soak/soak-stack";

const ROOT = path.resolve(import.meta.dirname, "../../..");
/** The entry points `npm start` runs (bin/start/start.ts spawns serve-next.ts). */
const START_ENTRIES = ["bin/start/start.ts", "bin/start/serve-next.ts"];

interface LockEntry {
  dev?: boolean;
}
const lock = JSON.parse(readFileSync(path.join(ROOT, "package-lock.json"), "utf8")) as {
  packages: Record<string, LockEntry>;
};
const manifest = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as {
  scripts: Record<string, string>;
};

/** The package a path inside the repository's node_modules belongs to, or null (a path of the repository's own). */
function packageOf(relative: string): string | null {
  const match = /^node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(relative);
  return match ? match[1]! : null;
}

/**
 * How a production install treats `name`: installed, dev-only (left out), or unknown to the lockfile. `devOptional`
 * (reached both from a dev dependency and as an optional one) is installed: `--omit=dev` keeps optional dependencies.
 */
function inProduction(name: string): "installed" | "dev-only" | "not in the lockfile" {
  const entry = lock.packages[`node_modules/${name}`];
  if (!entry) return "not in the lockfile";
  return entry.dev ? "dev-only" : "installed";
}

/** Every node_modules package Next traced for the build's server, by the trace file that names it. */
function tracedPackages(distDir: string): Map<string, string> {
  const found = new Map<string, string>();
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory() && entry.name !== "cache" && entry.name !== "node_modules") walk(full);
      else if (entry.isFile() && entry.name.endsWith(".nft.json")) {
        const { files } = JSON.parse(readFileSync(full, "utf8")) as { files: string[] };
        for (const file of files) {
          const name = packageOf(path.relative(ROOT, path.resolve(path.dirname(full), file)));
          if (name && !found.has(name)) found.set(name, path.relative(ROOT, full));
        }
      }
    }
  };
  walk(distDir);
  return found;
}

/** The packages bin/start imports (bare specifiers esbuild leaves external), by the file that imports them. */
async function startImports(): Promise<Map<string, string>> {
  const result = await build({
    entryPoints: START_ENTRIES.map((entry) => path.join(ROOT, entry)),
    bundle: true,
    write: false,
    metafile: true,
    platform: "node",
    format: "esm",
    outdir: "out",
    packages: "external",
    conditions: ["react-server"],
    logLevel: "silent",
  });
  const found = new Map<string, string>();
  for (const [file, input] of Object.entries(result.metafile.inputs)) {
    for (const imported of input.imports) {
      // Node built-ins, and the repository's own files a dynamic import names at run time, are no packages.
      if (!imported.external || imported.path.startsWith("node:") || imported.path.startsWith(".")) continue;
      const name = /^((?:@[^/]+\/)?[^/]+)/.exec(imported.path)![1]!;
      if (!found.has(name)) found.set(name, file);
    }
  }
  return found;
}

let traced: Map<string, string>;
let imported: Map<string, string>;
beforeAll(async () => {
  ensureProductionBuild((line) => console.log(`production-dependencies: ${line}`));
  traced = tracedPackages(path.join(ROOT, SOAK_DIST_DIR));
  imported = await startImports();
}, 900_000);

describe("a production install", () => {
  it("holds every package the build's server traced", () => {
    // The database drivers and the logger, kept out of the bundle, are loaded from node_modules at run time.
    expect([...traced.keys()]).toEqual(expect.arrayContaining(["next", "@prisma/client", "pg", "pino"]));
    const missing = [...traced].filter(([name]) => inProduction(name) !== "installed");
    expect(missing.map(([name, by]) => `${name} (${inProduction(name)}; traced by ${by})`)).toEqual([]);
  });

  it("holds every package bin/start imports, and tsx, which runs it", () => {
    const runner = manifest.scripts.start!.split(" ")[0]!;
    expect(runner).toBe("tsx");
    expect(inProduction(runner)).toBe("installed");
    expect([...imported.keys()].length).toBeGreaterThan(3);
    const missing = [...imported].filter(([name]) => inProduction(name) !== "installed");
    expect(missing.map(([name, by]) => `${name} (${inProduction(name)}; imported by ${by})`)).toEqual([]);
  });

  it("would be caught missing a dev-only package: the local chains are dev-only in the lockfile", () => {
    expect(inProduction("litesvm")).toBe("dev-only");
    expect(inProduction("@foundry-rs/anvil")).toBe("dev-only");
    expect(inProduction("vitest")).toBe("dev-only");
    expect(inProduction("next")).toBe("installed");
  });
});
