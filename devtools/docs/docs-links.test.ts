import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

/** The README and every Markdown file of the manual, from the repository root. */
const FILES = ["README.md", ...readdirSync("docs").filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`)];

/** Every link target in `text` that is not absolute (`https:`, `mailto:`), as written: `file#anchor`, `#anchor`. */
function relativeLinks(text: string): string[] {
  const withoutCode = text.replace(/```[\s\S]*?```/g, "").replace(/`[^`\n]*`/g, "");
  return [...withoutCode.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!).filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target));
}

/** The anchors GitHub gives a Markdown file's headings: lower case, punctuation dropped, spaces as hyphens. */
function headingAnchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const [, heading] of text.replace(/```[\s\S]*?```/g, "").matchAll(/^#{1,6} (.+)$/gm)) {
    const slug = heading!.toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, "").replaceAll(" ", "-");
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    anchors.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return anchors;
}

/** The links of `file` whose file is missing, or whose anchor names no heading there. */
function brokenLinks(file: string): string[] {
  return relativeLinks(readFileSync(file, "utf8")).filter((target) => {
    const [name, anchor] = target.split("#") as [string, string | undefined];
    const targetFile = name === "" ? file : path.join(path.dirname(file), name);
    if (!existsSync(targetFile)) return true;
    return anchor !== undefined && targetFile.endsWith(".md") && !headingAnchors(readFileSync(targetFile, "utf8")).has(anchor);
  });
}

describe("the README and the manual", () => {
  it("the README fits on a screen: under 150 lines", () => {
    expect(readFileSync("README.md", "utf8").split("\n").length).toBeLessThan(150);
  });

  it("the README links every doc of the manual", () => {
    const readme = readFileSync("README.md", "utf8");
    for (const file of FILES.filter((f) => f.startsWith("docs/"))) expect(readme, file).toContain(`](${file})`);
  });

  it.each(FILES)("every relative link in %s points at a file that exists, and a heading there when it names one", (file) => {
    expect(brokenLinks(file)).toEqual([]);
  });

  it("rejects malformed input: links in code are not links, absolute links are not checked", () => {
    expect(relativeLinks("[a](docs/nope.md#x) [b](https://x.org/y) [c](#here) `[d](in-code.md)`")).toEqual(["docs/nope.md#x", "#here"]);
    expect(headingAnchors("# A `code` title, here\n## Again\n## Again")).toEqual(new Set(["a-code-title-here", "again", "again-1"]));
  });
});
