// `signet mcp` driven by the MCP SDK's stdio client, as an MCP host starts it: a chat within the budget is paid with
// the stock x402 client, served, and its receipt verified; one over the budget is refused before anything is signed;
// prepaid, `balance` and `receipts` agree with the ledger; the key comes from a file or from SIGNET_AGENT_SECRET_KEY.
import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import bs58 from "bs58";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateKeypair, type Ed25519Keypair } from "../../keys/parse-secret-key";
import { formatUnitsAsUsdc } from "../../verify";
import { testEnv } from "../support/env";
import { startServedStack, type ServedStack } from "../support/http-service";
import { runSignet } from "../support/signet-cli";
import { REPO_ROOT } from "../verify/vectors";

const PRICE = 1_000n;
let served: ServedStack;
let scratch: string;
const clients: Client[] = [];

beforeAll(async () => {
  served = await startServedStack({ timing: "instant", env: { X402_FLAT_PRICE_USDC: "0.001" } });
  scratch = mkdtempSync(path.join(os.tmpdir(), "signet-mcp-"));
}, 120_000);
afterAll(async () => {
  for (const c of clients) await c.close().catch(() => undefined);
  await served?.close();
});

/** A funded Solana agent's key file (its keypair as the Solana CLI writes it). */
async function agentFile(usdcUnits = 1_000_000n): Promise<{ file: string; keypair: Ed25519Keypair }> {
  const keypair = generateKeypair();
  const file = path.join(scratch, `${keypair.publicKeyBase58}.json`);
  writeFileSync(file, JSON.stringify([...keypair.seed, ...keypair.publicKey]));
  if (usdcUnits > 0n) await served.stack.devnet.fundAccount(keypair.publicKeyBase58, { usdcUnits });
  return { file, keypair };
}

/** `signet mcp …` started by the SDK's stdio client, with the key FILE, or with `{ envKey }` in its environment. */
async function signetMcp(key: string | { envKey: string }, flags: string[] = []): Promise<Client> {
  const env = testEnv({
    SIGNET_DATA_DIR: path.join(scratch, "data"),
    NODE_ENV: "test",
    SIGNET_AGENT_SECRET_KEY: typeof key === "string" ? undefined : key.envKey,
  });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [
      path.join(REPO_ROOT, "bin/cli/signet.mjs"),
      "mcp",
      ...(typeof key === "string" ? ["--keypair", key] : []),
      "--endpoint",
      served.service.url,
      "--rpc",
      served.stack.devnet.faultFreeUrl,
      ...flags,
    ],
    env: Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined)),
    cwd: REPO_ROOT,
    stderr: "ignore",
  });
  const client = new Client({ name: "signet-test-host", version: "1.0.0" });
  await client.connect(transport);
  clients.push(client);
  return client;
}

interface Result {
  isError?: boolean;
  content: { type: string; text?: string }[];
  structuredContent?: Record<string, unknown>;
}
const call = async (client: Client, name: string, args: Record<string, unknown> = {}) =>
  (await client.callTool({ name, arguments: args })) as Result;

