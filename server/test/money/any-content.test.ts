// Money never depends on what an answer contains. The built-in model echoes the prompt, so a prompt holding U+0000 or a
// lone UTF-16 surrogate makes an answer holding it: paid (chat and Responses, plain and streamed) and prepaid, each is
// served once, its receipt verifies against exactly what the client read, and a repeat of the same payment gets the
// kept answer with the same receipt and the same x402 receipt, moving nothing. A lone surrogate is sent as U+FFFD (JSON
// cannot carry it in UTF-8); U+0000 and every other code point pass through.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateKeypair } from "../../keys/parse-secret-key";
import { verifyReceipt } from "../../verify";
import { operatorKeypair } from "../support/env";
import { buildPaymentHeader, challengeOf, startPaidStack, type PaidStack } from "../support/paid-stack";
import {
  paidBody,
  readAnswer,
  routeFetch,
  ROUTE_PATHS,
  SERVICE_ORIGIN,
  signedCall,
  type CallRoute,
  type ReadAnswer,
} from "../support/route-calls";

let stack: PaidStack;
beforeAll(async () => {
  stack = await startPaidStack({
    env: { X402_FLAT_PRICE_USDC: "0.001", LOCAL_MODEL_STREAM_DELAY_MS: "0", PREPAID_RATE_LIMIT_PER_MINUTE: "100000" },
  });
});
afterAll(async () => stack?.close());

const allChecks = {
  prompt_hash_ok: true,
  response_hash_ok: true,
  service_signature_ok: true,
  payment_on_chain_ok: true,
  payer_matches: true,
};
const routes = routeFetch();
const post = (route: CallRoute, body: unknown, headers: Record<string, string> = {}) =>
  routes.fetch(`${SERVICE_ORIGIN}${ROUTE_PATHS[route]}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });

/** The contents the reproductions ask with, and what the answer says of each (a lone surrogate as U+FFFD). */
const CONTENTS = [
  { name: "U+0000", asked: "x\u0000y", said: "x\u0000y" },
  { name: "a lone high surrogate", asked: "a\ud800b", said: "a\ufffdb" },
  { name: "a lone low surrogate and a pair", asked: "\udc00\ud83d\ude00", said: "\ufffd\ud83d\ude00" },
];

async function verified(answer: ReadAnswer, prompt: unknown): Promise<void> {
  expect(answer.receipt).not.toBeNull();
  const verdict = await verifyReceipt({
    receipt: answer.receipt!,
    prompt,
    response: answer.response,
    operatorKey: operatorKeypair().publicKeyBase58,
    rpc: stack.devnet.url,
  });
  expect(verdict.checks).toEqual(allChecks);
}

describe("a paid answer of any content", () => {
  for (const content of CONTENTS) {
    for (const route of ["chat", "responses"] as const) {
      for (const stream of [false, true]) {
        it(`serves ${content.name} once on the ${route} route${stream ? ", streamed," : ""} and repeats it from storage with the same receipts`, async () => {
          const agent = await stack.newAgent();
          const body = paidBody(route, content.asked, { stream });
          const header = await buildPaymentHeader(agent, await challengeOf(await post(route, body)), stack.devnet.url);
          const first = await readAnswer(await post(route, body, { "PAYMENT-SIGNATURE": header }), route, stream);
          expect(first.error).toBeNull();
          expect(first.status).toBe(200);
          expect(first.text).toContain(`You said: "${content.said}"`);
          expect(first.text!.isWellFormed()).toBe(true);
          await verified(first, route === "responses" ? body : body.messages);
          expect(first.x402).not.toBeNull();

          const payment = await stack.tdb.prisma.payment.findFirstOrThrow({ where: { payer: agent.address } });
          expect(payment.status).toBe("served");
          const moved = await stack.tdb.prisma.ledgerEntry.count({ where: { agentPubkey: agent.address } });
          for (let i = 0; i < 2; i++) {
            const repeat = await readAnswer(await post(route, body, { "PAYMENT-SIGNATURE": header }), route, stream);
            expect(repeat.status).toBe(200);
            expect(repeat.replayed).toBe(true);
            expect(repeat.text).toBe(first.text);
            expect(repeat.receipt).toEqual(first.receipt);
            // The x402 receipt first issued, not a new one: a replay signs nothing.
            expect(repeat.x402).toBe(first.x402);
            await verified(repeat, route === "responses" ? body : body.messages);
          }
          expect(await stack.tdb.prisma.inferenceLog.count({ where: { agentPubkey: agent.address } })).toBe(1);
          expect(await stack.tdb.prisma.ledgerEntry.count({ where: { agentPubkey: agent.address } })).toBe(moved);
        });
      }
    }
  }
});

describe("a prepaid answer of any content", () => {
  for (const content of CONTENTS) {
    for (const route of ["inference", "responses"] as const) {
      for (const stream of [false, true]) {
        it(`serves ${content.name} on the ${route} route${stream ? ", streamed," : ""} and charges it once`, async () => {
          const kp = generateKeypair();
          await stack.credit(kp.publicKeyBase58, 100_000n);
          const call = signedCall(kp, route, content.asked, { stream });
          const answer = await readAnswer(await routes.fetch(call.request), route, stream);
          expect(answer.error).toBeNull();
          expect(answer.text).toContain(`You said: "${content.said}"`);
          await verified(answer, route === "responses" ? call.body : call.body.messages);
          const holds = await stack.tdb.prisma.creditHold.findMany({ where: { agentPubkey: kp.publicKeyBase58 } });
          expect(holds.map((h) => h.status)).toEqual(["captured"]);
          const balance = await stack.tdb.prisma.balance.findFirstOrThrow({
            where: { agentPubkey: kp.publicKeyBase58 },
          });
          expect(balance.units).toBe(100_000n - holds[0]!.chargedUnits!);
        });
      }
    }
  }
});
