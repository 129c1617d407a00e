// `signet chat --stream` and `signet verify` on a streamed receipt, as child processes over real HTTP: the
// CLI prints the tokens as they arrive and the timeline, verifies the receipt event over the chunks, and saves the
// inputs; `signet verify` then passes all five checks with the chunks, and with the concatenated text.
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateKeypair } from "../../keys/parse-secret-key";
import { startServedStack, type HttpService, type ServedStack } from "../support/http-service";
import { runSignet } from "../support/signet-cli";
import type { PaidStack } from "../support/paid-stack";

let stack: PaidStack;
let service: HttpService;
let scratch: string;
let served: ServedStack;

beforeAll(async () => {
  // The service's public origin is the address the CLI reaches it at: the x402 receipt's did:web key is that domain's.
  served = await startServedStack({ env: { X402_FLAT_PRICE_USDC: "0.001", LOCAL_MODEL_STREAM_DELAY_MS: "5" } });
  ({ stack, service } = served);
  scratch = mkdtempSync(path.join(os.tmpdir(), "signet-cli-stream-"));
});
afterAll(async () => served?.close());

const signet = (args: string[]) => runSignet(args, path.join(scratch, "data"), 30_000);

describe("signet chat --stream, then signet verify", () => {
  it("streams, prints the timeline, verifies the receipt event, and the saved inputs verify again with the CLI", async () => {
    const kp = generateKeypair();
    const keyFile = path.join(scratch, "agent.json");
    writeFileSync(keyFile, JSON.stringify([...kp.seed, ...kp.publicKey]));
    await stack.devnet.fundAccount(kp.publicKeyBase58, { usdcUnits: 1_000_000n });
    const saveDir = path.join(scratch, "streamed");

    const chat = await signet([
      "chat",
      "a streamed hello",
      "--stream",
      "--keypair",
      keyFile,
      "--endpoint",
      service.url,
      "--rpc",
      stack.devnet.url,
      "--save",
      saveDir,
    ]);
    expect(chat.code, chat.stderr).toBe(0);
    expect(chat.stdout).toContain('You said: "a streamed hello"');
    expect(chat.stderr).toMatch(
      /timeline: headers \d+ ms, first token \d+ ms, last token \d+ ms, receipt event \d+ ms \(\d+ chunks\)/,
    );
    expect(chat.stderr).toContain("settled before the first byte");
    expect(chat.stderr).toContain(
      `x402 receipt: ok, JWS by did:web:${encodeURIComponent(new URL(service.url).host)}#operator-key`,
    );
    for (const check of [
      "prompt_hash_ok",
      "response_hash_ok",
      "service_signature_ok",
      "payment_on_chain_ok",
      "payer_matches",
    ])
      expect(chat.stderr).toContain(`✓ ${check}`);

    const chunks = JSON.parse(readFileSync(path.join(saveDir, "response.json"), "utf8")) as { object: string }[];
    expect(chunks.length).toBeGreaterThan(5);
    expect(chunks.every((c) => c.object === "chat.completion.chunk")).toBe(true);
    const args = (response: string) => [
      "verify",
      "--receipt",
      path.join(saveDir, "receipt.json"),
      "--prompt",
      path.join(saveDir, "prompt.json"),
      "--response",
      response,
      "--endpoint",
      service.url,
      "--rpc",
      stack.devnet.url,
    ];
    const withChunks = await signet(args(path.join(saveDir, "response.json")));
    expect(withChunks.code, withChunks.stderr + withChunks.stdout).toBe(0);

    const text = chunks
      .map((c) => (c as unknown as { choices: { delta: { content?: string } }[] }).choices[0]?.delta.content ?? "")
      .join("");
    const textFile = path.join(scratch, "streamed-text.txt");
    writeFileSync(textFile, text);
    expect((await signet(args(textFile))).code).toBe(0);
    writeFileSync(textFile, `${text}.`);
    expect((await signet(args(textFile))).code).not.toBe(0);
  });
});
