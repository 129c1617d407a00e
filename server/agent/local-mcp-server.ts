// The local MCP server (`signet mcp`, stdio) an MCP host runs beside the agent: it holds the agent's key, pays Signet's
// HTTP routes with the stock x402 client (or spends prepaid credit with signed requests), and keeps a budget the user
// sets. A call over the budget is refused before anything is signed: an x402 price is checked in the stock client's
// before-payment hook, a prepaid call is capped at what is left (its `max_cost_usdc`). Every answer's receipt is
// verified with the library and kept for the session's `receipts`.
import "server-only";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { decodePaymentResponseHeader } from "@x402/core/http";
import { z } from "zod";
import { systemClock } from "../clock";
import { serviceError } from "../errors/error-body";
import type { Ed25519Keypair } from "../keys/parse-secret-key";
import { serverVerifier } from "../keys/server-verifier";
import { formatUnitsAsUsdc, parseReceiptText, parseUsdcToUnits, type NetworkRow } from "../verify";
import { createPayingFetch, signerFromKeypair } from "./paying-fetch";
import { signReadHeaders } from "./sign-request";
import { signingFetch } from "./signing-fetch";
import { NOTHING_RESERVED, SpendingBudget, type BudgetLimits, type Reservation } from "./spending-budget";
import { chatAnswerText, responsesAnswerText } from "../mcp/answer-text";

export interface LocalMcpOptions {
  /** The service's origin, as this machine reaches it. */
  endpoint: string;
  /** The agent's key: it pays on Solana and signs prepaid requests. */
  keypair: Ed25519Keypair;
  /** The network paid on (a Solana network), and its RPC. */
  network: NetworkRow;
  rpc: string;
  /** How calls are paid: per call with x402, or from prepaid credit. */
  pay: "x402" | "prepaid";
  /** The model a call uses when it names none. */
  model: string;
  budget: BudgetLimits;
  /** The fetch that reaches the service (the global one by default). */
  fetch?: typeof fetch;
  /** The agent's clock, epoch ms (the system's by default): signed requests carry its time. */
  now?: () => number;
}

/** One call this session paid for: enough to verify it again and to find it on the service. */
interface SessionReceipt {
  tool: "chat" | "respond" | "top_up";
  inference_id: string | null;
  spent_usdc: string;
  paid_with: "x402" | "prepaid";
  transaction: string | null;
  verified: boolean | null;
  url: string | null;
  receipt: Record<string, unknown> | null;
  prompt: unknown;
  response: unknown;
}

