import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

/** The README and every Markdown file of the manual, from the repository root. */
const FILES = ["README.md", ...readdirSync("docs").filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`)];

/** Every link target in `text` that is neither absolute nor an in-page anchor, without its `#anchor`. */
function relativeLinks(text: string): string[] {
  const withoutCode = text.replace(/```[\s\S]*?```/g, "").replace(/`[^`\n]*`/g, "");
  return [...withoutCode.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((m) => m[1]!)
    .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target) && !target.startsWith("#"))
    .map((target) => target.split("#")[0]!);
}

describe("the README and the manual", () => {
  it("the README fits on a screen: under 150 lines", () => {
    expect(readFileSync("README.md", "utf8").split("\n").length).toBeLessThan(150);
  });

  it("the README links every doc of the manual", () => {
    const readme = readFileSync("README.md", "utf8");
    for (const file of FILES.filter((f) => f.startsWith("docs/"))) expect(readme, file).toContain(`](${file})`);
  });

  it.each(FILES)("every relative link in %s points at a file that exists", (file) => {
    const missing = relativeLinks(readFileSync(file, "utf8")).filter((target) => !existsSync(path.join(path.dirname(file), target)));
    expect(missing).toEqual([]);
  });

  it("rejects malformed input: a link to a missing file is found, absolute links and anchors are not checked", () => {
    expect(relativeLinks("[a](docs/nope.md#x) [b](https://x.org/y) [c](#here) `[d](in-code.md)`")).toEqual(["docs/nope.md"]);
  });
});
