// `signet chat "prompt"`: a paid call with the stock @x402/fetch client, then the receipt verified with the library.
// The chain: --rpc, else the RPC the service names for the network in its /.well-known/x402, else this environment's.
// A refused payment (402) is said plainly, with how to fund the payer (payment-refusal.ts); exit 2, nothing charged.
import path from "node:path";
import { parseArgs } from "node:util";
import { decodePaymentRequiredHeader, decodePaymentResponseHeader } from "@x402/core/http";
import { extractReceiptFromResponse } from "@x402/extensions/offer-receipt";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import type { Receipt } from "../../../server/receipts/receipt-types";
import type { SignedReceipt } from "@x402/extensions/offer-receipt";
import { readStreamedAnswer } from "../../../server/upstream/read-sse";
import { privateKeyToAccount } from "viem/accounts";
import {
  createEvmPayingFetch,
  createPayingFetch,
  readKeypairFile,
  signerFromKeypair,
} from "../../../server/agent/paying-fetch";
import { parseEvmPrivateKey } from "../../../server/keys/evm-key";
import { serverVerifier } from "../../../server/keys/server-verifier";
import {
  CHECK_NAMES,
  parseReceiptText,
  type NetworkFamily,
  type NetworkId,
  type NetworkRegistry,
} from "../../../server/verify";
import { serviceError } from "../../../server/errors/error-body";
import { cliConfig, resolveEndpoint, serviceFetch, serviceRefusal, UsageError } from "../cli-support";
import { advertisedRpc, isLoopbackAddressUrl, isLoopbackService } from "./advertised-rpc";
import { payingNetwork } from "./paying-network";
import { paymentRefusalLines, type PaymentRefusal } from "./payment-refusal";
import { CHAT_USAGE } from "./usage";
import { paymentIdOption, reportX402Receipt } from "../report-x402-receipt";

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
      endpoint: { type: "string" },
      model: { type: "string", default: "local/echo-1" },
      rpc: { type: "string" },
      stream: { type: "boolean", default: false },
      save: { type: "string" },
      "payment-id": { type: "string" },
    },
  });
  const paymentId = paymentIdOption(values["payment-id"]);
  const endpoint = resolveEndpoint(values.endpoint);
  const prompt = positionals.join(" ").trim();
  if (!prompt) throw new UsageError(`a prompt is required\nusage: ${CHAT_USAGE}`);
  const cfg = await cliConfig();
  const networkId = payingNetwork(values.network, cfg.networks);
  const network = cfg.networks.get(networkId);
  const configuredRpc = cfg.rpcUrls[networkId];
  const toService = serviceFetch(endpoint);
  const advertised = values.rpc ? null : await advertisedRpc(endpoint, network.caip2, toService).catch(() => null);
  const rpc = values.rpc ?? (advertised?.ok ? advertised.rpc : undefined) ?? configuredRpc;
  if (!rpc) throw new UsageError(`no RPC known for ${network.label}; pass --rpc`);
  const family = CHAT_FAMILIES[network.family];
  const payer = await family.payer(
    values.keypair ?? path.join(cfg.dataDir, family.demoKeyFile),
    network.caip2,
    rpc,
    paymentId,
    toService,
  );
  const messages = [{ role: "user", content: prompt }];

  process.stderr.write(`agent ${payer.address} on ${network.label}\npaying and settling… `);
  const started = Date.now();
  const payingFetch = payer.fetch;
  let res: Response;
  try {
    res = await payingFetch(`${endpoint}/api/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        model: values.model,
        messages,
        network: values.network,
        ...(values.stream ? { stream: true } : {}),
      }),
    });
  } catch (err) {
    process.stderr.write("\n");
    if (err instanceof UsageError) throw err;
    throw new UsageError(`the paid call failed: ${(err as Error).message}`);
  }
  if (values.stream && res.ok) return printStream(res, { started, messages, endpoint, rpc, save: values.save });
  const body = (await res.json().catch(() => null)) as Record<string, unknown> | null;
  const tookMs = Date.now() - started;
  if (res.status === 402) {
    process.stderr.write(`refused after ${tookMs} ms (HTTP 402)\n`);
    // `localnet fund` funds on its family's devnet chain unless told which.
    const fundDefault = cfg.rpcUrls[family.fundNetwork];
    const refusal = {
      ...refusalOf(body),
      payer: payer.address,
      asks: challengeAsks(res, network.caip2, cfg.networks),
      endpoint,
      local: isLoopbackService(endpoint) && isLoopbackAddressUrl(rpc),
      fundRpc: rpc === fundDefault ? null : rpc,
    };
    for (const line of paymentRefusalLines(refusal)) process.stderr.write(`${line}\n`);
    return 2;
  }
  process.stderr.write(
    res.ok ? `done in ${tookMs} ms (HTTP ${res.status})\n` : `answered HTTP ${res.status} after ${tookMs} ms\n`,
  );
  if (!res.ok) throw serviceRefusal(res.status, body);

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
  return verifyAndReport(parsed.receipt, messages, body, extractReceiptFromResponse(res), {
    endpoint,
    rpc,
    save: values.save,
  });
}

/** A 402 body's `reason` and `message`. */
function refusalOf(body: Record<string, unknown> | null): Pick<PaymentRefusal, "reason" | "message"> {
  const { message, fields } = serviceError(body);
  return { reason: typeof fields.reason === "string" ? fields.reason : null, message };
}

/** What the 402's x402 v2 challenge (PAYMENT-REQUIRED) asks for on `caip2`, named from `networks`; null when it carries none readable. */
function challengeAsks(res: Response, caip2: string, networks: NetworkRegistry): PaymentRefusal["asks"] {
  const header = res.headers.get("payment-required");
  if (!header) return null;
  try {
    const accepts = decodePaymentRequiredHeader(header).accepts;
    const offer = accepts.find((a) => a.network === caip2) ?? accepts[0];
    if (!offer || !/^\d{1,30}$/.test(offer.amount)) return null;
    return {
      units: BigInt(offer.amount),
      networkLabel: networks.byCaip2(offer.network)?.label ?? offer.network,
      asset: offer.asset,
    };
  } catch {
    return null;
  }
}

interface ReportOptions {
  endpoint: string;
  rpc: string;
  save: string | undefined;
}

/**
 * Verifies the receipt with the library, prints the five checks and the x402 receipt's check, and saves the inputs for
 * `signet verify`. 0 when both receipts verified.
 */
async function verifyAndReport(
  receipt: Record<string, unknown> | Receipt,
  messages: unknown[],
  response: unknown,
  x402Receipt: SignedReceipt | null | undefined,
  opts: ReportOptions,
): Promise<number> {
  if (opts.save) {
    mkdirSync(opts.save, { recursive: true });
    writeFileSync(path.join(opts.save, "receipt.json"), `${JSON.stringify(receipt, null, 2)}\n`);
    writeFileSync(path.join(opts.save, "prompt.json"), `${JSON.stringify(messages, null, 2)}\n`);
    writeFileSync(path.join(opts.save, "response.json"), `${JSON.stringify(response, null, 2)}\n`);
    if (x402Receipt)
      writeFileSync(path.join(opts.save, "x402-receipt.json"), `${JSON.stringify(x402Receipt, null, 2)}\n`);
    process.stderr.write(
      `saved receipt.json, prompt.json, response.json${x402Receipt ? ", x402-receipt.json" : ""} in ${opts.save}\n`,
    );
  }
  process.stderr.write("verifying the receipt… ");
  const verdict = await serverVerifier.verifyReceipt({
    receipt,
    prompt: messages,
    response,
    endpoint: opts.endpoint,
    rpc: opts.rpc,
  });
  process.stderr.write(verdict.ok ? "ok\n" : "NOT OK\n");
  for (const check of CHECK_NAMES) {
    process.stderr.write(`  ${verdict.checks[check] ? "✓" : "✗"} ${check}: ${verdict.reasons[check]}\n`);
  }
  process.stderr.write(`receipt: ${opts.endpoint}/api/v1/receipts/${String(receipt.inference_id)}\n`);
  const x402Ok = await reportX402Receipt(x402Receipt, opts.endpoint);
  return verdict.ok && x402Ok ? 0 : 1;
}

/** Prints a streamed answer as it arrives, then its timeline, then verifies the receipt event over the chunks. */
async function printStream(
  res: Response,
  opts: ReportOptions & { started: number; messages: unknown[] },
): Promise<number> {
  const settlement = res.headers.get("payment-response");
  const headersAt = Date.now() - opts.started;
  if (settlement)
    process.stderr.write(
      `paid: tx ${decodePaymentResponseHeader(settlement).transaction} (settled before the first byte)\n`,
    );
  let firstByte = -1;
  let lastByte = -1;
  let receiptAt = -1;
  const answer = await readStreamedAnswer(res.body!, {
    onContent: (content) => {
      lastByte = Date.now() - opts.started;
      if (firstByte < 0) firstByte = lastByte;
      process.stdout.write(content);
    },
    onReceipt: () => (receiptAt = Date.now() - opts.started),
  });
  process.stdout.write("\n");
  process.stderr.write(
    `timeline: headers ${headersAt} ms, first token ${firstByte} ms, last token ${lastByte} ms, receipt event ${receiptAt} ms (${answer.chunks.length} chunks)\n`,
  );
  if (answer.error)
    throw new UsageError(
      `the stream ended with an error: ${answer.error.code ?? "error"}: ${answer.error.message ?? ""}`,
    );
  if (!answer.receipt) throw new UsageError("the stream carried no receipt event");
  const { receipt, chunks } = answer;
  return verifyAndReport(receipt, opts.messages, chunks, answer.x402Receipt, opts);
}

interface Payer {
  address: string;
  fetch: typeof fetch;
}

/** How `chat` pays on each chain family: the dev demo agent's key file, its paying client, and the chain `localnet fund` funds. */
interface ChatFamily {
  demoKeyFile: string;
  payer(
    file: string,
    caip2: string,
    rpc: string,
    paymentId: string | undefined,
    toService: typeof fetch,
  ): Promise<Payer>;
  /** The network `signet localnet fund` funds without --rpc for an owner of this family (a 0x address or a Solana key). */
  fundNetwork: NetworkId;
}

const CHAT_FAMILIES: { readonly [F in NetworkFamily]: ChatFamily } = {
  svm: { demoKeyFile: DEMO_AGENT_FILE, payer: solanaPayer, fundNetwork: "solana-devnet" },
  evm: {
    demoKeyFile: DEMO_EVM_AGENT_FILE,
    payer: async (file, caip2, _rpc, paymentId, toService) => evmPayer(file, caip2, paymentId, toService),
    fundNetwork: "base-sepolia",
  },
};

async function solanaPayer(
  file: string,
  caip2: string,
  rpc: string,
  paymentId: string | undefined,
  toService: typeof fetch,
): Promise<Payer> {
  let keypair;
  try {
    keypair = readKeypairFile(file);
  } catch {
    throw new UsageError(`cannot read the Solana keypair ${file} (the dev demo agent is created by npm run dev)`);
  }
  const signer = await signerFromKeypair(keypair);
  return { address: signer.address, fetch: createPayingFetch(signer, { [caip2]: rpc }, toService, { paymentId }) };
}

function evmPayer(file: string, caip2: string, paymentId: string | undefined, toService: typeof fetch): Payer {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    throw new UsageError(`cannot read the EVM key file ${file} (the dev demo EVM agent is created by npm run dev)`);
  }
  const key = parseEvmPrivateKey(text);
  if (!key) throw new UsageError(`${file} does not hold a hex EVM private key (32 bytes)`);
  const account = privateKeyToAccount(key);
  return { address: account.address, fetch: createEvmPayingFetch(account, [caip2], toService, { paymentId }) };
}
