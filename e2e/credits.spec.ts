// The /credits page: a wallet pays an x402 top-up through the real wallet adapter, with the injected Wallet Standard
// wallet really signing the transfer; and the refusals a person meets (no USDC, a declined signature, the wrong
// network) are said in words, with nothing paid.
import { expect, test } from "@playwright/test";
import { devnetDepositAddress, devnetUsdcUnits, fundDevnetUsdc } from "./support";
import { connectWallet, freshKeypair, installTestWallet } from "./test-wallet";

test("a wallet pays a 0.02 USDC top-up: the chain moves exactly that, and the page shows the new credit and its ledger entry", async ({
  page,
}) => {
  const wallet = freshKeypair();
  await fundDevnetUsdc(wallet.publicKeyBase58, 50_000n);
  const deposit = await devnetDepositAddress();
  const depositBefore = await devnetUsdcUnits(deposit);

  await installTestWallet(page, wallet);
  await page.goto("/credits");
  await connectWallet(page, wallet);
  await expect(page.getByTestId("credits-wallet")).toHaveText(wallet.publicKeyBase58);
  await expect(page.getByTestId("usdc-balance")).toHaveAttribute("data-units", "50000");
  await expect(page.getByTestId("token-account-state")).toHaveAttribute("data-exists", "true");

  await page.getByTestId("amount-input").fill("0.02");
  await page.getByTestId("pay-button").click();
  await expect(page.getByTestId("topup-success")).toBeVisible({ timeout: 30_000 });
  await expect(page.getByTestId("topup-balance")).toHaveText(/^0\.020*$/);
  const tx = await page.getByTestId("topup-tx").textContent();
  expect(tx).toMatch(/^[1-9A-HJ-NP-Za-km-z]{64,88}$/);

  // Exactly the amount left the wallet and reached the deposit address; the page re-reads the wallet's balance.
  expect(await devnetUsdcUnits(wallet.publicKeyBase58)).toBe(30_000n);
  expect((await devnetUsdcUnits(deposit)) - depositBefore).toBe(20_000n);
  await expect(page.getByTestId("usdc-balance")).toHaveAttribute("data-units", "30000");

  // The credit, read with a signed message (no private key in the page): the balance and the top-up's ledger entry.
  await page.getByTestId("show-credit-button").click();
  await expect(page.getByTestId("credit-balance")).toHaveText(/^0\.020*$/);
  await expect(page.getByTestId("ledger-entry")).toHaveCount(1);
  await expect(page.getByTestId("ledger-entry").first()).toHaveAttribute("data-kind", "topup_credit");
  await expect(page.getByTestId("ledger-entry").first()).toContainText("Top-up paid");
  await page.screenshot({ path: "test-results/screenshots/credits-paid.png", fullPage: true });
});

test("a wallet with no USDC is told so, with what to do, and its wallet is never asked to sign", async ({ page }) => {
  const wallet = freshKeypair();
  const credits: string[] = [];
  page.on("request", (req) => {
    if (req.url().includes("/api/v1/credits") && req.method() === "POST") credits.push(req.url());
  });
  await installTestWallet(page, wallet);
  await page.goto("/credits");
  await connectWallet(page, wallet);
  await expect(page.getByTestId("usdc-balance")).toHaveAttribute("data-units", "0");
  await expect(page.getByTestId("token-account-state")).toHaveAttribute("data-exists", "false");
  await page.getByTestId("amount-input").fill("0.01");
  await page.getByTestId("pay-button").click();
  const error = page.getByTestId("topup-error");
  await expect(error).toHaveAttribute("data-code", "no_usdc");
  await expect(error).toContainText("no USDC account on Solana devnet");
  await expect(error).toContainText("then pay again");
  expect(credits).toEqual([]);
  await page.screenshot({ path: "test-results/screenshots/credits-no-usdc.png", fullPage: true });
});

test("a declined signature pays nothing: the balances stay, and the page says so", async ({ page }) => {
  const wallet = freshKeypair();
  await fundDevnetUsdc(wallet.publicKeyBase58, 50_000n);
  const deposit = await devnetDepositAddress();
  const depositBefore = await devnetUsdcUnits(deposit);
  await installTestWallet(page, wallet, { rejectTransactions: true });
  await page.goto("/credits");
  await connectWallet(page, wallet);
  await expect(page.getByTestId("usdc-balance")).toHaveAttribute("data-units", "50000");
  await page.getByTestId("amount-input").fill("0.01");
  await page.getByTestId("pay-button").click();
  const error = page.getByTestId("topup-error");
  await expect(error).toHaveAttribute("data-code", "wallet_rejected");
  await expect(error).toContainText("You declined the transaction in your wallet, so nothing was paid");
  expect(await devnetUsdcUnits(wallet.publicKeyBase58)).toBe(50_000n);
  expect(await devnetUsdcUnits(deposit)).toBe(depositBefore);
});

test("the wrong network is refused before signing: a wallet without devnet, and mainnet while it is switched off", async ({
  page,
}) => {
  const wallet = freshKeypair();
  await fundDevnetUsdc(wallet.publicKeyBase58, 50_000n);
  await installTestWallet(page, wallet, { chains: ["solana:mainnet"] });
  await page.goto("/credits");
  await connectWallet(page, wallet);
  await page.getByTestId("amount-input").fill("0.01");
  await page.getByTestId("pay-button").click();
  await expect(page.getByTestId("topup-error")).toHaveAttribute("data-code", "wrong_network");
  await expect(page.getByTestId("topup-error")).toContainText("Your wallet does not offer Solana devnet");

  // Mainnet is off unless a spec turned it on (the dashboard spec leaves it off).
  await page.getByTestId("network-select").selectOption({ label: "Solana mainnet (switched off)" });
  await page.getByTestId("amount-input").fill("0.01");
  await page.getByTestId("pay-button").click();
  await expect(page.getByTestId("topup-error")).toHaveAttribute("data-code", "wrong_network");
  await expect(page.getByTestId("topup-error")).toContainText("Solana mainnet is switched off on this service");
  expect(await devnetUsdcUnits(wallet.publicKeyBase58)).toBe(50_000n);
});
