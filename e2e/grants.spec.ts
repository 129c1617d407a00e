import { expect, test } from "@playwright/test";
import { connectWallet, freshKeypair, installTestWallet } from "./test-wallet";

test("a new wallet claims a grant and sees its balance; a second claim says already claimed", async ({ page }) => {
  const wallet = freshKeypair();
  await installTestWallet(page, wallet);
  await page.goto("/grants");
  // The page says how much a grant is, and where, before anything is signed: the operator's setting, served live.
  await expect(page.getByTestId("grant-amount")).toHaveText(/^\d+(\.\d+)? USDC$/);
  await expect(page.getByTestId("grant-network")).toHaveText("Solana devnet");
  const amount = (await page.getByTestId("grant-amount").textContent())!;
  await connectWallet(page, wallet);
  await expect(page.getByTestId("grant-wallet")).toHaveText(wallet.publicKeyBase58);

  await expect(page.getByTestId("claim-button")).toHaveText(`Sign and claim ${amount}`);
  await page.getByTestId("claim-button").click();
  await expect(page.getByTestId("grant-success")).toBeVisible();
  await expect(page.getByTestId("grant-success")).toContainText(`Granted ${amount}.`);
  await expect(page.getByTestId("grant-success")).toContainText("USDC on Solana devnet");
  await expect(page.getByTestId("grant-balance")).toHaveText(/^0\.10*$/);
  await expect(page.getByTestId("grant-success")).toContainText("signet -- infer");
  await page.screenshot({ path: "test-results/screenshots/grants.png", fullPage: true });

  await page.getByTestId("claim-button").click();
  await expect(page.getByTestId("grant-error")).toHaveAttribute("data-code", "grant_already_claimed");
  await expect(page.getByTestId("grant-error")).toContainText("already claimed");
});
