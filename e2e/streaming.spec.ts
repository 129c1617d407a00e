// Streaming against the production server (`next start`): a client that goes away mid-stream must reach our stream's
// cancel through Next, so the upstream stops, the produced text is debited, and no receipt is ever issued.
import { utf8ToBytes } from "@noble/hashes/utils.js";
import { expect, test } from "@playwright/test";
import { signedRequestMessage } from "../server/prepaid/signed-request";
import { signDetached } from "../server/receipts/sign-receipt";
import { answerLocally } from "../server/upstream/local-model";
import { costFromTokens, findModel } from "../server/upstream/model-catalog";
import { BASE, payForChat } from "./support";

test("a client that leaves mid-stream gets no receipt and is charged only for what was produced", async () => {
  const messages = [{ role: "user", content: "leave me halfway, through next start" }];
  const { res, agent } = await payForChat({ messages, stream: true });
  expect(res.status).toBe(200);
  const reader = res.body!.getReader();
  const first = new TextDecoder().decode((await reader.read()).value);
  const inferenceId = /"id":"chatcmpl-([0-9a-f-]{36})"/.exec(first)?.[1];
  expect(inferenceId).toBeDefined();
  await reader.cancel();

  // The agent's own signed view of its ledger: the debit lands once the server has seen the disconnect.
  const readCredits = async () => {
    const timestamp = String(Date.now());
    const path = `/api/v1/credits/${agent.publicKeyBase58}`;
    const signature = signDetached(signedRequestMessage("GET", path, utf8ToBytes(timestamp)), agent);
    const r = await fetch(`${BASE}${path}`, { headers: { "X-Agent-Pubkey": agent.publicKeyBase58, "X-Agent-Signature": signature, "X-Agent-Timestamp": timestamp } });
    return (await r.json()) as { entries: { kind: string; amount_usdc: string; inference_id: string | null }[] };
  };
  let debit: { amount_usdc: string; inference_id: string | null } | undefined;
  for (let i = 0; i < 100 && !debit; i++) {
    debit = (await readCredits()).entries.find((e) => e.kind === "inference_debit");
    if (!debit) await new Promise((r) => setTimeout(r, 50));
  }
  expect(debit?.inference_id).toBe(inferenceId);
  const charged = Math.round(-Number(debit!.amount_usdc) * 1e6);
  const whole = Number(costFromTokens(findModel("local/echo-1")!, answerLocally(messages, 256).usage));
  expect(charged).toBeGreaterThan(0);
  expect(charged).toBeLessThan(whole);
  expect((await fetch(`${BASE}/api/v1/receipts/${inferenceId}`)).status).toBe(404);
});
