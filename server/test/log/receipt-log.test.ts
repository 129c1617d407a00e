// The receipt log end to end on PostgreSQL, through the real route handlers: paid, prepaid and streamed calls each
// carry a link to their inclusion proof; the proof is `log_pending` (409, Retry-After) until a sequencer round, then
// verifies against the signed checkpoint with the published log key; tiles, entry bundles and checkpoints are served in
// the C2SP layouts with their cache rules; and the tree head equals an independent recomputation from the entries.
// The failure path: a receipt that cannot be logged is never served, and an answered call is never served twice. Its
// record waits in the service's outbox and is written once the log takes it: a prepaid answer not sent is then
// released (nothing charged), a streamed one charged with its receipt, and a paid call's retry with the same payment
// header gets the kept answer with its one receipt. A call whose receipt was stored is never given back.
import { logIdentity } from "../support/env";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { publishAll as publishStaged } from "../support/publish-all";
import { GET as proofRoute } from "@/app/api/v1/receipts/[id]/proof/route";
import { GET as checkpointRoute } from "@/app/log/checkpoint/route";
import { GET as keyRoute } from "@/app/log/key/route";
import { GET as tileRoute } from "@/app/log/tile/[...path]/route";
import { POST as inferenceRoute } from "@/app/api/v1/inference/route";
import { newNonce, signRequestHeaders } from "../../agent/sign-request";
import { generateKeypair, type Ed25519Keypair } from "../../keys/parse-secret-key";
import { refundHold, releaseHold } from "../../ledger/credit-holds";
import {
  decodeBase64,
  decodeEntryBundle,
  decodeReceiptEntry,
  encodeReceiptEntry,
  leafHash,
  openCheckpoint,
  parseReceiptText,
  rootOfLeaves,
  splitTile,
  sha256Hex,
  verifyReceiptInclusion,
  type ReceiptLogProof,
} from "../../verify";
import { buildPaymentHeader, challengeOf, startPaidStack, type PaidStack } from "../support/paid-stack";
import { sseData } from "../../upstream/read-sse";
import { createLogger } from "../../log";

/** Where this file's own sequencer rounds log: nowhere. */
const quietLog = createLogger("silent");

async function readSse(body: ReadableStream<Uint8Array>): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (const event of sseData(body)) out.push(event);
  return out;
}

let stack: PaidStack;
beforeAll(async () => {
  // The sequencer's own timer is slowed down: each test runs its rounds itself.
  stack = await startPaidStack({
    timing: "instant",
    env: { X402_FLAT_PRICE_USDC: "0.001", LOG_PUBLISH_INTERVAL_MS: "10000", PREPAID_RATE_LIMIT_PER_MINUTE: "100000" },
  });
});
afterAll(async () => stack?.close());

const messages = [{ role: "user", content: "log me" }];
const proof = (id: string, query = "") =>
  proofRoute(new Request(`http://signet.test/api/v1/receipts/${id}/proof${query}`), {
    params: Promise.resolve({ id }),
  });
const tile = (path: string) =>
  tileRoute(new Request(`http://signet.test/log/${path}`), {
    params: Promise.resolve({ path: path.split("/").slice(1) }),
  });
const logKey = async () =>
  (
    (await (await keyRoute(new Request("http://signet.test/log/key"), {})).json()) as {
      verifier_key: string;
      origin: string;
    }
  ).verifier_key;

function prepaid(kp: Ed25519Keypair, body: Record<string, unknown>): Promise<Response> {
  const text = JSON.stringify({ nonce: newNonce(), timestamp: Date.now(), ...body });
  const headers = signRequestHeaders(kp, "POST", "http://signet.test/api/v1/inference", text);
  return inferenceRoute(
    new Request("http://signet.test/api/v1/inference", { method: "POST", headers, body: text }),
    {},
  );
}

async function paidHeader(): Promise<string> {
  const agent = await stack.newAgent();
  const challenge = await challengeOf(await stack.chat({ body: { model: "local/echo-1", messages } }));
  return buildPaymentHeader(agent, challenge, stack.devnet.faultFreeUrl);
}

async function publishAll(): Promise<void> {
  await publishStaged(stack.tdb.prisma, logIdentity(), quietLog);
}

