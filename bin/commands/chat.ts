// `signet chat "prompt"`: a paid call with the stock @x402/fetch client, then the receipt verified with the library.
import path from "node:path";
import { parseArgs } from "node:util";
import { decodePaymentResponseHeader } from "@x402/core/http";
import { NETWORKS, resolveNetwork } from "../../server/chain/networks";
import { config } from "../../server/env";
import { readFileSync } from "node:fs";
import { privateKeyToAccount } from "viem/accounts";
import { createEvmPayingFetch, createPayingFetch, readKeypairFile, signerFromKeypair } from "../../server/agent/paying-fetch";
import { parseEvmPrivateKey } from "../../server/keys/evm-key";
import { CHECK_NAMES, parseReceiptText, verifyReceipt } from "../../server/verify";
import { UsageError } from "../cli-support";

export const CHAT_USAGE =
  'signet chat "prompt" [--keypair FILE] [--network devnet|mainnet|base-sepolia|base] [--endpoint URL] [--model M] [--rpc URL]\n' +
  "  Solana: FILE is a Solana CLI keypair; Base: FILE holds a hex EVM private key (default: the dev demo agents).";
export const DEMO_AGENT_FILE = "demo-agent.json";
export const DEMO_EVM_AGENT_FILE = "demo-agent-evm.txt";

/** Runs the command; returns the exit code (0 when the answer came with a receipt that verified). */
export async function runChat(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      keypair: { type: "string" },
      network: { type: "string", default: "devnet" },
      endpoint: { type: "string", default: "http://localhost:3000" },
      model: { type: "string", default: "local/echo-1" },
      rpc: { type: "string" },
    },
  });
  const prompt = positionals.join(" ").trim();
  if (!prompt) throw new UsageError(`a prompt is required\nusage: ${CHAT_USAGE}`);
  const cfg = config();
  const networkId = resolveNetwork(values.network);
  if (!networkId) throw new UsageError(`unknown network ${values.network}`);
  const network = NETWORKS[networkId];
  const configuredRpc = {
    "solana-devnet": cfg.solanaRpcUrl.devnet,
    "solana-mainnet": cfg.solanaRpcUrl.mainnet,
    "base-sepolia": cfg.evmRpcUrl.baseSepolia,
    base: cfg.evmRpcUrl.base,
  }[networkId];
  const rpc = values.rpc ?? configuredRpc;
  if (!rpc) throw new UsageError(`no RPC known for ${network.label}; pass --rpc`);
  const payer =
    network.family === "evm"
      ? evmPayer(values.keypair ?? path.join(cfg.dataDir, DEMO_EVM_AGENT_FILE), network.caip2)
      : await solanaPayer(values.keypair ?? path.join(cfg.dataDir, DEMO_AGENT_FILE), network.caip2, rpc);
  const endpoint = values.endpoint.replace(/\/+$/, "");
  const messages = [{ role: "user", content: prompt }];

  process.stderr.write(`agent ${payer.address} on ${network.label}\npaying and settling… `);
  const started = Date.now();
  const payingFetch = payer.fetch;
  let res: Response;
  try {
    res = await payingFetch(`${endpoint}/api/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: values.model, messages, network: values.network }),
    });
  } catch (err) {
    throw new UsageError(`the paid call failed: ${(err as Error).message}`);
  }
  const body = (await res.json().catch(() => null)) as Record<string, unknown> | null;
  process.stderr.write(`done in ${Date.now() - started} ms (HTTP ${res.status})\n`);
  if (!res.ok) throw new UsageError(`the service answered ${res.status}: ${String(body?.error ?? "")} ${String(body?.message ?? "")}`.trim());

  const settlement = res.headers.get("payment-response");
  if (settlement) {
    const s = decodePaymentResponseHeader(settlement);
    process.stderr.write(`paid: tx ${s.transaction}\n`);
  }
  const content = (body as { choices?: { message?: { content?: string } }[] }).choices?.[0]?.message?.content ?? "";
  process.stdout.write(`${content}\n`);

  const receiptHeader = res.headers.get("x-service-receipt");
  const parsed = receiptHeader ? parseReceiptText(receiptHeader) : null;
  if (!parsed?.ok) throw new UsageError("the answer carried no readable X-Service-Receipt");
  process.stderr.write("verifying the receipt… ");
  const verdict = await verifyReceipt({ receipt: parsed.receipt, prompt: messages, response: body, endpoint, rpc });
  process.stderr.write(verdict.ok ? "ok\n" : "NOT OK\n");
  for (const check of CHECK_NAMES) {
    process.stderr.write(`  ${verdict.checks[check] ? "✓" : "✗"} ${check}: ${verdict.reasons[check]}\n`);
  }
  process.stderr.write(`receipt: ${endpoint}/api/v1/receipts/${String(parsed.receipt.inference_id)}\n`);
  return verdict.ok ? 0 : 1;
}

interface Payer {
  address: string;
  fetch: typeof fetch;
}

async function solanaPayer(file: string, caip2: string, rpc: string): Promise<Payer> {
  let keypair;
  try {
    keypair = readKeypairFile(file);
  } catch {
    throw new UsageError(`cannot read the Solana keypair ${file} (the dev demo agent is created by npm run dev)`);
  }
  const signer = await signerFromKeypair(keypair);
  return { address: signer.address, fetch: createPayingFetch(signer, { [caip2]: rpc }) };
}

function evmPayer(file: string, caip2: string): Payer {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    throw new UsageError(`cannot read the EVM key file ${file} (the dev demo EVM agent is created by npm run dev)`);
  }
  const key = parseEvmPrivateKey(text);
  if (!key) throw new UsageError(`${file} does not hold a hex EVM private key (32 bytes)`);
  const account = privateKeyToAccount(key);
  return { address: account.address, fetch: createEvmPayingFetch(account, [caip2]) };
}
