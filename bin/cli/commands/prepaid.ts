// Prepaid commands: `signet infer`, `signet topup`, `signet balance`, `signet grant`, `signet sign`.
import { readFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { utf8ToBytes } from "@noble/hashes/utils.js";
import { extractReceiptFromResponse } from "@x402/extensions/offer-receipt";
import { createPayingFetch, readKeypairFile, signerFromKeypair } from "../../../server/agent/paying-fetch";
import { newNonce, signReadHeaders, signRequestHeaders } from "../../../server/agent/sign-request";
import { signPrepaidRequest } from "../../../server/agent/signing-fetch";
import type { Ed25519Keypair } from "../../../server/keys/parse-secret-key";
import { signDetached } from "../../../server/receipts/sign-receipt";
import { serverVerifier } from "../../../server/keys/server-verifier";
import { CHECK_NAMES, parseReceiptText, SHIPPED_NETWORKS } from "../../../server/verify";
import { familyFacts } from "../../../server/verify/chain-family-facts";
import { cliConfig, resolveEndpoint, serviceFetch, serviceRefusal, UsageError } from "../cli-support";
import { paymentIdOption, reportX402Receipt } from "../report-x402-receipt";
import { DEMO_AGENT_FILE } from "./chat";
import { advertisedRpc } from "./advertised-rpc";
import { formatBalanceReport, type CreditsAnswer } from "./format-reports";
import { payingNetwork } from "./paying-network";
import { INFER_USAGE, SIGN_USAGE, TOPUP_USAGE } from "./usage";

const OPTIONS = {
  keypair: { type: "string" },
  endpoint: { type: "string" },
  model: { type: "string", default: "local/echo-1" },
  network: { type: "string" },
  rpc: { type: "string" },
  "payment-id": { type: "string" },
} as const;

async function keypairFrom(file: string | undefined): Promise<Ed25519Keypair> {
  try {
    return readKeypairFile(file ?? path.join((await cliConfig()).dataDir, DEMO_AGENT_FILE));
  } catch {
    throw new UsageError(`cannot read the keypair ${file ?? "(dev demo agent; run npm run dev first)"}`);
  }
}

async function json(res: Response): Promise<Record<string, unknown>> {
  const body = (await res.json().catch(() => null)) as Record<string, unknown> | null;
  if (!res.ok) throw serviceRefusal(res.status, body);
  return body ?? {};
}

/** `signet infer`: a signed prepaid call; prints the answer, the balance and the verified receipt. */
export async function runInfer(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: OPTIONS });
  const prompt = positionals.join(" ").trim();
  if (!prompt) throw new UsageError(`a prompt is required\nusage: ${INFER_USAGE}`);
  const kp = await keypairFrom(values.keypair);
  const endpoint = resolveEndpoint(values.endpoint);
  const body = JSON.stringify({
    model: values.model,
    prompt,
    nonce: newNonce(),
    timestamp: Date.now(),
    ...(values.network ? { network: values.network } : {}),
  });
  const url = `${endpoint}/api/v1/inference`;
  const res = await serviceFetch(endpoint)(url, {
    method: "POST",
    headers: signRequestHeaders(kp, "POST", url, body),
    body,
  });
  const answer = await json(res);
  const content = (answer as { choices?: { message?: { content?: string } }[] }).choices?.[0]?.message?.content ?? "";
  process.stdout.write(`${content}\n`);
  process.stderr.write(`balance: ${res.headers.get("x-credit-balance-usdc") ?? "?"} USDC\n`);
  const parsed = parseReceiptText(res.headers.get("x-service-receipt") ?? "");
  if (!parsed.ok) throw new UsageError("the answer carried no readable X-Service-Receipt");
  const verdict = await serverVerifier.verifyReceipt({ receipt: parsed.receipt, prompt, response: answer, endpoint });
  for (const check of CHECK_NAMES)
    process.stderr.write(`  ${verdict.checks[check] ? "✓" : "✗"} ${check}: ${verdict.reasons[check]}\n`);
  return verdict.ok ? 0 : 1;
}

/** A shell word: single-quoted, with any single quote closed, escaped and reopened. */
const shellQuote = (text: string) => `'${text.replace(/'/g, "'\\''")}'`;

/**
 * `signet sign /api/v1/chat/completions --body '{…}'`: the body with its replay fields and the headers that sign it for
 * the agent's credit, printed as a curl command (or, with --json, as `{ url, headers, body }`). Nothing is sent.
 */
