// Test files that replace a module (vi.mock, vi.doMock, vi.resetModules) need a module graph of their own: a mock
// misses a module another file already loaded into a shared graph, and stays in it for the files after. The vitest
// configs find them from their sources and run them isolated; every other file shares its worker's graph.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";

const REPLACES_MODULES = /\bvi\.(mock|doMock|resetModules)\(/;

/**
 * The `*.test.ts` files that replace a module, as paths relative to `root`: under each of `dirs` (at any depth), and
 * directly in `root` itself.
 */
export function filesReplacingModules(root: string, dirs: readonly string[]): string[] {
  const nested = dirs.flatMap((dir) =>
    readdirSync(path.join(root, dir), { recursive: true, encoding: "utf8" }).map((file) => path.join(dir, file)),
  );
  return [...readdirSync(root, { encoding: "utf8" }), ...nested]
    .filter((file) => file.endsWith(".test.ts") && !file.split(path.sep).includes("node_modules"))
    .filter((file) => REPLACES_MODULES.test(readFileSync(path.join(root, file), "utf8")));
}
