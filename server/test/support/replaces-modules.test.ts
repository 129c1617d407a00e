import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { filesReplacingModules } from "./replaces-modules";

describe("filesReplacingModules()", () => {
  it("finds the test files that mock, re-mock or reset modules, nested or at the root, and only those", () => {
    const root = mkdtempSync(path.join(tmpdir(), "signet-replaces-"));
    mkdirSync(path.join(root, "a/b"), { recursive: true });
    mkdirSync(path.join(root, "a/node_modules/x"), { recursive: true });
    writeFileSync(path.join(root, "a/b/mocks.test.ts"), 'vi.mock("./x", () => ({}));');
    writeFileSync(path.join(root, "a/re-mocks.test.ts"), 'vi.doMock("./x");');
    writeFileSync(path.join(root, "a/resets.test.ts"), "vi.resetModules();");
    writeFileSync(path.join(root, "a/spies.test.ts"), 'vi.spyOn(log, "info"); vi.stubGlobal("fetch", f);');
    writeFileSync(path.join(root, "a/mocks-but-not-a-test.ts"), 'vi.mock("./x");');
    writeFileSync(path.join(root, "a/node_modules/x/dep.test.ts"), 'vi.mock("./y");');
    writeFileSync(path.join(root, "root.test.ts"), 'vi.mock("./z");');
    expect(filesReplacingModules(root, ["a"]).sort()).toEqual([
      "a/b/mocks.test.ts",
      "a/re-mocks.test.ts",
      "a/resets.test.ts",
      "root.test.ts",
    ]);
  });
});
