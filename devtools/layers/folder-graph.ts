// Prints the folder dependency graph the layer map is drawn on (production files of server/, app/, bin/ and devtools/;
// a folder is `server/<folder>` or a top-level folder): which folder imports which, each folder's layer, the folder
// pairs that import each other (type-only directions marked) against MUTUAL_FOLDERS, and the file-level import cycles.
// Run: npx tsx devtools/layers/folder-graph.ts
import { importsOf, mappedFiles, mutualFolderPairs } from "./import-graph";

interface LayerEntry {
  name: string;
  folders: string[];
}
const CONFIG = new URL("../../eslint.config.mjs", import.meta.url).href;
const { LAYERS, MUTUAL_FOLDERS, folderOf, layerOf } = (await import(/* @vite-ignore */ CONFIG)) as {
  LAYERS: LayerEntry[];
  MUTUAL_FOLDERS: { folders: [string, string] }[];
  folderOf: (file: string) => string;
  layerOf: (file: string) => number;
};

const files = mappedFiles();
const folders = [...new Set(files.map(folderOf))].sort();
const imports = new Map<string, Map<string, boolean>>();
for (const file of files) {
  for (const edge of importsOf(file)) {
    const [a, b] = [folderOf(file), folderOf(edge.to)];
    if (a === b) continue;
    const row = imports.get(a) ?? new Map<string, boolean>();
    row.set(b, (row.get(b) ?? true) && edge.typeOnly);
    imports.set(a, row);
  }
}
const layerName = (folder: string) => LAYERS.find((l) => l.folders.includes(folder))?.name ?? "NO LAYER";
console.log(`${files.length} files in ${folders.length} folders, ${LAYERS.length} layers (lowest first):`);
for (const layer of LAYERS) console.log(`  ${layer.name}: ${layer.folders.join(", ")}`);
const unmapped = folders.filter((folder) => layerOf(`${folder}/x.ts`) === -1);
console.log(`folders in no layer: ${unmapped.length === 0 ? "none" : unmapped.join(", ")}`);

console.log("\nFolder imports (t: types only):");
for (const folder of folders) {
  const row = [...(imports.get(folder) ?? [])].sort(([a], [b]) => a.localeCompare(b));
  console.log(
    `  ${folder} [${layerName(folder)}] -> ${row.map(([to, typeOnly]) => (typeOnly ? `${to} (t)` : to)).join(", ")}`,
  );
}

const pairs = mutualFolderPairs(folderOf, files);
const explained = (pair: [string, string]) =>
  MUTUAL_FOLDERS.some((m) => [...m.folders].sort().join() === [...pair].sort().join());
console.log(
  `\nFolder pairs that import each other: ${pairs.length} (${pairs.filter((p) => !p.typeOnly).length} by value both ways, ${pairs.filter((p) => p.typeOnly).length} with one direction types only)`,
);
for (const pair of pairs) {
  console.log(
    `  ${pair.folders.join(" <-> ")}${pair.typeOnly ? " (one way types only)" : ""}${explained(pair.folders) ? " [explained in MUTUAL_FOLDERS]" : " [NOT EXPLAINED]"}`,
  );
  for (const edge of pair.edges) console.log(`      ${edge.from} -> ${edge.to}${edge.typeOnly ? " (type)" : ""}`);
}

// Tarjan's strongly connected components over files: every component with more than one file is a cycle.
const fileEdges = new Map(files.map((file) => [file, importsOf(file).map((edge) => edge.to)]));
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