export async function runSign(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      keypair: { type: "string" },
      endpoint: { type: "string" },
      body: { type: "string" },
      json: { type: "boolean", default: false },
    },
  });
  const route = positionals[0];
  if (!route?.startsWith("/") || positionals.length > 1)
    throw new UsageError(`one path, such as /api/v1/chat/completions, is required\nusage: ${SIGN_USAGE}`);
  if (values.body === undefined)
    throw new UsageError(`--body is required (- reads it from stdin)\nusage: ${SIGN_USAGE}`);
  const text = values.body === "-" ? readFileSync(0, "utf8") : values.body;
  const kp = await keypairFrom(values.keypair);
  const url = `${resolveEndpoint(values.endpoint)}${route}`;
  let signed: ReturnType<typeof signPrepaidRequest>;
  try {
    signed = signPrepaidRequest(kp, url, text);
  } catch {
    throw new UsageError("--body must be a JSON object");
  }
  if (values.json) {
    process.stdout.write(`${JSON.stringify({ url, headers: signed.headers, body: signed.body })}\n`);
    return 0;
  }
  const headers = Object.entries(signed.headers).map(([name, value]) => `-H ${shellQuote(`${name}: ${value}`)}`);
  process.stdout.write(`curl -sS ${shellQuote(url)} ${headers.join(" ")} --data-raw ${shellQuote(signed.body)}\n`);
  return 0;
}

/** `signet topup 1.00`: pays for prepaid credit with x402. */
export async function runTopUp(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: OPTIONS });
  const amount = positionals[0];
  if (!amount || !/^\d+(\.\d{1,6})?$/.test(amount))
    throw new UsageError(`an amount in USDC is required\nusage: ${TOPUP_USAGE}`);
  const cfg = await cliConfig();
  const networkId = payingNetwork(values.network ?? "devnet", cfg.networks);
  const paymentId = paymentIdOption(values["payment-id"]);
  const endpoint = resolveEndpoint(values.endpoint);
  // The chain: --rpc, else the RPC the service names for the network in its /.well-known/x402, else this environment's.
  const network = cfg.networks.get(networkId);
  const advertised = values.rpc
    ? null
    : await advertisedRpc(endpoint, network.caip2, serviceFetch(endpoint)).catch(() => null);
  // This environment's RPC serves only a payment the agent's own key can make: the paying client here signs with the
  // Ed25519 agent key, the payer on a family whose paying key signs prepaid calls (Solana).
  const rpc =
    values.rpc ??
    (advertised?.ok ? advertised.rpc : undefined) ??
    (familyFacts(network).payerSignsPrepaid ? cfg.rpcUrls[networkId] : undefined);
  if (!rpc) throw new UsageError(`no RPC known for ${network.label}; pass --rpc`);
  const signer = await signerFromKeypair(await keypairFrom(values.keypair));
  const pay = createPayingFetch(signer, { [network.caip2]: rpc }, serviceFetch(endpoint), { paymentId });
  process.stderr.write("paying and settling… ");
  const res = await pay(`${endpoint}/api/v1/credits`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ amount_usdc: amount, ...(values.network ? { network: values.network } : {}) }),
  }).catch((err: unknown) => {
    process.stderr.write("\n");
    throw err;
  });
  const body = await json(res);
  process.stderr.write("done\n");
  process.stdout.write(`${JSON.stringify(body)}\n`);
  return (await reportX402Receipt(extractReceiptFromResponse(res), endpoint)) ? 0 : 1;
}

/**
 * `signet balance`: the agent's balance and recent ledger entries (a signed read), as a readable report; with --json,
 * the service's answer as JSON.
 */
export async function runBalance(argv: string[]): Promise<number> {
  const { values } = parseArgs({ args: argv, options: { ...OPTIONS, json: { type: "boolean", default: false } } });
  const kp = await keypairFrom(values.keypair);
  const endpoint = resolveEndpoint(values.endpoint);
  const url = `${endpoint}/api/v1/credits/${kp.publicKeyBase58}`;
  const query = values.network ? `?network=${encodeURIComponent(values.network)}` : "";
  const res = await serviceFetch(endpoint)(`${url}${query}`, { headers: signReadHeaders(kp, url, String(Date.now())) });
  const answer = await json(res);
  // Reads no config (a signed read of any deployment): a network this release does not ship shows by its CAIP-2 id.
  process.stdout.write(
    values.json
      ? `${JSON.stringify(answer, null, 2)}\n`
      : formatBalanceReport(
          answer as unknown as CreditsAnswer,
          (caip2) => SHIPPED_NETWORKS.byCaip2(caip2)?.label ?? null,
        ),
  );
  return 0;
}

/** `signet grant`: fetches the challenge, signs it with the key, claims. */
export async function runGrant(argv: string[]): Promise<number> {
  const { values } = parseArgs({ args: argv, options: OPTIONS });
  const kp = await keypairFrom(values.keypair);
  const endpoint = resolveEndpoint(values.endpoint);
  const toService = serviceFetch(endpoint);
  const challenge = (await json(
    await toService(`${endpoint}/api/v1/grants/challenge?agent_pubkey=${kp.publicKeyBase58}`),
  )) as { challenge: string };
  process.stderr.write(`${challenge.challenge}\n\n`);
  const res = await toService(`${endpoint}/api/v1/grants`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      agent_pubkey: kp.publicKeyBase58,
      challenge: challenge.challenge,
      signature: signDetached(utf8ToBytes(challenge.challenge), kp),
    }),
  });
  process.stdout.write(`${JSON.stringify(await json(res))}\n`);
  return 0;
}
