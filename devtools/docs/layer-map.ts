// docs/architecture.md's layer map, rendered from the data the lint rule enforces: LAYERS (each layer's folders and
// description) and MUTUAL_FOLDERS (each folder pair that imports each other, and why) of eslint.config.mjs.
import "server-only";
import { cell } from "./generated-block";

export interface Layer {
  name: string;
  folders: string[];
  description: string;
  /** Every layer may `import type` from this one. */
  typeImports?: boolean;
}

export interface MutualFolders {
  folders: [string, string];
  why: string;
}

const CONFIG = new URL("../../eslint.config.mjs", import.meta.url).href;
const config = (await import(/* @vite-ignore */ CONFIG)) as { LAYERS: Layer[]; MUTUAL_FOLDERS: MutualFolders[] };

/** The layer map as Markdown: the order in one line, each layer with its folders and what it holds, then the pairs. */
export function layerMapMarkdown(layers: readonly Layer[] = config.LAYERS, mutual: readonly MutualFolders[] = config.MUTUAL_FOLDERS): string {
  const code = (folder: string) => `\`${folder}\``;
  return [
    "Lowest first; a file may import its own layer and the layers above it in this table, never one below. A file's folder",
    "(`server/<folder>`, or a top-level folder) tells its layer; a folder in no layer fails lint.",
    "",
    "```",
    layers.map((l) => l.name).join(" ← "),
    "```",
    "",
    "| layer | folders | what |",
    "|---|---|---|",
    ...layers.map((l) => `| ${l.name} | ${l.folders.map(code).join(", ")} | ${cell(l.description)}${l.typeImports ? " Every layer may `import type` from it." : ""} |`),
    "",
    mutual.length === 0
      ? "No two folders import each other (a test measures the import graph)."
      : `Folder pairs that import each other (a test measures the import graph and fails on any other): ${mutual.length}.`,
    ...(mutual.length === 0 ? [] : ["", "| folders | why |", "|---|---|", ...mutual.map((m) => `| ${m.folders.map(code).join(" ⇄ ")} | ${cell(m.why)} |`)]),
  ].join("\n");
}
