import { existsSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { DOCS_CSP, REDOC_LOGO_CDN_URL, REDOC_LOGO_LOCAL_PATH, redocBundle } from "./api-reference";

describe("the API reference's Redoc bundle", () => {
  it("asks this origin for Redoc's footer logo, never Redocly's CDN, and the logo is served from public/", async () => {
    const text = (await redocBundle()).toString("utf8");
    expect(text).not.toContain(REDOC_LOGO_CDN_URL);
    expect(text).toContain(`"${REDOC_LOGO_LOCAL_PATH}"`);
    expect(existsSync(path.join("public", REDOC_LOGO_LOCAL_PATH))).toBe(true);
    expect(DOCS_CSP).toContain("img-src 'self' data:");
  });
});
