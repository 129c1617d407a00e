// A generated section inside a hand-written doc: the text between `<!-- generated:NAME:start -->` and
// `<!-- generated:NAME:end -->` is written by code, the prose around it by hand.
import "server-only";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** A path from the repository root. */
export const fromRoot = (file: string): string => fileURLToPath(new URL(`../../${file}`, import.meta.url));

const start = (name: string) => `<!-- generated:${name}:start -->`;
const end = (name: string) => `<!-- generated:${name}:end -->`;

/** `text` with block `name` replaced by `content`; throws unless its two markers are there once each, in order. */
export function replaceGeneratedBlock(text: string, name: string, content: string, source: string): string {
  const open = text.indexOf(start(name));
  const close = text.indexOf(end(name));
  if (open < 0 || close < open || text.indexOf(start(name), open + 1) >= 0 || text.indexOf(end(name), close + 1) >= 0) {
    throw new Error(`needs one ${start(name)} followed by one ${end(name)}`);
  }
  const note = `<!-- Generated from ${source} by \`npm run docs\`; a test fails when it is stale. Edit the code, not this. -->`;
  return `${text.slice(0, open)}${start(name)}\n${note}\n\n${content.trimEnd()}\n\n${text.slice(close)}`;
}

/** A renderer for `file`: its current text with each named block regenerated. */
export function withGeneratedBlocks(file: string, blocks: Record<string, { source: string; render: () => string }>): () => string {
  return () => {
    let text = readFileSync(fromRoot(file), "utf8");
    for (const [name, block] of Object.entries(blocks)) {
      try {
        text = replaceGeneratedBlock(text, name, block.render(), block.source);
      } catch (err) {
        throw new Error(`${file}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
      }
    }
    return text;
  };
}

/** A Markdown table cell: no line breaks, pipes escaped. */
export function cell(text: string): string {
  return text.replace(/\s*\n\s*/g, " ").replaceAll("|", "\\|");
}
