import { expect, test } from "@playwright/test";
import { BASE, makePaidCall } from "./support";
import { connectWallet, E2E_OPERATOR, freshKeypair, installTestWallet } from "./test-wallet";

const body = { model: "local/echo-1", network: "mainnet", messages: [{ role: "user", content: "kill switch" }] };
const mainnetCall = () => fetch(`${BASE}/api/v1/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

test("an operator signs in, turns mainnet off (503) and on again, and the audit log shows both", async ({ page }) => {
  const call = await makePaidCall("count me on the dashboard");
  await installTestWallet(page, E2E_OPERATOR);
  await page.goto("/dashboard");
  await connectWallet(page, E2E_OPERATOR);
  await page.getByTestId("sign-in-button").click();
  await expect(page.getByTestId("operator-pubkey")).toHaveText(E2E_OPERATOR.publicKeyBase58);

  // Live figures and recent calls include the paid call just made, with a link to its receipt.
  const devnetRow = page.getByTestId("figures-row").and(page.locator(`[data-network="${call.receipt.payment.network}"]`));
  await expect(devnetRow.getByTestId("paid-calls")).not.toHaveText("0");
  await expect(page.getByTestId("recent-call").locator(`a[href$="/r/${call.receipt.inference_id}"]`)).toHaveCount(1);

  page.on("dialog", (dialog) => void dialog.accept());
  // The e2e server starts with mainnet off: turn it on, then off, then on, reading what a mainnet call answers.
  await expect(page.getByTestId("mainnet-state")).toHaveText("OFF");
  expect((await mainnetCall()).status).toBe(503);
  await page.getByTestId("kill-switch").click();
  await expect(page.getByTestId("mainnet-state")).toHaveText("ON");
  expect((await mainnetCall()).status).toBe(402);

  await page.getByTestId("kill-switch").click();
  await expect(page.getByTestId("mainnet-state")).toHaveText("OFF");
  const off = await mainnetCall();
  expect(off.status).toBe(503);
  expect(await off.json()).toMatchObject({ error: "mainnet_disabled" });

  await page.getByTestId("kill-switch").click();
  await expect(page.getByTestId("mainnet-state")).toHaveText("ON");
  expect((await mainnetCall()).status).toBe(402);

  const rows = page.getByTestId("audit-row").filter({ hasText: "SERVICE_MAINNET_ENABLED" });
  await expect(rows).toHaveCount(3);
  await expect(rows.filter({ hasText: "true → false" })).toHaveCount(1);
  await expect(rows.filter({ hasText: "false → true" })).toHaveCount(1);
  await expect(rows.first()).toContainText(E2E_OPERATOR.publicKeyBase58.slice(0, 8));
  await expect(page.getByTestId("setting-SERVICE_MAINNET_ENABLED")).toHaveValue("true");

  // An invalid value is refused next to its field, and changes nothing.
  await page.getByTestId("setting-X402_FLAT_PRICE_USDC").fill("0");
  await page.getByTestId("save-X402_FLAT_PRICE_USDC").click();
  await expect(page.getByTestId("setting-error-X402_FLAT_PRICE_USDC")).toContainText(/positive/i);
  await expect(page.getByTestId("audit-row").filter({ hasText: "X402_FLAT_PRICE_USDC" })).toHaveCount(0);
  // A valid one is saved and audited.
  await page.getByTestId("setting-X402_FLAT_PRICE_USDC").fill("0.002");
  await page.getByTestId("save-X402_FLAT_PRICE_USDC").click();
  await expect(page.getByTestId("audit-row").filter({ hasText: "X402_FLAT_PRICE_USDC" })).toContainText("→ 0.002");
  await expect(page.getByTestId("setting-error-X402_FLAT_PRICE_USDC")).toHaveCount(0);
  await page.getByTestId("setting-X402_FLAT_PRICE_USDC").fill("0.001");
  await page.getByTestId("save-X402_FLAT_PRICE_USDC").click();
  await expect(page.getByTestId("audit-row").filter({ hasText: "0.002 → 0.001" })).toHaveCount(1);

  // The read-only reconciliation: every network the service serves, zero drift after the paid call above.
  await page.getByTestId("reconcile-button").click();
  const networks = page.getByTestId("reconcile-network");
  await expect(networks.first()).toBeVisible();
  expect(await networks.count()).toBeGreaterThanOrEqual(3);
  for (const row of await networks.all()) await expect(row).toHaveAttribute("data-drift", "0");
  await expect(page.getByTestId("reconcile-report")).toContainText("1 transfers on chain, 1 recorded");

  await page.screenshot({ path: "test-results/screenshots/dashboard.png", fullPage: true });
});

test("a wallet that is not an operator is refused, and a tRPC mutation without a session gets 401", async ({ page, request }) => {
  const stranger = freshKeypair();
  await installTestWallet(page, stranger);
  await page.goto("/dashboard");
  await connectWallet(page, stranger);
  await page.getByTestId("sign-in-button").click();
  await expect(page.getByTestId("sign-in-error")).toContainText(/not an operator/i);
  await expect(page.getByTestId("operator-pubkey")).toHaveCount(0);

  const res = await request.post(`${BASE}/api/trpc/settings.set`, {
    headers: { "content-type": "application/json", origin: BASE },
    data: { key: "SERVICE_MAINNET_ENABLED", value: "true" },
  });
  expect(res.status()).toBe(401);
  expect(JSON.stringify(await res.json())).not.toContain("SERVICE_MAINNET_ENABLED");
  const read = await request.get(`${BASE}/api/trpc/settings.get`);
  expect(read.status()).toBe(401);
});
