// The repository's import graph read from source text: every static `import … from`, `export … from`, side-effect
// `import "…"` and literal `import("…")`, resolved the way tsconfig does (relative paths and the `@/` alias), and the
// folder graph it makes.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";

const ROOT = path.resolve(import.meta.dirname, "../..");

const EXTENSIONS = [".ts", ".tsx", ".mts", ".js", ".mjs"];
const SPECIFIER =
  /(?:^|[\s;}])(?:import|export)\s+(?:type\s+)?(?:[^"'`;]*?\s+from\s+)?["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;

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
  const candidates = [
    base,
    ...EXTENSIONS.map((ext) => stripped + ext),
    ...EXTENSIONS.map((ext) => path.join(base, "index" + ext)),
  ];
  const found = candidates.find((candidate) => existsSync(candidate) && statSync(candidate).isFile());
  return found === undefined ? undefined : path.relative(ROOT, found);
}

/** Whether an import statement's text brings in types only: `import type …`, or braces whose every name is `type X`. */
function isTypeOnly(statement: string): boolean {
  const text = statement.replace(/^[\s;}]+/, "");
  if (/^(import|export)\s+type\s/.test(text)) return true;
  const names = /^(?:import|export)\s*\{([^}]*)\}\s*from\s/.exec(text)?.[1];
  if (names === undefined) return false;
  const list = names
    .split(",")
    .map((name) => name.trim())
    .filter(Boolean);
  return list.length > 0 && list.every((name) => name.startsWith("type "));
}

/** The imports one file makes, with comments stripped first so a commented-out import does not count. */
export function importsOf(file: string): ImportEdge[] {
  const text = readFileSync(path.join(ROOT, file), "utf8")
    .replace(/\/\*[\s\S]*?\*\//g, "")
    .replace(/^\s*\/\/.*$/gm, "");
  const edges: ImportEdge[] = [];
  for (const match of text.matchAll(SPECIFIER)) {
    const specifier = match[1] ?? match[2]!;
    const to = resolveSpecifier(file, specifier);
    if (to !== undefined) edges.push({ to, typeOnly: match[1] !== undefined && isTypeOnly(match[0]) });
  }
  return edges;
}

/** Every source file under `dir` (repository-relative), tests included unless `withTests` is false. */
export function sourceFiles(dir: string, withTests = true): string[] {
  const found: string[] = [];
  if (!existsSync(path.join(ROOT, dir))) return found;
  for (const entry of readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
    const rel = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== "generated" && entry.name !== "node_modules") found.push(...sourceFiles(rel, withTests));
    } else if (/\.(ts|tsx|mts|mjs)$/.test(entry.name) && !/\.d\.m?ts$/.test(entry.name)) {
      if (withTests || !/\.test\.tsx?$/.test(entry.name)) found.push(rel);
    }
  }
  return found;
}

/** The production files the layer map covers: server/ (not its tests or fixtures), app/, bin/ and devtools/. */
export function mappedFiles(): string[] {
  return ["server", "app", "bin", "devtools"]
    .flatMap((dir) => sourceFiles(dir, false))
    .filter((file) => !file.startsWith("server/test/") && !file.startsWith("server/verify/fixtures/"));
}

/** An import from one folder into another: the files, and whether it brings types only. */
interface FolderEdge {
  from: string;
  to: string;
  typeOnly: boolean;
}

/** Two folders that import each other, with the imports each way. */
export interface MutualPair {
  folders: [string, string];
  /** Whether one of the two directions is made of `import type` only (erased at compile time). */
  typeOnly: boolean;
  edges: FolderEdge[];
}

/** The folder pairs (by `folderOf`) whose files import each other, sorted; `files` defaults to mappedFiles(). */
export function mutualFolderPairs(folderOf: (file: string) => string, files = mappedFiles()): MutualPair[] {
  const byPair = new Map<string, FolderEdge[]>();
  for (const from of files) {
    for (const edge of importsOf(from)) {
      const [a, b] = [folderOf(from), folderOf(edge.to)];
      if (a === b) continue;
      const key = `${a}\0${b}`;
      byPair.set(key, [...(byPair.get(key) ?? []), { from, to: edge.to, typeOnly: edge.typeOnly }]);
    }
  }
  const pairs: MutualPair[] = [];
  for (const [key, edges] of byPair) {
    const [a, b] = key.split("\0") as [string, string];
    const back = byPair.get(`${b}\0${a}`);
    if (!back || a > b) continue;
    pairs.push({
      folders: [a, b],
      typeOnly: edges.every((e) => e.typeOnly) || back.every((e) => e.typeOnly),
      edges: [...edges, ...back],
    });
  }
  return pairs.sort((x, y) => x.folders.join().localeCompare(y.folders.join()));
}
