// Every page, at a desktop width and at 375 px: axe-core finds no serious or critical violation, the page never scrolls
// sideways, and a full-page screenshot lands in test-results/screenshots/<page>-<desktop|mobile>.png. Each page is
// checked in a state a person sees (the explorer with a verified receipt, the credits page with a connected wallet, the
// dashboard signed in). axe's findings of every impact are written to test-results/axe/<page>-<viewport>.json.
import { mkdirSync, writeFileSync } from "node:fs";
import AxeBuilder from "@axe-core/playwright";
import { expect, test, type Page } from "@playwright/test";
import { fundDevnetUsdc, makePaidCall, pasteAndExpectFivePasses } from "./support";
import { connectWallet, E2E_OPERATOR, freshKeypair, installTestWallet } from "./test-wallet";

const VIEWPORTS = [
  { name: "desktop", width: 1280, height: 800 },
  { name: "mobile", width: 375, height: 812 },
] as const;

/** Checks `page` as it is now at both widths; `ready` waits for what the page must show at each. */
async function checkEveryWidth(
  page: Page,
  name: string,
  ready: () => Promise<void>,
  { fullPage = true } = {},
): Promise<void> {
  mkdirSync("test-results/axe", { recursive: true });
  for (const viewport of VIEWPORTS) {
    await page.setViewportSize({ width: viewport.width, height: viewport.height });
    // Two frames: layout observers (the charts' ResizeObserver) run and the page repaints at the new width.
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
    await ready();

    const overflow = await page.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );
    expect(overflow, `${name} scrolls sideways at ${viewport.width} px`).toBeLessThanOrEqual(0);

    // axe.run in the page itself, reporting violations only: the default runs each rule's results again in a second
    // page and details every passing node, which doubled the docs reference's 11 s audit. Every violation is still
    // reported whole. This way axe does not reach a cross-origin frame, so a page must have none.
    const origin = new URL(page.url()).origin;
    const foreignFrames = page
      .frames()
      .map((frame) => frame.url())
      .filter((url) => url !== "about:blank" && new URL(url).origin !== origin);
    expect(foreignFrames, `${name} has a cross-origin frame axe would not check`).toEqual([]);
    const results = await new AxeBuilder({ page })
      .setLegacyMode()
      .options({ resultTypes: ["violations"] })
      .analyze();
    const found = results.violations.map((v) => ({
      id: v.id,
      impact: v.impact ?? "unknown",
      help: v.help,
      nodes: v.nodes.map((n) => n.target.join(" ")),
    }));
    writeFileSync(
      `test-results/axe/${name}-${viewport.name}.json`,
      `${JSON.stringify({ page: name, viewport: viewport.name, violations: found }, null, 2)}\n`,
    );
    const counts = new Map<string, number>();
    for (const v of found) counts.set(v.impact, (counts.get(v.impact) ?? 0) + 1);
    console.log(
      `axe ${name} ${viewport.name}: ${found.length === 0 ? "no violations" : [...counts].map(([impact, n]) => `${impact}: ${n}`).join(", ")}`,
    );
    expect(
      found.filter((v) => v.impact === "serious" || v.impact === "critical"),
      `serious or critical axe violations on ${name} at ${viewport.width} px`,
    ).toEqual([]);

    await page.screenshot({ path: `test-results/screenshots/${name}-${viewport.name}.png`, fullPage });
  }
}

