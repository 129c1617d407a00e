import { expect, test } from "@playwright/test";
import { CHECKS, makeEvmPaidCall, makePaidCall, makeStreamedPaidCall, pasteAndExpectFivePasses } from "./support";

test("a real paid receipt pasted with its prompt and response shows five passes, verified in the browser", async ({ page }) => {
  const call = await makePaidCall("explore me");
  await pasteAndExpectFivePasses(page, call);
  await expect(page.getByTestId("check-payer_matches")).toContainText("signed and paid");
  await page.screenshot({ path: "test-results/screenshots/explorer.png", fullPage: true });

  await page.getByTestId("hosted-button").click();
  await expect(page.getByTestId("hosted-signature")).toHaveAttribute("data-valid", "true");
});

test("one changed character in the response fails response_hash_ok with its reason", async ({ page }) => {
  const call = await makePaidCall("tamper with me");
  const tampered = structuredClone(call.response);
  tampered.choices[0]!.message.content = `${tampered.choices[0]!.message.content.slice(0, -1)}?`;
  await page.goto("/explorer");
  await page.getByTestId("receipt-input").fill(JSON.stringify(call.receipt));
  await page.getByTestId("prompt-input").fill(JSON.stringify(call.messages));
  await page.getByTestId("response-input").fill(JSON.stringify(tampered));
  await page.getByTestId("verify-button").click();
  await expect(page.getByTestId("overall")).toHaveText("Verification failed");
  await expect(page.getByTestId("check-response_hash_ok")).toHaveAttribute("data-pass", "false");
  await expect(page.getByTestId("check-response_hash_ok")).toContainText("differs");
  await expect(page.getByTestId("check-prompt_hash_ok")).toHaveAttribute("data-pass", "true");
});

test("a permalink id alone shows the signature-only result and no green badge", async ({ page }) => {
  const call = await makePaidCall("permalink me");
  await page.goto("/explorer");
  await page.getByTestId("receipt-input").fill(call.receipt.inference_id);
  await page.getByTestId("verify-button").click();
  await expect(page.getByTestId("signature-only-note")).toContainText("hashes were not checked");
  await expect(page.getByTestId("overall")).toHaveCount(0);
  await expect(page.getByTestId("check-service_signature_ok")).toHaveAttribute("data-pass", "true");

  await page.goto(`/r/${call.receipt.inference_id}`);
  await expect(page.getByTestId("receipt-fields")).toContainText(call.receipt.inference_id);
  await page.getByTestId("verify-button").click();
  await expect(page.getByTestId("check-service_signature_ok")).toHaveAttribute("data-pass", "true");
  await page.screenshot({ path: "test-results/screenshots/permalink.png", fullPage: true });
});

test("a Base Sepolia receipt verifies in the browser against the chain's transaction receipt, and the hosted verifier agrees", async ({ page }) => {
  const call = await makeEvmPaidCall("explore me on Base");
  await pasteAndExpectFivePasses(page, call);
  await expect(page.getByTestId("check-payer_matches")).toContainText(call.account.address.toLowerCase());
  await page.getByTestId("hosted-button").click();
  await expect(page.getByTestId("hosted-signature")).toHaveAttribute("data-valid", "true");
});

test("a streamed receipt verifies in the browser with the chunks, and with the concatenated text", async ({ page }) => {
  const call = await makeStreamedPaidCall("stream into the explorer");
  for (const response of [call.chunks, call.text]) {
    await page.goto("/explorer");
    await page.getByTestId("receipt-input").fill(JSON.stringify(call.receipt));
    await page.getByTestId("prompt-input").fill(JSON.stringify(call.messages));
    await page.getByTestId("response-input").fill(typeof response === "string" ? response : JSON.stringify(response));
    await page.getByTestId("verify-button").click();
    await expect(page.getByTestId("overall")).toHaveText("All five checks pass");
    for (const c of CHECKS) await expect(page.getByTestId(`check-${c}`)).toHaveAttribute("data-pass", "true");
  }
  await page.screenshot({ path: "test-results/screenshots/explorer-streamed.png", fullPage: true });
});

test("the explorer proves a receipt's inclusion in the public receipt log, in the browser, and refuses a changed receipt", async ({ page }) => {
  const call = await makePaidCall("log me in the browser");
  await page.goto("/explorer");
  await page.getByTestId("receipt-input").fill(call.receiptHeader);
  await page.getByTestId("verify-button").click();
  // The checkpoint is signed within about a second of the call: the page asks again after the Retry-After it is given.
  await expect(page.getByTestId("log-inclusion")).toHaveAttribute("data-status", "included", { timeout: 20_000 });
  await expect(page.getByTestId("log-inclusion")).toContainText("Included in the log at index");
  await expect(page.getByTestId("log-key")).toContainText("localhost:3210/log+");
  await page.screenshot({ path: "test-results/screenshots/explorer-log.png", fullPage: true });

  const changed = { ...call.receipt, cost_usdc: 0 };
  await page.getByTestId("receipt-input").fill(JSON.stringify(changed));
  await page.getByTestId("verify-button").click();
  await expect(page.getByTestId("log-inclusion")).toHaveAttribute("data-status", "failed", { timeout: 20_000 });
  await expect(page.getByTestId("log-inclusion")).toContainText("not_included");
});
