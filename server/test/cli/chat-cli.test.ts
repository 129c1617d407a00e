// `signet chat` at its edges, as a child process over real HTTP: a payer without USDC is refused (402) and told so
// plainly, never "done", with the command that funds it on the local chain, which works; `--network solana`, which
// the service reads as its default Solana network, is refused before anything is signed.
import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateKeypair } from "../../keys/parse-secret-key";
import { startServedStack, type HttpService, type ServedStack } from "../support/http-service";
import { runSignet } from "../support/signet-cli";
import type { PaidStack } from "../support/paid-stack";

let served: ServedStack;
let stack: PaidStack;
let service: HttpService;
let scratch: string;

beforeAll(async () => {
  served = await startServedStack({ timing: "instant", env: { X402_FLAT_PRICE_USDC: "0.001" } });
  ({ stack, service } = served);
  scratch = mkdtempSync(path.join(os.tmpdir(), "signet-cli-chat-"));
});
afterAll(async () => served?.close());

const signet = (args: string[]) => runSignet(args, path.join(scratch, "data"), 60_000);

/** A key file for a new agent that holds nothing. */
function agentFile(name: string): { file: string; pubkey: string } {
  const kp = generateKeypair();
  const file = path.join(scratch, `${name}.json`);
  writeFileSync(file, JSON.stringify([...kp.seed, ...kp.publicKey]));
  return { file, pubkey: kp.publicKeyBase58 };
}

describe("signet chat with a payer that holds no USDC", () => {
  it("says the payment was refused (not done), why, and the localnet fund command that then lets the call through", async () => {
    const agent = agentFile("unfunded");
    const args = [
      "chat",
      "hello",
      "--keypair",
      agent.file,
      "--endpoint",
      service.url,
      "--rpc",
      stack.devnet.faultFreeUrl,
    ];
    const refused = await signet(args);
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stdout).toBe("");
    expect(refused.stderr).not.toMatch(/done in/);
    expect(refused.stderr).toMatch(/^paying and settling… refused after \d+ ms \(HTTP 402\)$/m);
    expect(refused.stderr).toMatch(
      /^signet: the service refused the payment \(HTTP 402 payment_required\): .*insufficient_balance.*; nothing was charged$/m,
    );
    expect(refused.stderr).toContain(
      `  the payer ${agent.pubkey} holds less than 0.001 USDC on Solana devnet, the price of this call.\n`,
    );
    // The CLI's environment names the chain paid on as its devnet RPC (the stack sets RPC_URL_SOLANA_DEVNET), so the
    // command needs no --rpc.
    const fund = `npm run -s signet -- localnet fund ${agent.pubkey} --usdc 1`;
    expect(refused.stderr.trimEnd().split("\n").at(-1)).toBe(`  fund it on the local chain: ${fund}`);

    const funded = await signet(fund.split(" ").slice(5));
    expect(funded.code, funded.stderr).toBe(0);
    const paid = await signet(args);
    expect(paid.code, paid.stderr).toBe(0);
    expect(paid.stderr).toMatch(/done in \d+ ms \(HTTP 200\)/);
    expect(await stack.devnet.usdcBalance(agent.pubkey)).toBe(1_000_000n - 1_000n);
  });
});

describe("signet chat --network", () => {
  it("rejects malformed input: `solana` is ambiguous and an unknown name is named, each before anything is paid", async () => {
    const agent = agentFile("network");
    await stack.devnet.fundAccount(agent.pubkey, { usdcUnits: 1_000_000n });
    const base = ["chat", "hi", "--keypair", agent.file, "--endpoint", service.url, "--rpc", stack.devnet.faultFreeUrl];
    const ambiguous = await signet([...base, "--network", "solana"]);
    expect(ambiguous.code).toBe(2);
    expect(ambiguous.stderr.trim()).toBe(
      "signet: --network solana is ambiguous (the service reads it as its default Solana network, which the payment must name before it is signed): name devnet or mainnet",
    );
    const unknown = await signet([...base, "--network", "testnet"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr.trim()).toBe(
      "signet: unknown network testnet: name devnet, mainnet, base, base-sepolia, polygon, polygon-amoy, avalanche or avalanche-fuji",
    );
    expect(await stack.devnet.usdcBalance(agent.pubkey)).toBe(1_000_000n);
  });
});