test("home: what Signet is, the live facts and the first calls", async ({ page }) => {
  await page.goto("/");
  await expect(page.getByTestId("home-intro")).toContainText("Signet is an OpenAI-compatible inference API");
  await expect(page.getByTestId("fact-price")).toHaveText(/^\d+(\.\d+)? USDC$/);
  await expect(page.getByTestId("fact-mainnet")).toHaveText(/ON|OFF/);
  await expect(page.getByTestId("fact-networks").locator('[data-enabled="true"]')).not.toHaveCount(0);
  // The e2e mainnets are off: their chips are struck through, and a legend says what striking means.
  await expect(page.getByTestId("fact-networks").locator('[data-enabled="false"]')).not.toHaveCount(0);
  await expect(page.getByTestId("network-legend")).toContainText("not served by this deployment now");
  // The paid-call section says where a paid call's unused price goes.
  await expect(page.getByTestId("paid-call-credit")).toContainText(
    "the unused rest stays as prepaid credit for the paying key",
  );
  await expect(page.getByTestId("paid-call-credit")).toContainText("POST /api/v1/inference");
  const operatorKey = ((await (await page.request.get("/api/v1/operator-key")).json()) as { pubkey: string }).pubkey;
  await expect(page.getByTestId("fact-operator-key")).toHaveText(operatorKey);
  await expect(page.getByTestId("footer-operator-key")).toHaveText(operatorKey);
  const verifierKey = ((await (await page.request.get("/api/verify/operator-key")).json()) as { pubkey: string })
    .pubkey;
  await expect(page.getByTestId("footer-verifier-key")).toHaveText(verifierKey);
  await expect(page.getByTestId("first-call")).toHaveCount(5);
  await expect(page.getByTestId("first-call").last()).toContainText("/mcp");
  await expect(page.getByTestId("first-call").first()).toContainText("curl -i http");
  await expect(page.getByRole("link", { name: "Verify a receipt" }).first()).toHaveAttribute("href", "/explorer");

  // The navigation reaches every page, and marks the current one.
  const nav = page.getByRole("navigation", { name: "Main" });
  for (const [label, href] of [
    ["Explorer", "/explorer"],
    ["Log", "/log"],
    ["Credits", "/credits"],
    ["Grants", "/grants"],
    ["Docs", "/docs"],
    ["Dashboard", "/dashboard"],
  ] as const) {
    await expect(nav.getByRole("link", { name: label })).toHaveAttribute("href", href);
  }
  await expect(nav.getByRole("link", { name: "Home" })).toHaveAttribute("aria-current", "page");

  await checkEveryWidth(page, "home", async () => {
    await expect(page.getByTestId("live-facts")).toBeVisible();
  });
});

test("explorer with a verified receipt, and the receipt's permalink", async ({ page }) => {
  const call = await makePaidCall("pages: explorer");
  await pasteAndExpectFivePasses(page, call);
  // Each check says what it means, and the transaction links to its network's explorer.
  await expect(page.getByTestId("check-payment_on_chain_ok")).toContainText("The payment is on the chain");
  await expect(page.getByTestId("summary-tx")).toHaveAttribute(
    "href",
    /^https:\/\/explorer\.solana\.com\/tx\/\w+\?cluster=devnet$/,
  );
  await expect(page.getByTestId("receipt-summary").getByTestId("copy-button")).not.toHaveCount(0);
  await checkEveryWidth(page, "explorer", async () => {
    await expect(page.getByTestId("result")).toBeVisible();
  });

  // A receipt whose signature fails: the card is marked as not vouched for.
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.getByTestId("receipt-input").fill(JSON.stringify({ ...call.receipt, model: "someone/else" }));
  await page.getByTestId("prompt-input").fill("");
  await page.getByTestId("response-input").fill("");
  await page.getByTestId("verify-button").click();
  await checkEveryWidth(page, "explorer-untrusted", async () => {
    await expect(page.getByTestId("untrusted-banner")).toBeVisible();
    await expect(page.getByTestId("log-inclusion")).toHaveAttribute("data-status", "failed", { timeout: 20_000 });
  });

  await page.goto(`/r/${call.receipt.inference_id}`);
  await checkEveryWidth(page, "permalink", async () => {
    await expect(page.getByTestId("receipt-fields")).toContainText(call.receipt.inference_id);
    // The verdict shows without a click, with the money the call left behind.
    await expect(page.getByTestId("check-service_signature_ok")).toHaveAttribute("data-pass", "true");
    await expect(page.getByTestId("log-inclusion")).toHaveAttribute("data-status", "included", { timeout: 20_000 });
    await expect(page.getByTestId("receipt-money")).toBeVisible();
  });
});

