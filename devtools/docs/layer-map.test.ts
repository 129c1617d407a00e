import { describe, expect, it } from "vitest";
import { readLayers } from "./layer-map";

describe("readLayers()", () => {
  it("reads each layer's name, paths, type-import exception and the comment above it, lowest first", () => {
    const source = `export const LAYERS = [\n  // The pure core.\n  { name: "verify", paths: ["server/verify"] },\n  // The root.\n  { name: "root", paths: ["server/runtime", "server/app-context.ts"], typeImports: true },\n];\n`;
    expect(readLayers(source)).toEqual([
      { name: "verify", paths: ["server/verify"], typeImports: false, what: "The pure core." },
      { name: "root", paths: ["server/runtime", "server/app-context.ts"], typeImports: true, what: "The root." },
    ]);
  });

  it("rejects malformed input: a config without LAYERS reads as none, a layer without a name throws", () => {
    expect(readLayers("export default [];")).toBeNull();
    expect(() => readLayers(`export const LAYERS = [{ paths: [] }];`)).toThrow("LAYERS[0]");
  });
});
