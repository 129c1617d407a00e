// The repository's import graph read from source text: every static `import … from`, `export … from`, side-effect
// `import "…"` and literal `import("…")`, resolved the way tsconfig does (relative paths and the `@/` alias).
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";

const ROOT = path.resolve(import.meta.dirname, "../..");

const EXTENSIONS = [".ts", ".tsx", ".mts", ".js", ".mjs"];
const SPECIFIER = /(?:^|[\s;}])(?:import|export)\s+(?:type\s+)?(?:[^"'`;]*?\s+from\s+)?["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;

/** One import of `from`: the file it resolves to, and whether it is erased at compile time (`import type`). */
export interface ImportEdge {
  to: string;
  typeOnly: boolean;
}

/** The repository-relative file a specifier names, or undefined for packages and files that do not exist. */
function resolveSpecifier(fromFile: string, specifier: string): string | undefined {
  let base: string;
  if (specifier.startsWith("@/")) base = path.join(ROOT, specifier.slice(2));
  else if (specifier.startsWith(".")) base = path.resolve(path.dirname(path.join(ROOT, fromFile)), specifier);
  else return undefined;
  const stripped = base.replace(/\.(js|mjs|ts|tsx)$/, "");
  const candidates = [base, ...EXTENSIONS.map((ext) => stripped + ext), ...EXTENSIONS.map((ext) => path.join(base, "index" + ext))];
  const found = candidates.find((candidate) => existsSync(candidate) && statSync(candidate).isFile());
  return found === undefined ? undefined : path.relative(ROOT, found);
}

/** The imports one file makes, with comments stripped first so a commented-out import does not count. */
export function importsOf(file: string): ImportEdge[] {
  const text = readFileSync(path.join(ROOT, file), "utf8").replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
  const edges: ImportEdge[] = [];
  for (const match of text.matchAll(SPECIFIER)) {
    const specifier = match[1] ?? match[2]!;
    const to = resolveSpecifier(file, specifier);
    if (to !== undefined) edges.push({ to, typeOnly: /^\s*[;}]?\s*(import|export)\s+type\s/.test(match[0]) });
  }
  return edges;
}

/** Every source file under `dir` (repository-relative), tests included unless `withTests` is false. */
export function sourceFiles(dir: string, withTests = true): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
    const rel = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== "generated" && entry.name !== "node_modules") found.push(...sourceFiles(rel, withTests));
    } else if (/\.(ts|tsx|mts)$/.test(entry.name) && !entry.name.endsWith(".d.ts")) {
      if (withTests || !/\.test\.tsx?$/.test(entry.name)) found.push(rel);
    }
  }
  return found;
}
