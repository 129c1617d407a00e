// The operator dashboard. Each test sets up its own state (mainnet off, the price it found) and puts it back, and
// asserts only on what it did itself (its own newest audit rows, drift per network), so it passes whichever specs ran
// before or after it.
import { expect, test } from "@playwright/test";
import { BASE, makePaidCall } from "./support";
import { connectWallet, E2E_OPERATOR, freshKeypair, installTestWallet } from "./test-wallet";

const body = { model: "local/echo-1", network: "mainnet", messages: [{ role: "user", content: "kill switch" }] };
const mainnetCall = () =>
  fetch(`${BASE}/api/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });

test("an operator signs in, turns mainnet off (503) and on again, and the audit log shows both", async ({ page }) => {
  const call = await makePaidCall("count me on the dashboard");
  await installTestWallet(page, E2E_OPERATOR);
  await page.goto("/dashboard");
  await connectWallet(page, E2E_OPERATOR);
  await page.getByTestId("sign-in-button").click();
  await expect(page.getByTestId("operator-pubkey")).toHaveText(E2E_OPERATOR.publicKeyBase58);

  // Live figures and recent calls include the paid call just made, with a link to its receipt.
  const devnetRow = page
    .getByTestId("figures-row")
    .and(page.locator(`[data-network="${call.receipt.payment.network}"]`));
  await expect(devnetRow.getByTestId("paid-calls")).not.toHaveText("0");
  await expect(page.getByTestId("recent-call").locator(`a[href$="/r/${call.receipt.inference_id}"]`)).toHaveCount(1);

  const mainnetState = page.getByTestId("mainnet-state");
  const flipMainnet = async (to: "ON" | "OFF") => {
    await page.getByTestId("kill-switch").click();
    // Turning a serving mainnet off refuses its calls: the page shows that and asks first.
    if (to === "OFF") {
      await expect(page.getByTestId("consequences-SERVICE_MAINNET_ENABLED")).toContainText(
        "Solana mainnet calls answer 503 mainnet_disabled",
      );
      await page.getByTestId("confirm-SERVICE_MAINNET_ENABLED").click();
    }
    await expect(mainnetState).toHaveText(to);
  };
  // Start from mainnet off whatever ran before, then turn it on, off and on, reading what a mainnet call answers.
  await expect(mainnetState).toHaveText(/^(ON|OFF)$/);
  if ((await mainnetState.textContent()) === "ON") await flipMainnet("OFF");
  expect((await mainnetCall()).status).toBe(503);
  await flipMainnet("ON");
  expect((await mainnetCall()).status).toBe(402);

  await flipMainnet("OFF");
  const off = await mainnetCall();
  expect(off.status).toBe(503);
  expect(await off.json()).toMatchObject({ error: { code: "mainnet_disabled" } });

  await flipMainnet("ON");
  expect((await mainnetCall()).status).toBe(402);

  // The newest three mainnet rows (the log is newest first) are this test's three changes.
  const rows = page.getByTestId("audit-row").filter({ hasText: "SERVICE_MAINNET_ENABLED" });
  await expect(rows.nth(0)).toContainText("false → true");
  await expect(rows.nth(1)).toContainText("true → false");
  await expect(rows.nth(2)).toContainText(/(\(default\)|false) → true/);
  await expect(rows.first()).toContainText(E2E_OPERATOR.publicKeyBase58.slice(0, 8));
  // One switch for mainnet: the settings list has no second control for it.
  await expect(page.getByTestId("setting-row-SERVICE_MAINNET_ENABLED")).toHaveCount(0);

  // An invalid value is refused next to its field, and changes nothing.
  const priceInput = page.getByTestId("setting-X402_FLAT_PRICE_USDC");
  const price = await priceInput.inputValue();
  const otherPrice = price === "0.002" ? "0.003" : "0.002";
  const priceRows = page.getByTestId("audit-row").filter({ hasText: "X402_FLAT_PRICE_USDC" });
  const priceRowsBefore = await priceRows.count();
  await priceInput.fill("0");
  await page.getByTestId("save-X402_FLAT_PRICE_USDC").click();
  await expect(page.getByTestId("setting-error-X402_FLAT_PRICE_USDC")).toContainText(/positive/i);
  await expect(priceRows).toHaveCount(priceRowsBefore);
  // A valid one is saved and audited; then the price found is put back.
  await priceInput.fill(otherPrice);
  await page.getByTestId("save-X402_FLAT_PRICE_USDC").click();
  await expect(priceRows.first()).toContainText(`→ ${otherPrice}`);
  await expect(page.getByTestId("setting-error-X402_FLAT_PRICE_USDC")).toHaveCount(0);
  await priceInput.fill(price);
  await page.getByTestId("save-X402_FLAT_PRICE_USDC").click();
  await expect(priceRows.first()).toContainText(`${otherPrice} → ${price}`);

  // The read-only reconciliation: every network the service serves, zero drift after the paid call above, and as many
  // recorded payments as transfers on chain (whatever other specs paid for).
  await page.getByTestId("reconcile-button").click();
  const networks = page.getByTestId("reconcile-network");
  await expect(networks.first()).toBeVisible();
  expect(await networks.count()).toBeGreaterThanOrEqual(3);
  let transfers = 0;
  for (const row of await networks.all()) {
    await expect(row).toHaveAttribute("data-drift", "0");
    const [, onChain, recorded] =
      /(\d+) transfers on chain, (\d+) recorded/.exec((await row.textContent()) ?? "") ?? [];
    expect(recorded).toBe(onChain);
    transfers += Number(onChain);
  }
  expect(transfers).toBeGreaterThanOrEqual(1);

  // Leave mainnet as the server starts it, off.
  await flipMainnet("OFF");

  await page.screenshot({ path: "test-results/screenshots/dashboard.png", fullPage: true });
});

test("a wallet that is not an operator is refused, and a tRPC mutation without a session gets 401", async ({
  page,
  request,
}) => {
  const stranger = freshKeypair();
  await installTestWallet(page, stranger);
  await page.goto("/dashboard");
  await connectWallet(page, stranger);
  await page.getByTestId("sign-in-button").click();
  await expect(page.getByTestId("sign-in-error")).toContainText(/not an operator/i);
  await expect(page.getByTestId("operator-pubkey")).toHaveCount(0);

  const res = await request.post(`${BASE}/api/trpc/settings.set`, {
    headers: { "content-type": "application/json", origin: BASE },
    data: { key: "SERVICE_MAINNET_ENABLED", value: true },
  });
  expect(res.status()).toBe(401);
  expect(JSON.stringify(await res.json())).not.toContain("SERVICE_MAINNET_ENABLED");
  const read = await request.get(`${BASE}/api/trpc/settings.get`);
  expect(read.status()).toBe(401);
});
