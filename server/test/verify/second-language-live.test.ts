// Live receipts, made by the service's routes on the local chain, checked by the second-language verifier
// (devtools/verify-py/verify_receipt.py, written from docs/receipts.md alone): a paid chat call, a prepaid chat stream
// (its chunks), a prepaid Responses stream (its events) and a prepaid embeddings call (base64 vectors). Each must pass
// the three checks a verifier makes without a chain, with the receipt, prompt and answer as a client holds them.
import { execFile } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POST as chatRoute } from "@/app/api/v1/chat/completions/route";
import { POST as embeddingsRoute } from "@/app/api/v1/embeddings/route";
import { POST as responsesRoute } from "@/app/api/v1/responses/route";
import { signPrepaidRequest } from "../../agent/signing-fetch";
import { generateKeypair, type Ed25519Keypair } from "../../keys/parse-secret-key";
import { sseData } from "../../upstream/read-sse";
import { parseReceiptText } from "../../verify";
import { operatorKeypair } from "../support/env";
import { buildPaymentHeader, challengeOf, startPaidStack, type PaidStack } from "../support/paid-stack";

const SCRIPT = path.resolve(import.meta.dirname, "../../../devtools/verify-py/verify_receipt.py");
const ORIGIN = "http://signet.test";
const messages = [{ role: "user", content: "checked in a second language: é, 中, \u2028" }];

let stack: PaidStack;
let scratch: string;
beforeAll(async () => {
  stack = await startPaidStack({ env: { LOCAL_MODEL_STREAM_DELAY_MS: "0" } });
  scratch = mkdtempSync(path.join(os.tmpdir(), "signet-verify-py-"));
});
afterAll(async () => stack?.close());

type Route = (req: Request, ctx: object) => Promise<Response>;

function signed(route: Route, routePath: string, kp: Ed25519Keypair, body: object): Promise<Response> {
  const request = signPrepaidRequest(kp, `${ORIGIN}${routePath}`, JSON.stringify(body));
  return route(new Request(`${ORIGIN}${routePath}`, { method: "POST", ...request }), {});
}

async function events(res: Response): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = [];
  for await (const data of sseData(res.body!)) if (data !== "[DONE]") out.push(data as Record<string, unknown>);
  return out;
}

/** Runs the Python verifier on one receipt, its prompt and its answer as files; its checks. */
async function checkInPython(name: string, receipt: unknown, prompt: unknown, response: unknown) {
  const file = (part: string, value: unknown) => {
    const target = path.join(scratch, `${name}-${part}.json`);
    writeFileSync(target, JSON.stringify(value));
    return target;
  };
  const args = [
    "-B",
    SCRIPT,
    "--receipt",
    file("receipt", receipt),
    "--prompt",
    file("prompt", prompt),
    "--response",
    file("response", response),
    "--operator-key",
    operatorKeypair().publicKeyBase58,
  ];
  const { stdout } = await promisify(execFile)("/usr/bin/python3", args, { encoding: "utf8" }).catch(
    (err: { stdout?: string }) => ({ stdout: err.stdout ?? "" }),
  );
  return JSON.parse(stdout) as Record<string, boolean>;
}

const ALL_PASS = { prompt_hash_ok: true, response_hash_ok: true, service_signature_ok: true };

describe("live receipts in the second-language verifier", () => {
  it("passes a paid chat call's receipt over its messages and its completion", async () => {
    const agent = await stack.newAgent();
    const challenge = await challengeOf(await stack.chat({ body: { model: "local/echo-1", messages } }));
    const header = await buildPaymentHeader(agent, challenge, stack.devnet.faultFreeUrl);
    const res = await stack.chat({
      body: { model: "local/echo-1", messages },
      headers: { "payment-signature": header },
    });
    expect(res.status).toBe(200);
    const parsed = parseReceiptText(res.headers.get("x-service-receipt")!);
    if (!parsed.ok) throw new Error("no receipt");
    expect(await checkInPython("paid-chat", parsed.receipt, messages, await res.json())).toEqual(ALL_PASS);
  });

  it("passes prepaid streams (chat chunks, Responses events) and a prepaid embeddings answer in base64", async () => {
    const kp = generateKeypair();
    await stack.credit(kp.publicKeyBase58, 1_000_000n);

    const chatBody = { model: "local/echo-1", messages, stream: true };
    const chat = await events(await signed(chatRoute, "/api/v1/chat/completions", kp, chatBody));
    const chatReceipt = chat.find((e) => e.service_receipt) as { service_receipt: { receipt: unknown } };
    const chunks = chat.filter((e) => !e.service_receipt && e.object === "chat.completion.chunk");
    expect(await checkInPython("prepaid-chat-stream", chatReceipt.service_receipt.receipt, chatBody, chunks)).toEqual(
      ALL_PASS,
    );

    const responsesBody = {
      model: "local/echo-1",
      instructions: "Be brief.",
      input: "a Responses stream",
      stream: true,
    };
    const stream = await events(await signed(responsesRoute, "/api/v1/responses", kp, responsesBody));
    const completed = stream.find((e) => e.type === "response.completed") as {
      response: { service_receipt: { receipt: unknown } };
    };
    expect(stream.filter((e) => e.type === "response.output_text.delta").length).toBeGreaterThan(0);
    expect(
      await checkInPython(
        "prepaid-responses-stream",
        completed.response.service_receipt.receipt,
        responsesBody,
        stream,
      ),
    ).toEqual(ALL_PASS);

    const embeddingsBody = { model: "local/hash-embed-1", input: ["one text", "another"], encoding_format: "base64" };
    const embedded = await signed(embeddingsRoute, "/api/v1/embeddings", kp, embeddingsBody);
    expect(embedded.status).toBe(200);
    const receipt = parseReceiptText(embedded.headers.get("x-service-receipt")!);
    if (!receipt.ok) throw new Error("no receipt");
    expect(await checkInPython("prepaid-embeddings", receipt.receipt, embeddingsBody, await embedded.json())).toEqual(
      ALL_PASS,
    );
  });
});
