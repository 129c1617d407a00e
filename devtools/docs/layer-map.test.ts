import { describe, expect, it } from "vitest";
import { layerMapMarkdown } from "./layer-map";

describe("layerMapMarkdown()", () => {
  it("renders the order, each layer's folders and description, the type-import exception and the explained pairs", () => {
    const markdown = layerMapMarkdown(
      [
        { name: "core", folders: ["server/core"], description: "The pure core." },
        { name: "root", folders: ["server/root", "app"], description: "The root | its routes.", typeImports: true },
      ],
      [{ folders: ["server/core", "server/root"], why: "The root's type." }],
    );
    expect(markdown).toContain("core ← root");
    expect(markdown).toContain("| core | `server/core` | The pure core. |");
    expect(markdown).toContain("| root | `server/root`, `app` | The root \\| its routes. Every layer may `import type` from it. |");
    expect(markdown).toContain("| `server/core` ⇄ `server/root` | The root's type. |");
  });

  it("says so when no two folders import each other", () => {
    expect(layerMapMarkdown([{ name: "core", folders: ["server/core"], description: "The core." }], [])).toContain("No two folders import each other");
  });

  it("renders the lint rule's own map: every layer of LAYERS", async () => {
    const config = new URL("../../eslint.config.mjs", import.meta.url).href;
    const { LAYERS } = (await import(/* @vite-ignore */ config)) as { LAYERS: { name: string; description: string }[] };
    const markdown = layerMapMarkdown();
    for (const layer of LAYERS) expect(markdown).toContain(`| ${layer.name} |`);
  });
});
