// The dashboard's typed settings: each setting's control follows its kind (a toggle, an amount in USDC, a network, a
// list of keys, a write-only secret), a change that would make calls fail is shown with its consequences and saved
// only once confirmed, and a production server's sign-in page shows no development hint. Each test starts from what
// it finds and puts it back, except the IP-hash salt: it is write-only, and no spec depends on its value.
import { expect, test, type Page } from "@playwright/test";
import { SHIPPED_NETWORKS } from "../server/verify";
import { BASE } from "./support";
import { connectWallet, E2E_OPERATOR, installTestWallet } from "./test-wallet";

const mainnetCall = () =>
  fetch(`${BASE}/api/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      model: "local/echo-1",
      network: "mainnet",
      messages: [{ role: "user", content: "typed settings" }],
    }),
  });

async function signIn(page: Page): Promise<void> {
  await installTestWallet(page, E2E_OPERATOR);
  await page.goto("/dashboard");
  // The browser suite serves a production build: the sign-in card says nothing only `npm run dev` does.
  await expect(page.getByTestId("sign-in-command")).toBeVisible();
  await expect(page.getByTestId("sign-in-dev-hint")).toHaveCount(0);
  await connectWallet(page, E2E_OPERATOR);
  await page.getByTestId("sign-in-button").click();
  await expect(page.getByTestId("operator-pubkey")).toHaveText(E2E_OPERATOR.publicKeyBase58);
}

/** Turns mainnet off (confirming what that refuses) if a spec before this one left it on. */
async function mainnetOff(page: Page): Promise<void> {
  const state = page.getByTestId("mainnet-state");
  await expect(state).toHaveText(/^(ON|OFF)$/);
  if ((await state.textContent()) === "OFF") return;
  await page.getByTestId("kill-switch").click();
  await page.getByTestId("confirm-SERVICE_MAINNET_ENABLED").click();
  await expect(state).toHaveText("OFF");
}

test("each setting has the control of its kind, with its label, help and the variable its default comes from", async ({
  page,
}) => {
  await signIn(page);

  // A toggle for a boolean, not a text box holding "false".
  const models = page.getByTestId("setting-SERVICE_TESTNET_PROVIDER_MODELS");
  await expect(models).toHaveAttribute("role", "switch");
  await expect(models).toHaveAttribute("aria-checked", /^(true|false)$/);
  await expect(page.getByRole("switch", { name: "Provider models on testnets" })).toBeVisible();

  // An amount with its unit; refused past 6 decimals, next to its field, with nothing written.
  const priceRow = page.getByTestId("setting-row-X402_FLAT_PRICE_USDC");
  await expect(priceRow).toHaveAttribute("data-kind", "usdc");
  await expect(priceRow.getByText("Price per paid call", { exact: true })).toBeVisible();
  await expect(page.getByTestId("setting-X402_FLAT_PRICE_USDC-unit")).toHaveText("USDC");
  await expect(page.getByTestId("setting-source-X402_FLAT_PRICE_USDC")).toContainText("X402_FLAT_PRICE_USDC");
  const priceRows = page.getByTestId("audit-row").filter({ hasText: "X402_FLAT_PRICE_USDC" });
  const before = await priceRows.count();
  await page.getByTestId("setting-X402_FLAT_PRICE_USDC").fill("0.0000001");
  await page.getByTestId("save-X402_FLAT_PRICE_USDC").click();
  await expect(page.getByTestId("setting-error-X402_FLAT_PRICE_USDC")).toContainText("at most 6 decimals");
  await expect(priceRows).toHaveCount(before);

  // A whole number is refused as anything else.
  await page.getByTestId("setting-SERVICE_GRANT_MAX_PER_IP").fill("three");
  await page.getByTestId("save-SERVICE_GRANT_MAX_PER_IP").click();
  await expect(page.getByTestId("setting-error-SERVICE_GRANT_MAX_PER_IP")).toContainText("whole number");

  // Networks as choices, one per network of the registry, each mainnet and each network without an RPC said so.
  const network = page.getByTestId("setting-X402_NETWORK");
  await expect(network.locator("option")).toHaveCount(SHIPPED_NETWORKS.ids.length);
  await expect(network.locator("option", { hasText: "Solana mainnet (mainnet)" })).toHaveCount(1);
  await expect(network.locator("option", { hasText: "Base (mainnet) (no RPC configured)" })).toHaveCount(1);
  await expect(network.locator("option", { hasText: "Polygon Amoy (no RPC configured)" })).toHaveCount(1);

  // Keys as a list: an entry added, saved (closing an open mainnet is confirmed first), shown, then removed again.
  const agents = page.getByTestId("setting-SERVICE_ALLOWED_AGENTS-entry");
  const agentsBefore = await agents.count();
  const agent = E2E_OPERATOR.publicKeyBase58;
  await page.getByTestId("setting-SERVICE_ALLOWED_AGENTS").fill(agent);
  await page.getByTestId("setting-SERVICE_ALLOWED_AGENTS-add").click();
  await page.getByTestId("save-SERVICE_ALLOWED_AGENTS").click();
  if (agentsBefore === 0) {
    await expect(page.getByTestId("consequences-SERVICE_ALLOWED_AGENTS").getByTestId("consequence")).toHaveAttribute(
      "data-code",
      "agents_refused",
    );
    await page.getByTestId("confirm-SERVICE_ALLOWED_AGENTS").click();
  }
  await expect(agents.filter({ hasText: agent })).toHaveCount(1);
  await page.getByRole("button", { name: `Remove ${agent}` }).click();
  await page.getByTestId("save-SERVICE_ALLOWED_AGENTS").click();
  // Taking an agent off a list that stays closed refuses it on mainnet: confirmed first. Emptying the list opens it.
  if (agentsBefore > 0) await page.getByTestId("confirm-SERVICE_ALLOWED_AGENTS").click();
  await expect(agents).toHaveCount(agentsBefore);

  // One switch for mainnet: the kill switch, and no field for the same setting in the list.
  await expect(page.getByTestId("kill-switch")).toBeVisible();
  await expect(page.getByTestId("setting-row-SERVICE_MAINNET_ENABLED")).toHaveCount(0);
});

test("a secret is shown only as set, and replaced write-only: the audit row says so without the value", async ({
  page,
}) => {
  await signIn(page);
  const status = page.getByTestId("setting-IP_HASH_SALT-status");
  // The browser suite passes IP_HASH_SALT, or a spec before this one replaced it.
  await expect(status).toHaveText(/^set \((from the environment, IP_HASH_SALT|stored in the settings table)\)$/);

  const secret = `e2e-salt-${Date.now()}-never-shown`;
  await page.getByTestId("replace-IP_HASH_SALT").click();
  await page.getByTestId("setting-IP_HASH_SALT").fill(secret);
  await page.getByTestId("save-IP_HASH_SALT").click();
  // A salt in use: replacing it restarts every address's grant count, which is confirmed first.
  await expect(page.getByTestId("consequences-IP_HASH_SALT").getByTestId("consequence")).toHaveAttribute(
    "data-code",
    "grant_counts_reset",
  );
  await page.getByTestId("confirm-IP_HASH_SALT").click();

  await expect(status).toHaveText("set (stored in the settings table)");
  const row = page.getByTestId("audit-row").filter({ hasText: "IP_HASH_SALT" }).first();
  await expect(row).toContainText("→ (replaced)");
  await expect(row).toContainText(E2E_OPERATOR.publicKeyBase58.slice(0, 8));
  expect(await page.content()).not.toContain(secret);
});

test("turning mainnet on without a deposit address warns and waits; cancelled, nothing changes; with one, it just turns on", async ({
  page,
}) => {
  await signIn(page);
  await mainnetOff(page);
  const deposit = page.getByTestId("setting-SERVICE_MAINNET_DEPOSIT_ADDRESS");
  const address = await deposit.inputValue();
  expect(address).not.toBe("");
  const switchRows = page.getByTestId("audit-row").filter({ hasText: "SERVICE_MAINNET_ENABLED" });
  const switchRowsBefore = await switchRows.count();

  // With mainnet off, clearing its deposit address breaks nothing yet: saved at once.
  await deposit.fill("");
  await page.getByTestId("save-SERVICE_MAINNET_DEPOSIT_ADDRESS").click();
  // The field holds what was typed at once; the status says the server stored it.
  await expect(page.getByTestId("setting-saved-SERVICE_MAINNET_DEPOSIT_ADDRESS")).toBeVisible();
  await expect(page.getByTestId("setting-SERVICE_MAINNET_DEPOSIT_ADDRESS")).toHaveValue("");

  // Turning mainnet on now would answer every Solana mainnet call with a 500: the page says so and waits.
  await page.getByTestId("kill-switch").click();
  const consequences = page.getByTestId("consequences-SERVICE_MAINNET_ENABLED");
  await expect(consequences).toContainText(
    "Solana mainnet calls answer 500 server_misconfigured: no Solana mainnet deposit address is set.",
  );
  await expect(page.getByTestId("cancel-SERVICE_MAINNET_ENABLED")).toBeFocused();
  await page.getByTestId("cancel-SERVICE_MAINNET_ENABLED").click();
  await expect(consequences).toHaveCount(0);
  await expect(page.getByTestId("mainnet-state")).toHaveText("OFF");
  await expect(switchRows).toHaveCount(switchRowsBefore);
  expect((await mainnetCall()).status).toBe(503);

  // The address put back, mainnet turns on with nothing to confirm, and off again with its 503s confirmed.
  await page.getByTestId("setting-SERVICE_MAINNET_DEPOSIT_ADDRESS").fill(address);
  await page.getByTestId("save-SERVICE_MAINNET_DEPOSIT_ADDRESS").click();
  await expect(page.getByTestId("setting-saved-SERVICE_MAINNET_DEPOSIT_ADDRESS")).toBeVisible();
  await expect(page.getByTestId("setting-SERVICE_MAINNET_DEPOSIT_ADDRESS")).toHaveValue(address);
  await page.getByTestId("kill-switch").click();
  await expect(page.getByTestId("mainnet-state")).toHaveText("ON");
  await expect(consequences).toHaveCount(0);
  expect((await mainnetCall()).status).toBe(402);

  await page.getByTestId("kill-switch").click();
  await expect(consequences.getByTestId("consequence")).toHaveAttribute("data-code", "network_refused");
  await page.getByTestId("confirm-SERVICE_MAINNET_ENABLED").click();
  await expect(page.getByTestId("mainnet-state")).toHaveText("OFF");
  expect((await mainnetCall()).status).toBe(503);
});
