import { expect, test } from "@playwright/test";
import { signReadHeaders } from "../server/agent/sign-request";
import { formatUnitsAsUsdc, usdcNumberToUnits } from "../server/verify";
import {
  BASE,
  CHECKS,
  makeEvmPaidCall,
  makePaidCall,
  makePaidEmbeddingsCall,
  makeStreamedPaidCall,
  makeStreamedResponsesCall,
  pasteAndExpectFivePasses,
  payForChat,
} from "./support";

test("a real paid receipt pasted with its prompt and response shows five passes, verified in the browser", async ({
  page,
}) => {
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

test("a real paid embeddings receipt pasted with its request and response shows five passes; a moved vector value fails response_hash_ok", async ({
  page,
}) => {
  const call = await makePaidEmbeddingsCall({
    model: "local/hash-embed-1",
    input: ["embed me", "and me"],
    dimensions: 8,
  });
  await pasteAndExpectFivePasses(page, call);
  await expect(page.getByTestId("check-prompt_hash_ok")).toContainText("embeddings form");

  const moved = structuredClone(call.response);
  (moved.data[1]!.embedding as number[])[0]! += 0.25;
  await page.getByTestId("response-input").fill(JSON.stringify(moved));
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
});

test("a receipt's permalink shows its verdict on load, readable dates and network names, and what stayed as credit", async ({
  page,
}) => {
  const { res, agent } = await payForChat({ messages: [{ role: "user", content: "permalink on load" }] });
  expect(res.status).toBe(200);
  const receipt = JSON.parse(Buffer.from(res.headers.get("x-service-receipt")!, "base64").toString()) as {
    inference_id: string;
    timestamp: number;
    cost_usdc: number;
    agent_pubkey: string;
    payment: { amount_usdc: number; network: string };
  };
  await page.goto(`/r/${receipt.inference_id}`);
  // No click: the signature and the log inclusion are checked as the page opens.
  await expect(page.getByTestId("check-service_signature_ok")).toHaveAttribute("data-pass", "true");
  await expect(page.getByTestId("receipt-summary")).toHaveAttribute("data-trusted", "true");
  await expect(page.getByTestId("untrusted-banner")).toHaveCount(0);
  await expect(page.getByTestId("log-inclusion")).toHaveAttribute("data-status", "included", { timeout: 20_000 });

  // Dates in UTC (ISO) and in the reader's own time; never the raw epoch number alone.
  const iso = new Date(receipt.timestamp).toISOString();
  await expect(page.getByTestId("receipt-issued-utc")).toHaveAttribute("datetime", iso);
  await expect(page.getByTestId("receipt-issued-utc")).toContainText(`${iso.slice(0, 10)} ${iso.slice(11, 19)}`);
  await expect(page.getByTestId("receipt-issued-local")).toContainText("your time");
  await expect(page.getByTestId("field-timestamp")).toContainText("UTC");

  // The network by name.
  await expect(page.getByTestId("field-payment.network")).toContainText("Solana devnet");
  await expect(page.getByTestId("summary-paid")).toContainText("USDC on Solana devnet");

  // Paid vs cost vs kept: the page's kept credit is what the ledger holds for the paying key.
  const paid = usdcNumberToUnits(receipt.payment.amount_usdc)!;
  const cost = usdcNumberToUnits(receipt.cost_usdc)!;
  const kept = paid - (cost < paid ? cost : paid);
  await expect(page.getByTestId("money-paid")).toHaveText(`${formatUnitsAsUsdc(paid)} USDC`);
  await expect(page.getByTestId("money-cost")).toHaveText(`− ${formatUnitsAsUsdc(cost)} USDC`);
  await expect(page.getByTestId("money-kept")).toHaveText(`${formatUnitsAsUsdc(kept)} USDC`);
  await expect(page.getByTestId("credit-kept-note")).toContainText(
    "stays as that key's prepaid credit on Solana devnet",
  );
  await expect(page.getByTestId("credit-kept-note")).toContainText(receipt.agent_pubkey);
  await expect(page.getByTestId("credit-kept-note")).toContainText("--network devnet");
  const url = `${BASE}/api/v1/credits/${agent.publicKeyBase58}?network=devnet`;
  const credits = (await (
    await fetch(url, { headers: signReadHeaders(agent, url.split("?")[0]!, String(Date.now())) })
  ).json()) as { balance_usdc: string };
  expect(credits.balance_usdc).toBe(formatUnitsAsUsdc(kept));
  await page.screenshot({ path: "test-results/screenshots/permalink.png", fullPage: true });
});

test("a Base Sepolia permalink names its network and says its kept credit cannot be spent by the prepaid route", async ({
  page,
}) => {
  const call = await makeEvmPaidCall("permalink on Base");
  const receipt = JSON.parse(Buffer.from(call.receiptHeader, "base64").toString()) as { inference_id: string };
  await page.goto(`/r/${receipt.inference_id}`);
  await expect(page.getByTestId("check-service_signature_ok")).toHaveAttribute("data-pass", "true");
  await expect(page.getByTestId("field-payment.network")).toContainText("Base Sepolia");
  await expect(page.getByTestId("money-kept")).toBeVisible();
  await expect(page.getByTestId("credit-kept-note")).toContainText("cannot be spent yet");
  await expect(page.getByTestId("credit-kept-note")).toContainText(call.account.address.toLowerCase());
});

test("a Base Sepolia receipt verifies in the browser against the chain's transaction receipt, and the hosted verifier agrees", async ({
  page,
}) => {
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

test("a streamed Responses receipt verifies in the browser with the request and the events", async ({ page }) => {
  const call = await makeStreamedResponsesCall("a Responses stream into the explorer");
  await page.goto("/explorer");
  await page.getByTestId("receipt-input").fill(JSON.stringify(call.receipt));
  await page.getByTestId("prompt-input").fill(JSON.stringify({ input: call.request.input }));
  await page.getByTestId("response-input").fill(JSON.stringify(call.events));
  await page.getByTestId("verify-button").click();
  await expect(page.getByTestId("overall")).toHaveText("All five checks pass");
  for (const c of CHECKS) await expect(page.getByTestId(`check-${c}`)).toHaveAttribute("data-pass", "true");
});

test("the explorer proves a receipt's inclusion in the public receipt log, in the browser, and refuses a changed receipt", async ({
  page,
}) => {
  const call = await makePaidCall("log me in the browser");
  await page.goto("/explorer");
  await page.getByTestId("receipt-input").fill(call.receiptHeader);
  await page.getByTestId("verify-button").click();
  // The checkpoint is signed within about a second of the call: the page asks again after the Retry-After it is given.
  await expect(page.getByTestId("log-inclusion")).toHaveAttribute("data-status", "included", { timeout: 20_000 });
  await expect(page.getByTestId("log-inclusion")).toContainText("Included in the log at index");
  await expect(page.getByTestId("log-key")).toContainText("localhost:3210/log+");
  await page.screenshot({ path: "test-results/screenshots/explorer-log.png", fullPage: true });

  await expect(page.getByTestId("receipt-summary")).toHaveAttribute("data-trusted", "true");

  // A changed field: the signature fails, so the card's fields are marked as vouched for by nobody, and the log's
  // not_included is said in words with what to do.
  const changed = { ...call.receipt, cost_usdc: 0 };
  await page.getByTestId("receipt-input").fill(JSON.stringify(changed));
  await page.getByTestId("verify-button").click();
  await expect(page.getByTestId("check-service_signature_ok")).toHaveAttribute("data-pass", "false");
  await expect(page.getByTestId("receipt-summary")).toHaveAttribute("data-trusted", "false");
  await expect(page.getByTestId("untrusted-banner")).toHaveText(
    /^Signature does not verify: these fields are not vouched for by the operator/,
  );
  await expect(page.getByTestId("receipt-summary").getByText("unverified").first()).toBeVisible();
  await expect(page.getByTestId("log-inclusion")).toHaveAttribute("data-status", "failed", { timeout: 20_000 });
  await expect(page.getByTestId("log-inclusion")).toHaveAttribute("data-code", "not_included");
  await expect(page.getByTestId("log-inclusion")).toContainText("not_included");
  await expect(page.getByTestId("log-meaning")).toContainText("does not hash to the entry there");
  await expect(page.getByTestId("log-next")).toContainText("permalink");
  await page.screenshot({ path: "test-results/screenshots/explorer-untrusted.png", fullPage: true });
});
