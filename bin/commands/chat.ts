// `signet chat "prompt"`: a paid call with the stock @x402/fetch client, then the receipt verified with the library.
import path from "node:path";
import { parseArgs } from "node:util";
import { decodePaymentResponseHeader } from "@x402/core/http";
import { NETWORKS, resolveNetwork } from "../../server/chain/networks";
import { config } from "../../server/env";
import { createPayingFetch, readKeypairFile, signerFromKeypair } from "../../server/agent/paying-fetch";
import { CHECK_NAMES, parseReceiptText, verifyReceipt } from "../../server/verify";
import { UsageError } from "../cli-support";

export const CHAT_USAGE = 'signet chat "prompt" [--keypair FILE] [--network devnet] [--endpoint URL] [--model M] [--rpc URL]';
export const DEMO_AGENT_FILE = "demo-agent.json";

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
  const rpc = values.rpc ?? (networkId === "solana-devnet" ? cfg.solanaRpcUrl.devnet : networkId === "solana-mainnet" ? cfg.solanaRpcUrl.mainnet : null);
  if (!rpc) throw new UsageError(`no RPC known for ${network.label}; pass --rpc`);
  let keypair;
  try {
    keypair = readKeypairFile(values.keypair ?? path.join(cfg.dataDir, DEMO_AGENT_FILE));
  } catch {
    throw new UsageError(`cannot read the keypair ${values.keypair ?? "(dev demo agent; run npm run dev first)"}`);
  }
  const signer = await signerFromKeypair(keypair);
  const endpoint = values.endpoint.replace(/\/+$/, "");
  const messages = [{ role: "user", content: prompt }];

  process.stderr.write(`agent ${signer.address} on ${network.label}\npaying and settling… `);
  const started = Date.now();
  const payingFetch = createPayingFetch(signer, { [network.caip2]: rpc });
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
