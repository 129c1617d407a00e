// docs/architecture.md's layer map, read from the lint rule that enforces it: the LAYERS array of eslint.config.mjs,
// parsed (never imported) with the TypeScript compiler, so the doc and the rule cannot drift apart.
import "server-only";
import { existsSync, readFileSync } from "node:fs";
import ts from "typescript";
import { cell, fromRoot } from "./generated-block";

const CONFIG = "eslint.config.mjs";

export interface Layer {
  name: string;
  paths: string[];
  typeImports: boolean;
  /** The `//` comment above the layer's entry. */
  what: string;
}

/** The layers of `LAYERS` in `source` (a flat ESLint config), lowest first; null when it declares none. */
export function readLayers(source: string): Layer[] | null {
  const file = ts.createSourceFile(CONFIG, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.JS);
  let array: ts.ArrayLiteralExpression | null = null;
  for (const statement of file.statements) {
    if (!ts.isVariableStatement(statement)) continue;
    for (const d of statement.declarationList.declarations) {
      if (ts.isIdentifier(d.name) && d.name.text === "LAYERS" && d.initializer && ts.isArrayLiteralExpression(d.initializer)) array = d.initializer;
    }
  }
  if (!array) return null;
  return array.elements.map((element, i) => {
    if (!ts.isObjectLiteralExpression(element)) throw new Error(`${CONFIG}: LAYERS[${i}] is not an object literal`);
    const prop = (key: string) => element.properties.find((p): p is ts.PropertyAssignment => ts.isPropertyAssignment(p) && ts.isIdentifier(p.name) && p.name.text === key)?.initializer;
    const name = prop("name");
    const paths = prop("paths");
    if (!name || !ts.isStringLiteral(name) || !paths || !ts.isArrayLiteralExpression(paths)) throw new Error(`${CONFIG}: LAYERS[${i}] needs a string name and an array of paths`);
    const what = (ts.getLeadingCommentRanges(source, element.getFullStart()) ?? [])
      .map((r) => source.slice(r.pos, r.end).replace(/^\/\/\s?|^\/\*+\s?|\s*\*+\/$/g, ""))
      .join(" ")
      .trim();
    return { name: name.text, paths: paths.elements.filter(ts.isStringLiteral).map((p) => p.text), typeImports: prop("typeImports")?.kind === ts.SyntaxKind.TrueKeyword, what };
  });
}

/** The layer map as Markdown: the order in one line, then each layer with its paths and what it holds. */
export function layerMapMarkdown(): string {
  const layers = existsSync(fromRoot(CONFIG)) ? readLayers(readFileSync(fromRoot(CONFIG), "utf8")) : null;
  if (!layers) return `${CONFIG} declares no LAYERS yet.`;
  return [
    `Lowest first; a file may import its own layer and the layers above it in this table, never one below:`,
    "",
    "```",
    layers.map((l) => l.name).join(" ← "),
    "```",
    "",
    "| layer | paths | what |",
    "|---|---|---|",
    ...layers.map((l) => `| ${l.name} | ${l.paths.map((p) => `\`${p}\``).join(", ")} | ${cell(l.what)}${l.typeImports ? " Every layer may `import type` from it." : ""} |`),
  ].join("\n");
}