describe("signet mcp (stdio)", () => {
  it("lists its tools; a chat within the budget is paid once, served, and its receipt verified", async () => {
    const { file, keypair } = await agentFile();
    const client = await signetMcp(file);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(
      ["balance", "chat", "receipts", "respond", "top_up", "verify_receipt"].sort(),
    );
    const result = await call(client, "chat", { prompt: "hello from an MCP host" });
    expect(result.isError, JSON.stringify(result)).toBeFalsy();
    expect(result.content[0]!.text).toContain("hello from an MCP host");
    expect(result.content[1]!.text).toMatch(/^Signed receipt [0-9a-f-]{36}: verified; http/);
    expect(result.structuredContent).toMatchObject({ verified: true, spent_usdc: "0.001" });
    expect(await served.stack.devnet.usdcBalance(keypair.publicKeyBase58)).toBe(1_000_000n - PRICE);
    const receipts = await call(client, "receipts");
    expect(receipts.structuredContent).toMatchObject({
      spent_usdc: "0.001",
      calls: [{ tool: "chat", paid_with: "x402", spent_usdc: "0.001", verified: true }],
    });
  });

  it("refuses a call over the per-call budget before paying, and one over the session's once it is spent", async () => {
    const { file, keypair } = await agentFile();
    const tight = await signetMcp(file, ["--max-per-call", "0.0005"]);
    const refused = await call(tight, "chat", { prompt: "too dear" });
    expect(refused.isError).toBe(true);
    expect(refused.structuredContent).toMatchObject({ error: { code: "over_budget" } });
    expect(refused.content[0]!.text).toMatch(/over the per-call budget of 0\.0005 USDC; nothing was paid/);
    expect(await served.stack.devnet.usdcBalance(keypair.publicKeyBase58)).toBe(1_000_000n);

    const session = await signetMcp(file, ["--max-session", "0.0015"]);
    expect((await call(session, "chat", { prompt: "the first fits" })).isError).toBeFalsy();
    const over = await call(session, "chat", { prompt: "the second does not" });
    expect(over.structuredContent).toMatchObject({ error: { code: "over_budget" } });
    expect(over.content[0]!.text).toMatch(/0\.0005 USDC of the session's budget of 0\.0015 USDC is left/);
    expect(await served.stack.devnet.usdcBalance(keypair.publicKeyBase58)).toBe(1_000_000n - PRICE);
  });

  it("takes its key from SIGNET_AGENT_SECRET_KEY when no --keypair is given, and refuses one that is no key without echoing it", async () => {
    const keypair = generateKeypair();
    await served.stack.credit(keypair.publicKeyBase58, 5_000n);
    const client = await signetMcp({ envKey: bs58.encode(keypair.seed) }, ["--pay", "prepaid"]);
    expect((await call(client, "balance")).structuredContent).toMatchObject({
      agent: keypair.publicKeyBase58,
      credit: { balance_usdc: "0.005" },
    });

    const secret = "not-a-key-0OIl";
    const refused = await runSignet(
      ["mcp", "--endpoint", served.service.url, "--rpc", served.stack.devnet.faultFreeUrl],
      path.join(scratch, "data"),
      20_000,
      { SIGNET_AGENT_SECRET_KEY: secret },
    );
    expect(refused.code).toBe(2);
    expect(refused.stdout).toBe("");
    expect(refused.stderr).toContain("SIGNET_AGENT_SECRET_KEY is not a Solana secret key: not valid base58");
    expect(refused.stderr).not.toContain(secret);
  });

  it("prepaid: calls spend credit within the budget; balance and receipts agree with the ledger", async () => {
    const { file, keypair } = await agentFile(0n);
    await served.stack.credit(keypair.publicKeyBase58, 10_000n);
    const client = await signetMcp(file, ["--pay", "prepaid"]);
    const answered = await call(client, "respond", { input: "prepaid over stdio" });
    expect(answered.isError, JSON.stringify(answered)).toBeFalsy();
    expect(answered.content[0]!.text).toContain("prepaid over stdio");
    const spent = (answered.structuredContent as { spent_usdc: string }).spent_usdc;
    const balance = await call(client, "balance");
    const ledger = await served.stack.tdb.prisma.balance.findFirstOrThrow({
      where: { agentPubkey: keypair.publicKeyBase58 },
    });
    expect(balance.structuredContent).toMatchObject({
      credit: { balance_usdc: formatUnitsAsUsdc(ledger.units) },
      session: { spent_usdc: spent },
    });
    expect(ledger.units).toBe(10_000n - BigInt(Math.round(Number(spent) * 1e6)));
    const receipts = await call(client, "receipts");
    expect(receipts.structuredContent).toMatchObject({
      calls: [{ tool: "respond", paid_with: "prepaid", verified: true }],
    });
  });
});
