// What a later re-broadcast of a pending settlement does, done by the test itself: the settlement of a payment header
// put on the local chain past the dropped sends, then awaited until `confirmed` (real timing: one slot later).
import { decodePaymentSignatureHeader } from "@x402/core/http";
import type { Facilitator } from "../../facilitator/create-facilitator";
import { solanaSettlementWire } from "../../x402/find-landed-settlement";
import type { PaidStack } from "./paid-stack";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `check` every 50 ms until it holds; throws naming `what` after `ms`. */
export async function until(what: string, check: () => Promise<boolean> | boolean, ms = 12_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

/** Lands the settlement of `header` on the devnet chain and waits for `confirmed`; returns its signature. */
export async function landDirectly(stack: PaidStack, facilitator: Facilitator, header: string): Promise<string> {
  const wire = await solanaSettlementWire(facilitator, decodePaymentSignatureHeader(header));
  const sent = stack.devnet.chain.send(wire!);
  if (!sent.ok) throw new Error("the settlement did not land");
  await until("confirmed", () => {
    const tx = stack.devnet.chain.getTransaction(sent.signature);
    return tx !== null && stack.devnet.chain.commitmentOf(tx) !== "processed";
  });
  return sent.signature;
}
