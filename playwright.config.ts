import { defineConfig } from "@playwright/test";

// The browser suite: Debian's chromium (never a downloaded browser), against the whole offline stack started by
// e2e/start-server.ts (PostgreSQL + local chain + Next), on its own ports.
export const E2E_PORT = 3210;

// The specs import server modules (`import "server-only"`), which load only under the react-server condition: the
// runner is started with it (`npm run test:e2e`) and its test workers inherit the flag.
if (!process.execArgv.includes("--conditions=react-server")) {
  throw new Error(
    "run the browser suite with `npm run test:e2e` (node --conditions=react-server), not `npx playwright test`",
  );
}

// The dev-mode specs (e2e/dev-*.spec.ts) start their own `npm run dev` on free ports: a run naming only those builds
// and starts no production stack.
const specArgs = process.argv.filter((arg) => /\.spec\.ts$/.test(arg));
const devModeOnly = specArgs.length > 0 && specArgs.every((arg) => /(^|\/)dev-[^/]*\.spec\.ts$/.test(arg));

export default defineConfig({
  testDir: "e2e",
  testMatch: "**/*.spec.ts",
  timeout: 90_000,
  workers: 1,
  reporter: [["list"], ["json", { outputFile: "test-results/e2e-results.json" }]],
  outputDir: "test-results/e2e",
  use: {
    baseURL: `http://localhost:${E2E_PORT}`,
    launchOptions: {
      executablePath: "/usr/bin/chromium",
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--disable-quic",
      ],
    },
    screenshot: "only-on-failure",
  },
  webServer: devModeOnly
    ? undefined
    : {
        command: "npx tsx --conditions=react-server e2e/start-server.ts",
        url: `http://localhost:${E2E_PORT}/api/v1/operator-key`,
        timeout: 180_000,
        reuseExistingServer: false,
        stdout: "pipe",
        stderr: "pipe",
      },
});