/** Makes every staging insert fail, as a lost or broken log table would, until the returned function is called. */
async function breakLog(): Promise<() => Promise<void>> {
  await stack.tdb.prisma.$executeRawUnsafe(
    `CREATE OR REPLACE FUNCTION signet_test_refuse() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'log unavailable'; END $$ LANGUAGE plpgsql`,
  );
  await stack.tdb.prisma.$executeRawUnsafe(
    `CREATE TRIGGER signet_test_refuse BEFORE INSERT ON log_staging FOR EACH ROW EXECUTE FUNCTION signet_test_refuse()`,
  );
  return async () => {
    await stack.tdb.prisma.$executeRawUnsafe(`DROP TRIGGER signet_test_refuse ON log_staging`);
  };
}

describe("the receipt log", () => {
  it("logs paid, prepaid and streamed receipts and proves each one against a signed checkpoint", async () => {
    const paid = await stack.chat({
      body: { model: "local/echo-1", messages },
      headers: { "payment-signature": await paidHeader() },
    });
    expect(paid.status).toBe(200);
    const kp = generateKeypair();
    await stack.credit(kp.publicKeyBase58, 100_000n);
    const pre = await prepaid(kp, { model: "local/echo-1", messages });
    expect(pre.status).toBe(200);
    const streamed = await prepaid(kp, { model: "local/echo-1", messages, stream: true });
    const events = await readSse(streamed.body!);
    const receiptEvent = (
      events.find((e) => (e as { service_receipt?: unknown }).service_receipt) as {
        service_receipt: { receipt: Record<string, unknown>; log_proof_url: string };
      }
    ).service_receipt;

    const receipts = [paid, pre].map((r) => {
      const parsed = parseReceiptText(r.headers.get("x-service-receipt")!);
      if (!parsed.ok) throw new Error("no receipt");
      expect(r.headers.get("x-service-receipt-proof")).toBe(
        `http://signet.test/api/v1/receipts/${parsed.receipt.inference_id}/proof`,
      );
      return parsed.receipt;
    });
    receipts.push(receiptEvent.receipt);
    expect(receiptEvent.log_proof_url).toBe(
      `http://signet.test/api/v1/receipts/${receiptEvent.receipt.inference_id}/proof`,
    );

    // Staged, not yet sequenced: a stable "not yet" with Retry-After; an unknown id is a plain 404.
    const pending = await proof(String(receipts[0]!.inference_id));
    expect(pending.status).toBe(409);
    expect(pending.headers.get("retry-after")).toBe("2");
    expect(await pending.json()).toMatchObject({ error: { code: "log_pending" } });
    expect((await proof("00000000-0000-4000-8000-000000000000")).status).toBe(404);
    expect((await proof("not-a-uuid")).status).toBe(400);

    await publishAll();
    const key = await logKey();
    for (const receipt of receipts) {
      const res = await proof(String(receipt.inference_id));
      expect(res.status).toBe(200);
      const body = (await res.json()) as ReceiptLogProof;
      expect(verifyReceiptInclusion(receipt, body, { logKey: key })).toMatchObject({ ok: true, treeSize: 3 });
      // Another receipt's bytes are not at that index.
      const other = receipts.find((r) => r !== receipt)!;
      expect(verifyReceiptInclusion(other, body, { logKey: key })).toEqual({ ok: false, reason: "not_included" });
    }
    const indexes = await stack.tdb.prisma.logEntry.findMany({ orderBy: { idx: "asc" } });
    expect(indexes.map((e) => Number(e.idx))).toEqual([0, 1, 2]);
    expect(indexes.map((e) => decodeReceiptEntry(e.entry)!.receipt.inference_id).sort()).toEqual(
      receipts.map((r) => r.inference_id).sort(),
    );
  });

  it("serves the checkpoint, tiles and entry bundles in the C2SP layouts, with an independently recomputed root", async () => {
    const res = await checkpointRoute(new Request("http://signet.test/log/checkpoint"), {});
    expect(res.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(res.headers.get("cache-control")).toBe("public, max-age=2");
    const opened = openCheckpoint(await res.text(), { logKey: await logKey() });
    if (!opened.ok) throw new Error(opened.reason);
    const size = opened.checkpoint.size;
    expect(opened.checkpoint.origin).toBe("signet.test/log");
    const bundle = await tile(`tile/entries/000.p/${size}`);
    expect(bundle.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    const entries = decodeEntryBundle(new Uint8Array(await bundle.arrayBuffer()))!;
    expect(entries).toHaveLength(size);
    expect(rootOfLeaves(entries.map(leafHash))).toEqual(opened.checkpoint.root);
    const level0 = splitTile(new Uint8Array(await (await tile(`tile/0/000.p/${size}`)).arrayBuffer()), size)!;
    expect(level0).toEqual(entries.map(leafHash));
    // Past the published tree: nothing, and nothing malformed either.
    expect((await tile(`tile/0/000.p/${size + 1}`)).status).toBe(404);
    expect((await tile("tile/0/000")).status).toBe(404);
    expect((await tile("tile/00/000")).status).toBe(404);
    expect((await tile("tile/entries/x000/001")).status).toBe(404);
  });

  it("does not serve a receipt it could not log: a prepaid answer not sent is not charged, a streamed one is charged once recorded", async () => {
    const kp = generateKeypair();
    await stack.credit(kp.publicKeyBase58, 50_000n);
    const repair = await breakLog();
    let plainId: string;
    let streamedText: string;
    let streamId: string;
    try {
      const res = await prepaid(kp, { model: "local/echo-1", messages });
      expect(res.status).toBe(503);
      expect(res.headers.get("retry-after")).toBe("1");
      expect(res.headers.get("x-service-receipt")).toBeNull();
      const failed = (await res.json()) as { error: { code: string; inference_id: string } };
      expect(failed).toMatchObject({ error: { code: "receipt_log_unavailable", balance_usdc: "0.05" } });
      plainId = failed.error.inference_id;
      const streamed = await prepaid(kp, { model: "local/echo-1", messages, stream: true });
      const events = await readSse(streamed.body!);
      expect(
        events.some(
          (e) =>
            (e as { service_receipt?: unknown }).service_receipt !== undefined ||
            (e as { object?: string }).object === "service.receipt",
        ),
      ).toBe(false);
      const last = events.at(-1) as { error: { code: string; inference_id: string } };
      expect(last).toMatchObject({ error: { code: "receipt_log_unavailable" } });
      streamId = last.error.inference_id;
      streamedText = events
        .map((e) => (e as { choices?: { delta?: { content?: string } }[] }).choices?.[0]?.delta?.content ?? "")
        .join("");
      // The answer nobody got is not charged: its hold was released at once (that needs no log). The stream's record
      // waits, its hold held under its lease, while the log refuses.
      expect(await stack.tdb.prisma.creditHold.findUniqueOrThrow({ where: { id: plainId } })).toMatchObject({
        status: "released",
      });
      expect(await stack.tdb.prisma.creditHold.findUniqueOrThrow({ where: { id: streamId } })).toMatchObject({
        status: "held",
      });
    } finally {
      await repair();
    }
    // Once the log takes it, the outbox writes the stream's record: captured, with its receipt.
    await (await stack.runtime()).state.records.drain();
    expect((await stack.runtime()).state.records.size).toBe(0);
    expect(await stack.tdb.prisma.creditHold.findUniqueOrThrow({ where: { id: plainId } })).toMatchObject({
      status: "released",
    });
    const stream = await stack.tdb.prisma.creditHold.findUniqueOrThrow({ where: { id: streamId } });
    expect(stream.status).toBe("captured");
    const logged = await stack.tdb.prisma.inferenceLog.findMany({ where: { agentPubkey: kp.publicKeyBase58 } });
    expect(logged.map((l) => l.id)).toEqual([streamId]);
    // The stream's receipt covers the text it sent, and is the one the log proves.
    const receipt = logged[0]!.receipt as { response_hash: string };
    expect(receipt.response_hash).toBe(sha256Hex(streamedText));
    const balance = await stack.tdb.prisma.balance.findFirstOrThrow({ where: { agentPubkey: kp.publicKeyBase58 } });
    expect(balance.units).toBe(50_000n - stream.chargedUnits!);
    const ledger = await stack.tdb.prisma.ledgerEntry.findMany({ where: { agentPubkey: kp.publicKeyBase58 } });
    expect(ledger.reduce((sum, e) => sum + e.units, 0n)).toBe(balance.units);
  });

  it("does not serve a paid receipt it could not log: the answer is kept, and the retry with the same header gets it with its one receipt", async () => {
    const header = await paidHeader();
    const repair = await breakLog();
    let first: Response;
    let paymentId: string;
    try {
      first = await stack.chat({ body: { model: "local/echo-1", messages }, headers: { "payment-signature": header } });
      expect(first.status).toBe(503);
      const failed = (await first.clone().json()) as { error: { code: string; tx_signature: string } };
      expect(failed).toMatchObject({ error: { code: "receipt_log_unavailable" } });
      const payment = await stack.tdb.prisma.payment.findFirstOrThrow({
        where: { txSignature: failed.error.tx_signature },
      });
      paymentId = payment.id;
      // Never handed back for a second call: the payment stays this call's, its hold held, while its record waits.
      expect(payment.status).toBe("settled");
      expect(await stack.tdb.prisma.creditHold.findUniqueOrThrow({ where: { id: payment.id } })).toMatchObject({
        status: "held",
      });
      expect(await stack.tdb.prisma.inferenceLog.count({ where: { paymentId: payment.id } })).toBe(0);
      // Its retry while the log still refuses is told to come back; nothing moves.
      const early = await stack.chat({
        body: { model: "local/echo-1", messages },
        headers: { "payment-signature": header },
      });
      expect(early.status).toBe(409);
      expect(early.headers.get("retry-after")).toBe("1");
    } finally {
      await repair();
    }
    const failed = (await first.json()) as { error: { tx_signature: string } };
    const retry = await stack.chat({
      body: { model: "local/echo-1", messages },
      headers: { "payment-signature": header },
    });
    expect(retry.status).toBe(200);
    expect(retry.headers.get("x-answer-replayed")).toBe("true");
    const parsed = parseReceiptText(retry.headers.get("x-service-receipt")!);
    if (!parsed.ok) throw new Error("no receipt");
    expect(parsed.receipt.payment).toMatchObject({ tx_signature: failed.error.tx_signature });
    const payment = await stack.tdb.prisma.payment.findUniqueOrThrow({ where: { id: paymentId } });
    // Sent again once served: the stored answer with the same receipt; no second call is logged.
    const again = await stack.chat({
      body: { model: "local/echo-1", messages },
      headers: { "payment-signature": header },
    });
    expect(again.status).toBe(200);
    expect(again.headers.get("x-answer-replayed")).toBe("true");
    expect(again.headers.get("payment-response")).toBe(retry.headers.get("payment-response"));
    expect(await again.json()).toEqual(await retry.json());
    const replayed = parseReceiptText(again.headers.get("x-service-receipt")!);
    expect(replayed.ok && replayed.receipt).toEqual(parsed.receipt);
    expect(await stack.tdb.prisma.inferenceLog.count({ where: { paymentId: payment.id } })).toBe(1);
    await publishAll();
    const body = (await (await proof(String(parsed.receipt.inference_id))).json()) as ReceiptLogProof;
    expect(verifyReceiptInclusion(parsed.receipt, body, { logKey: await logKey() }).ok).toBe(true);
    expect(await stack.tdb.prisma.logEntry.count({ where: { inferenceId: payment.id } })).toBe(1);
    const staged = await stack.tdb.prisma.logEntry.findUniqueOrThrow({ where: { inferenceId: payment.id } });
    expect(Buffer.from(staged.entry).equals(Buffer.from(encodeReceiptEntry(parsed.receipt)))).toBe(true);
    expect(decodeBase64(body.inclusion_proof[0] ?? "")?.length ?? 32).toBe(32);
  });

  it("never gives back a call whose receipt was stored", async () => {
    const kp = generateKeypair();
    await stack.credit(kp.publicKeyBase58, 50_000n);
    const res = await prepaid(kp, { model: "local/echo-1", messages });
    const parsed = parseReceiptText(res.headers.get("x-service-receipt")!);
    if (!parsed.ok) throw new Error("no receipt");
    const before = await stack.tdb.prisma.balance.findFirstOrThrow({ where: { agentPubkey: kp.publicKeyBase58 } });
    expect(await releaseHold(stack.tdb.prisma, String(parsed.receipt.inference_id))).toBeNull();
    expect(await refundHold(stack.tdb.prisma, String(parsed.receipt.inference_id), "test")).toBeNull();
    expect(
      (await stack.tdb.prisma.balance.findFirstOrThrow({ where: { agentPubkey: kp.publicKeyBase58 } })).units,
    ).toBe(before.units);
    expect(
      await stack.tdb.prisma.creditHold.findUniqueOrThrow({ where: { id: String(parsed.receipt.inference_id) } }),
    ).toMatchObject({ status: "captured" });
  });
});
