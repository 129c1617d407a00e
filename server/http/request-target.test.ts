import { describe, expect, it } from "vitest";
import { isOriginForm } from "./request-target";

describe("isOriginForm()", () => {
  it("takes a path, with or without a query, including one that starts with two slashes", () => {
    for (const target of ["/", "/explorer", "/api/v1/models?network=devnet", "//evil.example/x"])
      expect(isOriginForm(target), target).toBe(true);
  });

  it("rejects an absolute-form target, whichever host it names and however its scheme is spelled", () => {
    for (const target of [
      "http://evil.example/whatever",
      "https://evil.example/",
      "HTTP://evil.example/x",
      "http://localhost:3000/explorer",
      "http:/evil.example/x",
    ]) {
      expect(isOriginForm(target), target).toBe(false);
    }
  });

  it("rejects malformed input: the asterisk and authority forms, an empty target, none at all", () => {
    for (const target of ["*", "evil.example:443", "", " /explorer", undefined])
      expect(isOriginForm(target), String(target)).toBe(false);
  });
});
