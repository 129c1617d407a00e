// `signet chat` and `signet topup` with the x402 extensions, as child processes over real HTTP: each prints the
// answer's x402 signed receipt once checked (the JWS against the DID document of the service's domain), and sends a
// client payment id with --payment-id: the same id again with a new payment is refused (exit 2, nothing charged).
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generatePaymentId } from "@x402/extensions/payment-identifier";
import { generateKeypair } from "../../keys/parse-secret-key";
import { operatorKeypair } from "../support/env";
import { startServedStack, type HttpService, type ServedStack } from "../support/http-service";
import { closedPort } from "../verify/local-servers";
import { runSignet } from "../support/signet-cli";
import type { PaidStack } from "../support/paid-stack";

let served: ServedStack;
let stack: PaidStack;
let service: HttpService;
let scratch: string;

beforeAll(async () => {
  // The service's public origin is the address the CLI reaches it at: its did:web names that host.
  served = await startServedStack({
    timing: "instant",
    env: { X402_FLAT_PRICE_USDC: "0.001", LOCAL_MODEL_STREAM_DELAY_MS: "0" },
  });
  ({ stack, service } = served);
  scratch = mkdtempSync(path.join(os.tmpdir(), "signet-cli-x402-"));
});
afterAll(async () => served?.close());

const signet = (args: string[]) => runSignet(args, path.join(scratch, "data"), 60_000);
const receiptLine = () =>
  `x402 receipt: ok, JWS by did:web:${encodeURIComponent(new URL(service.url).host)}#operator-key-${operatorKeypair().publicKeyBase58.slice(0, 8)}, verified against its did:web document`;

/** A funded agent's key file. */
async function agentFile(name: string): Promise<{ file: string; pubkey: string }> {
  const kp = generateKeypair();
  const file = path.join(scratch, `${name}.json`);
  writeFileSync(file, JSON.stringify([...kp.seed, ...kp.publicKey]));
  await stack.devnet.fundAccount(kp.publicKeyBase58, { usdcUnits: 1_000_000n });
  return { file, pubkey: kp.publicKeyBase58 };
}

describe("signet chat with the x402 extensions", () => {
  it("prints the checked x402 receipt, and refuses a second payment under the same --payment-id with nothing charged", async () => {
    const agent = await agentFile("chat-agent");
    const id = generatePaymentId("cli_");
    const args = (prompt: string) => [
      "chat",
      prompt,
      "--keypair",
      agent.file,
      "--endpoint",
      service.url,
      "--rpc",
      stack.devnet.faultFreeUrl,
      "--payment-id",
      id,
      "--save",
      path.join(scratch, "saved"),
    ];
    const first = await signet(args("first"));
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toContain(receiptLine());
    expect(first.stderr).toMatch(
      new RegExp(
        `payer ${agent.pubkey}, network ${stack.devnet.caip2}, resource ${service.url}/api/v1/chat/completions, issued \\S+, tx \\w+`,
      ),
    );
    expect(JSON.parse(readFileSync(path.join(scratch, "saved", "x402-receipt.json"), "utf8"))).toMatchObject({
      format: "jws",
      signature: expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+$/),
    });
    expect(await stack.devnet.usdcBalance(agent.pubkey)).toBe(1_000_000n - 1_000n);

    const second = await signet(args("second"));
    expect(second.code).toBe(2);
    expect(second.stderr).toMatch(/^signet: the service answered 409: payment_id_conflict /m);
    expect(await stack.devnet.usdcBalance(agent.pubkey)).toBe(1_000_000n - 1_000n);
  });

  it("checks a streamed answer's x402 receipt from its final event", async () => {
    const agent = await agentFile("stream-agent");
    const r = await signet([
      "chat",
      "streamed",
      "--stream",
      "--keypair",
      agent.file,
      "--endpoint",
      service.url,
      "--rpc",
      stack.devnet.faultFreeUrl,
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(receiptLine());
  });

  it("rejects malformed input: a --payment-id the extension does not allow is a usage error before anything is paid", async () => {
    const agent = await agentFile("bad-id-agent");
    const r = await signet([
      "chat",
      "hi",
      "--keypair",
      agent.file,
      "--endpoint",
      service.url,
      "--rpc",
      stack.devnet.faultFreeUrl,
      "--payment-id",
      "too short",
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe("signet: --payment-id must be 16-128 characters of A-Z, a-z, 0-9, _ and -");
    expect(await stack.devnet.usdcBalance(agent.pubkey)).toBe(1_000_000n);
  });
});

describe("signet topup with the x402 extensions", () => {
  it("prints the credit and the checked x402 receipt; the same --payment-id with a new payment is refused", async () => {
    const agent = await agentFile("topup-agent");
    const id = generatePaymentId();
    const args = [
      "topup",
      "0.01",
      "--keypair",
      agent.file,
      "--endpoint",
      service.url,
      "--rpc",
      stack.devnet.faultFreeUrl,
      "--payment-id",
      id,
    ];
    const first = await signet(args);
    expect(first.code, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({
      object: "credit.topup",
      agent_pubkey: agent.pubkey,
      amount_usdc: "0.01",
    });
    expect(first.stderr).toContain(receiptLine());
    expect(first.stderr).toContain(`resource ${service.url}/api/v1/credits`);

    const second = await signet(args);
    expect(second.code).toBe(2);
    expect(second.stderr).toMatch(/payment_id_conflict/);
    expect(await stack.devnet.usdcBalance(agent.pubkey)).toBe(1_000_000n - 10_000n);
  });
});

/** Runs the CLI with its own environment naming `rpc` as the devnet RPC. */
function signetWithDevnetRpc(args: string[], rpc: string) {
  return runSignet(args, path.join(scratch, "data"), 60_000, { RPC_URL_SOLANA_DEVNET: rpc });
}

describe("signet chat and verify with no --rpc", () => {
  it("take the chain RPC the service's /.well-known/x402 names for the network over their own environment's; --rpc still wins", async () => {
    const agent = await agentFile("verify-agent");
    const saved = path.join(scratch, "verify-saved");
    const nowhere = `http://127.0.0.1:${await closedPort()}`;
    // The CLI's own environment names a devnet RPC nothing answers at: the payment goes through the service's.
    const chat = await signetWithDevnetRpc(
      ["chat", "verify me", "--keypair", agent.file, "--endpoint", service.url, "--save", saved],
      nowhere,
    );
    expect(chat.code, chat.stderr).toBe(0);
    expect(chat.stderr).toContain("payment_on_chain_ok: transfer of");
    const files = [
      "--receipt",
      path.join(saved, "receipt.json"),
      "--prompt",
      path.join(saved, "prompt.json"),
      "--response",
      path.join(saved, "response.json"),
    ];

    const found = await signet(["verify", ...files, "--endpoint", service.url, "--json"]);
    expect(found.code, found.stderr).toBe(0);
    expect(JSON.parse(found.stdout)).toMatchObject({
      ok: true,
      checks: { payment_on_chain_ok: true, payer_matches: true },
    });
    expect(found.stderr.trim()).toBe(
      `signet: checking the payment through ${stack.devnet.url}, the RPC ${service.url}/.well-known/x402 names for ${JSON.parse(readFileSync(path.join(saved, "receipt.json"), "utf8")).payment.network} (pass --rpc to use another)`,
    );

    const explicit = await signet(["verify", ...files, "--endpoint", service.url, "--rpc", nowhere]);
    expect(explicit.code).toBe(2);
    expect(explicit.stderr.trim()).toBe(`signet: ${nowhere} could not be reached`);
  });
});
