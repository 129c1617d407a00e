// Streaming against the production server (`next start`): a client that goes away mid-stream must reach our stream's
// cancel through Next, so the upstream stops, the produced text is debited, and no receipt is ever issued.
import { utf8ToBytes } from "@noble/hashes/utils.js";
import { expect, test } from "@playwright/test";
import { signedRequestMessage } from "../server/prepaid/signed-request";
import { signDetached } from "../server/receipts/sign-receipt";
import { answerLocally } from "../server/upstream/local-model";
import { costFromTokens, findModel } from "../server/upstream/model-catalog";
import { parseUsdcToUnits } from "../server/verify";
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
    const signature = signDetached(signedRequestMessage("GET", `${BASE}${path}`, utf8ToBytes(timestamp)), agent);
    const r = await fetch(`${BASE}${path}`, {
      headers: {
        "X-Agent-Pubkey": agent.publicKeyBase58,
        "X-Agent-Signature": signature,
        "X-Agent-Timestamp": timestamp,
      },
    });
    return (await r.json()) as { entries: { kind: string; amount_usdc: string; inference_id: string | null }[] };
  };
  // The call was served from a hold of the price; capturing it returns what was not used.
  let entries: { kind: string; amount_usdc: string; inference_id: string | null }[] = [];
  for (let i = 0; i < 100 && !entries.some((e) => e.kind === "hold_release"); i++) {
    entries = (await readCredits()).entries.filter((e) => e.inference_id === inferenceId);
    if (!entries.some((e) => e.kind === "hold_release")) await new Promise((r) => setTimeout(r, 50));
  }
  expect(entries.map((e) => e.kind).sort()).toEqual(["hold", "hold_release"]);
  const charged = -entries.reduce((sum, e) => sum + signedUnits(e.amount_usdc), 0n);
  const whole = costFromTokens(findModel("local/echo-1")!, answerLocally(messages, 256).usage);
  expect(charged).toBeGreaterThan(0n);
  expect(charged).toBeLessThan(whole);
  expect((await fetch(`${BASE}/api/v1/receipts/${inferenceId}`)).status).toBe(404);
});

/** A signed decimal USDC amount ("-0.001") in atomic units. */
function signedUnits(amount: string): bigint {
  const units = parseUsdcToUnits(amount.replace(/^-/, ""));
  if (units === null) throw new Error(`not a USDC amount: ${amount}`);
  return amount.startsWith("-") ? -units : units;
}