test("log: its size, the latest checkpoint checked in the browser, recent entries linking to their receipts", async ({
  page,
}) => {
  const call = await makePaidCall("pages: a call for the log");
  const key = (await (await page.request.get("/log/key")).json()) as { origin: string; verifier_key: string };
  // The call's receipt is in a signed checkpoint within a second or so: the proof route says when.
  await expect
    .poll(async () => (await page.request.get(`/api/v1/receipts/${call.receipt.inference_id}/proof`)).status(), {
      timeout: 20_000,
    })
    .toBe(200);
  await page.goto("/log");
  await expect(page).toHaveTitle("Receipt log · Signet");
  await expect(page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Log" })).toHaveAttribute(
    "aria-current",
    "page",
  );
  const size = Number(await page.getByTestId("log-size").getAttribute("data-size"));
  expect(size).toBeGreaterThan(0);
  await expect(page.getByTestId("checkpoint-size")).toHaveText(String(size));
  await expect(page.getByTestId("checkpoint-origin")).toHaveText(key.origin);
  await expect(page.getByTestId("checkpoint-root")).toHaveText(/^[A-Za-z0-9+/]{43}=$/);
  await expect(page.getByTestId("checkpoint-signature")).toHaveAttribute("data-status", "valid", { timeout: 20_000 });
  await expect(page.getByTestId("checkpoint-signature")).toContainText(key.verifier_key);
  await expect(page.getByTestId("log-verifier-key")).toHaveText(key.verifier_key);
  // The newest entry first, at the highest index; the call's receipt is among them and links to its page.
  await expect(page.getByTestId("log-entry").first().locator("td").first()).toHaveText(String(size - 1));
  const entry = page.getByTestId("log-entries").getByRole("link", { name: call.receipt.inference_id });
  await expect(entry).toHaveAttribute("href", `/r/${call.receipt.inference_id}`);
  await checkEveryWidth(page, "log", async () => {
    await expect(page.getByTestId("checkpoint-signature")).toHaveAttribute("data-status", "valid");
    await expect(page.getByTestId("log-entries")).toBeVisible();
  });

  // The receipt's page names the receipt in its title.
  await page.setViewportSize({ width: 1280, height: 800 });
  await entry.click();
  await expect(page).toHaveURL(new RegExp(`/r/${call.receipt.inference_id}$`));
  await expect(page).toHaveTitle(`Receipt ${call.receipt.inference_id.slice(0, 8)} · Signet`);
});

test("credits with a connected wallet, and grants", async ({ page }) => {
  const wallet = freshKeypair();
  await fundDevnetUsdc(wallet.publicKeyBase58, 2_500_000n);
  await installTestWallet(page, wallet);
  await page.goto("/credits");
  await checkEveryWidth(page, "credits-disconnected", async () => {
    await expect(page.getByRole("button", { name: /select wallet/i })).toBeVisible();
  });
  await page.setViewportSize({ width: 1280, height: 800 });
  await connectWallet(page, wallet);
  await checkEveryWidth(page, "credits", async () => {
    await expect(page.getByTestId("usdc-balance")).toHaveAttribute("data-units", "2500000");
  });

  await page.goto("/grants");
  await checkEveryWidth(page, "grants", async () => {
    await expect(page.getByRole("heading", { name: "Claim your first credit" })).toBeVisible();
    await expect(page.getByTestId("grant-amount")).toBeVisible();
  });
});

test("docs: the API reference under the same navigation and key footer", async ({ page }) => {
  // axe walks the whole reference (some 40,000 px, 10,000 nodes) at both widths: 25 s on a quiet machine, past the
  // 90 s default beside the rest of `npm test`. Three times the default.
  test.slow();
  await page.goto("/docs");
  await expect(page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Docs" })).toHaveAttribute(
    "aria-current",
    "page",
  );
  await expect(page.getByTestId("footer-key")).toHaveCount(2);
  await checkEveryWidth(
    page,
    "docs",
    async () => {
      await expect(
        page.getByRole("heading", { name: "Paid chat completion (x402, one payment per call)" }),
      ).toBeVisible({ timeout: 20_000 });
      // The reference is some 40,000 px long: the screenshot is the first screen.
    },
    { fullPage: false },
  );
});

test("dashboard: signed out, and signed in with its charts", async ({ page }) => {
  await makePaidCall("pages: a call for the charts");
  await installTestWallet(page, E2E_OPERATOR);
  await page.goto("/dashboard");
  await checkEveryWidth(page, "dashboard-signed-out", async () => {
    await expect(page.getByText("Operators sign in by signing")).toBeVisible();
  });
  await page.setViewportSize({ width: 1280, height: 800 });
  await connectWallet(page, E2E_OPERATOR);
  await page.getByTestId("sign-in-button").click();
  await expect(page.getByTestId("operator-pubkey")).toHaveText(E2E_OPERATOR.publicKeyBase58);
  await checkEveryWidth(page, "dashboard", async () => {
    // The calls chart has drawn its bars, with its axes' labels.
    await expect(page.getByTestId("chart-calls").locator(".recharts-bar-rectangle").first()).toBeVisible();
    await expect(page.getByTestId("chart-calls")).toContainText("hour (UTC)");
    await expect(page.getByTestId("money-chart").first()).toContainText("USDC");
    await expect(page.getByTestId("pending-settlements")).toBeVisible();
    await expect(page.getByTestId("figures-row").first()).toBeVisible();
  });
});
