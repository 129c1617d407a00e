import { describe, expect, it } from "vitest";
import { loadConfig } from "../env";
import { metricsAccess } from "./metrics-token";

const TOKEN = "metrics-token-for-the-test-0123456789";
const dev = loadConfig({ NODE_ENV: "development", METRICS_TOKEN: TOKEN });
const prod = loadConfig({
  NODE_ENV: "production",
  SERVICE_BASE_URL: "https://signet.example.com",
  METRICS_TOKEN: TOKEN,
});

describe("metricsAccess()", () => {
  it("grants the Bearer token, in any case of the scheme", () => {
    expect(metricsAccess(`Bearer ${TOKEN}`, prod)).toBe("granted");
    expect(metricsAccess(`bearer ${TOKEN}`, dev)).toBe("granted");
  });

  it("rejects malformed input: a missing header, another token, a prefix of it, the bare token or another scheme", () => {
    for (const header of [
      null,
      "",
      `Bearer ${TOKEN}x`,
      `Bearer ${TOKEN.slice(0, -1)}`,
      TOKEN,
      `Basic ${TOKEN}`,
      "Bearer ",
    ]) {
      expect(metricsAccess(header, prod)).toBe("refused");
      expect(metricsAccess(header, dev)).toBe("refused");
    }
  });

  it("with no token configured, grants anyone outside production and nobody in production", () => {
    expect(metricsAccess(null, loadConfig({ NODE_ENV: "development" }))).toBe("granted");
    expect(
      metricsAccess(
        `Bearer ${TOKEN}`,
        loadConfig({ NODE_ENV: "production", SERVICE_BASE_URL: "https://signet.example.com" }),
      ),
    ).toBe("unconfigured");
  });
});
