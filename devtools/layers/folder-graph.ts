// Prints the folder dependency graph of server/ (production files, type imports included): which folder imports
// which, the pairs that import each other (and whether the layer map keeps them in one layer), and the file-level
// import cycles. Run: npx tsx devtools/layers/folder-graph.ts
import { importsOf, sourceFiles } from "./import-graph";

const CONFIG = "../../eslint.config.mjs";
const { LAYERS, layerOf } = (await import(CONFIG)) as { LAYERS: { name: string }[]; layerOf: (file: string) => number };
const layerName = (file: string) => LAYERS[layerOf(file)]?.name ?? "unmapped";

/** The layer a file belongs to: `server/<folder>`, or `server/<file>` for a top-level module. */
function folderOf(file: string): string {
  const parts = file.split("/");
  if (parts[0] !== "server") return parts[0]!;
  return parts.length > 2 ? `server/${parts[1]}` : `server/${parts[1]!.replace(/\.tsx?$/, "")}`;
}

const files = sourceFiles("server", false).filter((file) => !file.startsWith("server/test/") && !file.startsWith("server/verify/fixtures/"));
const folderEdges = new Map<string, Map<string, string[]>>();
const fileEdges = new Map<string, string[]>();
for (const file of files) {
  const targets = importsOf(file).map((edge) => edge.to);
  fileEdges.set(file, targets);
  for (const to of targets) {
    const [a, b] = [folderOf(file), folderOf(to)];
    if (a === b) continue;
    const row = folderEdges.get(a) ?? new Map<string, string[]>();
    row.set(b, [...(row.get(b) ?? []), `${file} -> ${to}`]);
    folderEdges.set(a, row);
  }
}

for (const [from, row] of [...folderEdges].sort()) console.log(`${from} -> ${[...row.keys()].sort().join(", ")}`);

console.log("\nTwo-way folder dependencies:");
for (const [from, row] of folderEdges) {
  for (const [to, why] of row) {
    const back = folderEdges.get(to)?.get(from);
    if (!back || from >= to) continue;
    const layers = new Set([...why, ...back].map((edge) => edge.split(" -> ")).flatMap(([a, b]) => [layerName(a!), layerName(b!)]));
    console.log(`  ${from} <-> ${to} (layers: ${[...layers].join(", ")})\n    ${why.join("\n    ")}\n    ${back.join("\n    ")}`);
  }
}

// Tarjan's strongly connected components over files: every component with more than one file is a cycle.
let index = 0;
const indices = new Map<string, number>();
const low = new Map<string, number>();
const stack: string[] = [];
const onStack = new Set<string>();
const cycles: string[][] = [];
function visit(v: string): void {
  indices.set(v, index);
  low.set(v, index++);
  stack.push(v);
  onStack.add(v);
  for (const w of fileEdges.get(v) ?? []) {
    if (!indices.has(w)) {
      visit(w);
      low.set(v, Math.min(low.get(v)!, low.get(w)!));
    } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, indices.get(w)!));
  }
  if (low.get(v) === indices.get(v)) {
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1) cycles.push(component);
  }
}
for (const file of files) if (!indices.has(file)) visit(file);
console.log(`\nFile import cycles: ${cycles.length}`);
for (const cycle of cycles) console.log(`  ${cycle.join(" , ")}`);