type Text = {
  content: { type: "text"; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
};

const textResult = (value: Record<string, unknown>, text = JSON.stringify(value)): Text => ({
  content: [{ type: "text", text }],
  structuredContent: value,
});
const toolError = (code: string, message: string): Text => ({
  isError: true,
  content: [{ type: "text", text: `${code}: ${message}` }],
  structuredContent: { error: { code, message } },
});

/** The MCP server for one host session. */
export function createLocalMcpServer(options: LocalMcpOptions): McpServer {
  const send = options.fetch ?? fetch;
  const now = options.now ?? (() => systemClock.now());
  // One signer for the session's payments, derived on the first.
  let signer: ReturnType<typeof signerFromKeypair> | null = null;
  const sessionSigner = (): ReturnType<typeof signerFromKeypair> => (signer ??= signerFromKeypair(options.keypair));
  const endpoint = options.endpoint.replace(/\/+$/, "");
  const networkName = options.network.aliases[0]!;
  const budget = new SpendingBudget(options.budget, formatUnitsAsUsdc);
  const session: SessionReceipt[] = [];
  const server = new McpServer(
    { name: "signet-local", title: "Signet (local wallet)", version: "1.0.0" },
    {
      instructions: `Pays ${endpoint} for model calls from this machine's agent key (${options.keypair.publicKeyBase58}) on ${options.network.label}, ${options.pay === "x402" ? "per call with x402" : "from prepaid credit"}, within a budget of ${formatUnitsAsUsdc(options.budget.perCallUnits)} USDC per call and ${formatUnitsAsUsdc(options.budget.sessionUnits)} USDC per session. Every answer carries a signed receipt, verified before it is returned.`,
    },
  );

  /** Sends a paid POST: x402 with the budget checked before the payment is signed, or a prepaid request capped by it. */
  async function paidPost(
    path: string,
    body: Record<string, unknown>,
  ): Promise<{ res: Response; reservation: Reservation; mode: "x402" | "prepaid" } | Text> {
    if (options.pay === "prepaid" && path !== "/api/v1/credits") {
      const { leftUnits } = budget.state();
      const cap = leftUnits < options.budget.perCallUnits ? leftUnits : options.budget.perCallUnits;
      if (cap <= 0n) return toolError("over_budget", "the session's budget is spent");
      const reserved = budget.reserve(cap);
      if (!reserved.ok) return toolError("over_budget", reserved.message);
      const prepaid = signingFetch(options.keypair, { fetch: send, now });
      try {
        const res = await prepaid(`${endpoint}${path}`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ ...body, max_cost_usdc: Number(formatUnitsAsUsdc(cap)) }),
        });
        return { res, reservation: reserved.reservation, mode: "prepaid" };
      } catch (err) {
        reserved.reservation.release();
        return toolError("unreachable", `the service did not answer: ${(err as Error).message}`);
      }
    }
    let reservation: Reservation | null = null;
    let refusal: string | null = null;
    const paying = createPayingFetch(await sessionSigner(), { [options.network.caip2]: options.rpc }, send, {
      beforePayment: async (requirements) => {
        const reserved = budget.reserve(BigInt(requirements.amount));
        if (!reserved.ok) {
          refusal = reserved.message;
          return { abort: true, reason: reserved.message };
        }
        reservation = reserved.reservation;
      },
    });
    try {
      const res = await paying(`${endpoint}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      // A first answer that is not a 402 asked for nothing: nothing was reserved.
      return { res, reservation: reservation ?? NOTHING_RESERVED, mode: "x402" };
    } catch (err) {
      (reservation as Reservation | null)?.release();
      if (refusal !== null) return toolError("over_budget", `${refusal}; nothing was paid`);
      return toolError("payment_failed", `the paid call failed: ${(err as Error).message}`);
    }
  }

  /** A model call's answer: verified, its spend committed, kept for the session. */
  async function modelCall(tool: "chat" | "respond", path: string, body: Record<string, unknown>, prompt: unknown) {
    const sent = await paidPost(path, { ...body, network: networkName });
    if ("content" in sent) return sent;
    const { res, reservation, mode } = sent;
    const answer = (await res.json().catch(() => null)) as Record<string, unknown> | null;
    const settlementHeader = res.headers.get("payment-response");
    const settlement = settlementHeader ? decodePaymentResponseHeader(settlementHeader) : null;
    if (!res.ok) {
      // Money moved when a settlement is named or the service failed after settling: kept as spent (its credit stays).
      if (mode === "x402" && (settlement?.success || res.status >= 500)) reservation.commit(reservation.units);
      else reservation.release();
      const { code, message } = serviceError(answer);
      return toolError(code || `http_${res.status}`, message || `the service answered ${res.status}`);
    }
    const parsed = parseReceiptText(res.headers.get("x-service-receipt") ?? "");
    const receipt = parsed.ok ? (parsed.receipt as unknown as Record<string, unknown>) : null;
    // A prepaid call spends its cost; a paid one, the price its payment carried once it settled.
    const spent =
      mode === "prepaid" && receipt
        ? (parseUsdcToUnits(String(receipt.cost_usdc)) ?? reservation.units)
        : settlement?.success
          ? reservation.units
          : 0n;
    reservation.commit(spent);
    const verdict = receipt
      ? await serverVerifier.verifyReceipt({ receipt, prompt, response: answer, endpoint, rpc: options.rpc })
      : null;
    const id = receipt ? String(receipt.inference_id) : null;
    const entry: SessionReceipt = {
      tool,
      inference_id: id,
      spent_usdc: formatUnitsAsUsdc(spent),
      paid_with: mode,
      transaction: settlement?.transaction ?? null,
      verified: verdict ? verdict.ok : null,
      url: id ? `${endpoint}/r/${id}` : null,
      receipt,
      prompt,
      response: answer,
    };
    session.push(entry);
    const text = tool === "chat" ? chatAnswerText(answer) : responsesAnswerText(answer);
    const line = id
      ? `Signed receipt ${id}: ${verdict?.ok ? "verified" : "NOT verified"}; ${entry.url} (spent ${entry.spent_usdc} USDC)`
      : "The answer carried no receipt.";
    return {
      content: [
        { type: "text" as const, text },
        { type: "text" as const, text: line },
      ],
      structuredContent: { answer, receipt, verified: entry.verified, spent_usdc: entry.spent_usdc },
    };
  }

  const model = z.string().min(1).max(200).optional().describe(`The model (default ${options.model})`);
  server.registerTool(
    "chat",
    {
      title: "Ask a model (paid, within the budget)",
      description: `Asks a hosted model through Signet and returns its answer with a verified, signed receipt. Spends at most ${formatUnitsAsUsdc(options.budget.perCallUnits)} USDC per call; refused before paying when over the budget.`,
      inputSchema: {
        prompt: z.string().min(1).describe("What to ask"),
        system: z.string().optional().describe("A system message put before the prompt"),
        model,
        max_tokens: z.number().int().min(1).max(1_000_000).optional().describe("The most tokens the answer may have"),
      },
    },
    async ({ prompt, system, model: m, max_tokens }) => {
      const messages = [...(system ? [{ role: "system", content: system }] : []), { role: "user", content: prompt }];
      return modelCall(
        "chat",
        "/api/v1/chat/completions",
        { model: m ?? options.model, messages, ...(max_tokens ? { max_tokens } : {}) },
        messages,
      );
    },
  );
  server.registerTool(
    "respond",
    {
      title: "Responses API call (paid, within the budget)",
      description: "OpenAI's Responses API through Signet: one stateless answer to `input`, with a verified receipt.",
      inputSchema: {
        input: z.string().min(1).describe("What to ask"),
        instructions: z.string().optional().describe("A system message put before the input"),
        model,
        max_output_tokens: z.number().int().min(1).max(1_000_000).optional(),
      },
    },
    async ({ input, instructions, model: m, max_output_tokens }) => {
      const body = {
        model: m ?? options.model,
        input,
        ...(instructions ? { instructions } : {}),
        ...(max_output_tokens ? { max_output_tokens } : {}),
      };
      return modelCall("respond", "/api/v1/responses", body, { input, ...(instructions ? { instructions } : {}) });
    },
  );
  server.registerTool(
    "balance",
    {
      title: "Balance and budget (free)",
      description: "This agent's prepaid credit on the service, and what the session has spent of its budget.",
      inputSchema: {},
    },
    async () => {
      const url = `${endpoint}/api/v1/credits/${options.keypair.publicKeyBase58}`;
      const res = await send(`${url}?network=${encodeURIComponent(networkName)}`, {
        headers: signReadHeaders(options.keypair, url, String(now())),
      });
      const body = (await res.json().catch(() => null)) as Record<string, unknown> | null;
      if (!res.ok) {
        const { code, message } = serviceError(body);
        return toolError(code || `http_${res.status}`, message);
      }
      const { spentUnits, leftUnits } = budget.state();
      return textResult({
        agent: options.keypair.publicKeyBase58,
        network: networkName,
        credit: body,
        session: {
          spent_usdc: formatUnitsAsUsdc(spentUnits),
          left_usdc: formatUnitsAsUsdc(leftUnits),
          per_call_usdc: formatUnitsAsUsdc(options.budget.perCallUnits),
        },
      });
    },
  );
  server.registerTool(
    "top_up",
    {
      title: "Buy prepaid credit (paid, within the budget)",
      description: "Buys prepaid credit for this agent with an x402 payment of `amount_usdc`, within the budget.",
      inputSchema: {
        amount_usdc: z
          .string()
          .regex(/^\d{1,9}(\.\d{1,6})?$/)
          .describe('How much credit to buy, in USDC (e.g. "0.05"); counts against the budget'),
      },
    },
    async ({ amount_usdc }) => {
      const sent = await paidPost("/api/v1/credits", {
        amount_usdc,
        network: networkName,
        agent_pubkey: options.keypair.publicKeyBase58,
      });
      if ("content" in sent) return sent;
      const body = (await sent.res.json().catch(() => null)) as Record<string, unknown> | null;
      if (!sent.res.ok) {
        sent.reservation.release();
        const { code, message } = serviceError(body);
        return toolError(code || `http_${sent.res.status}`, message);
      }
      // The top-up's payment was its challenge's price, reserved before it was signed.
      sent.reservation.commit(sent.reservation.units);
      const settlement = sent.res.headers.get("payment-response");
      session.push({
        tool: "top_up",
        inference_id: null,
        spent_usdc: formatUnitsAsUsdc(sent.reservation.units),
        paid_with: "x402",
        transaction: settlement ? decodePaymentResponseHeader(settlement).transaction : null,
        verified: null,
        url: null,
        receipt: null,
        prompt: null,
        response: body,
      });
      return textResult({ credited: body });
    },
  );
  server.registerTool(
    "verify_receipt",
    {
      title: "Verify a receipt (free)",
      description:
        "Verifies a receipt of this session (by its inference_id) or any receipt with the prompt and answer it covers: the prompt and response hashes, the operator's signature, the payment on chain and its payer.",
      inputSchema: {
        inference_id: z.string().optional().describe("A receipt this session paid for"),
        receipt: z.record(z.string(), z.unknown()).optional().describe("Any receipt (with prompt and response)"),
        prompt: z.unknown().optional().describe("The messages (or Responses input) the receipt covers"),
        response: z.unknown().optional().describe("The answer body the receipt covers"),
      },
    },
    async ({ inference_id, receipt, prompt, response }) => {
      const own = inference_id ? session.find((s) => s.inference_id === inference_id) : undefined;
      if (inference_id && !own) return toolError("not_found", `this session paid for no receipt ${inference_id}`);
      const input = own
        ? { receipt: own.receipt, prompt: own.prompt, response: own.response }
        : { receipt, prompt, response };
      if (!input.receipt) return toolError("invalid_request", "receipt: give a receipt, or the inference_id of one");
      try {
        const verdict = await serverVerifier.verifyReceipt({ ...input, endpoint, rpc: options.rpc });
        return textResult({ ok: verdict.ok, checks: verdict.checks, reasons: verdict.reasons });
      } catch (err) {
        return toolError("invalid_request", (err as Error).message);
      }
    },
  );
  server.registerTool(
    "receipts",
    {
      title: "This session's receipts (free)",
      description: "What this session paid for: each call's receipt id, what it spent, how, and where to check it.",
      inputSchema: {},
    },
    async () => {
      const { spentUnits, leftUnits } = budget.state();
      return textResult({
        spent_usdc: formatUnitsAsUsdc(spentUnits),
        left_usdc: formatUnitsAsUsdc(leftUnits),
        calls: session.map(({ receipt: _r, prompt: _p, response: _a, ...entry }) => entry),
      });
    },
  );
  return server;
}
