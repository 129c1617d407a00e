// Real local HTTP servers for the verifier's integration tests: a Solana JSON-RPC node that answers getTransaction
// with a recorded-shape answer built from a receipt, plus small helpers (any handler, a hanging server, a closed port).
import { createHash, randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import bs58 from "bs58";
import { formatUnitsAsUsdc, solanaClusterOf, USDC_MINT_BY_SOLANA_CLUSTER, usdcNumberToUnits } from "../../verify";

export interface LocalServer {
  url: string;
  /** Every request served, in order. */
  hits: { method: string; url: string; body: string }[];
  close(): Promise<void>;
}

/** Starts a server on 127.0.0.1, port 0. The handler gets the whole body; a handler that throws answers 500. */
export async function startServer(
  handler: (req: http.IncomingMessage, body: string, res: http.ServerResponse) => unknown,
): Promise<LocalServer> {
  const hits: LocalServer["hits"] = [];
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString()));
    req.on("end", () => {
      hits.push({ method: req.method ?? "", url: req.url ?? "", body });
      Promise.resolve()
        .then(() => handler(req, body, res))
        .catch((err: unknown) => res.writeHead(500).end(String(err)));
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hits,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/** A server that accepts every request and never answers. */
export function startHangingServer(): Promise<LocalServer> {
  return startServer(() => undefined);
}

/** A port nothing listens on (taken from the OS, then released). */
export async function closedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

/** Sends a route handler's Response through a node response. */
export async function pipeResponse(from: Response, to: http.ServerResponse): Promise<void> {
  to.writeHead(from.status, Object.fromEntries(from.headers.entries()));
  to.end(Buffer.from(await from.arrayBuffer()));
}

const TOKEN_PROGRAM = "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA";
const COMPUTE_BUDGET_PROGRAM = "ComputeBudget111111111111111111111111111111";

/** A stable fake address for (owner, mint): stands in for the associated token account. */
function fakeTokenAccount(owner: string, mint: string): string {
  return bs58.encode(createHash("sha256").update(`${owner}/${mint}`).digest());
}

/**
 * The getTransaction answer (jsonParsed, confirmed) a Solana node gives for an x402 `exact` payment settled by this
 * service: the facilitator (also the deposit address, `pay_to`) pays the fee and signs first; the agent signs a USDC
 * transferChecked of `amount_usdc` from its token account to pay_to's. Built from a receipt's own payment block.
 */
export function recordedPaymentTransaction(receipt: Record<string, unknown>): unknown {
  const payment = receipt.payment as { amount_usdc: number; tx_signature: string; network: string; pay_to: string };
  const agent = receipt.agent_pubkey as string;
  const cluster = solanaClusterOf(payment.network);
  const units = usdcNumberToUnits(payment.amount_usdc);
  if (!cluster || units === null) throw new Error(`cannot record a transaction for payment ${JSON.stringify(payment)}`);
  const mint = USDC_MINT_BY_SOLANA_CLUSTER[cluster];
  const agentAta = fakeTokenAccount(agent, mint);
  const payToAta = fakeTokenAccount(payment.pay_to, mint);
  const agentBefore = 5_000_000n;
  const payToBefore = 120_000n;
  const tokenAmount = (amount: bigint) => ({
    amount: amount.toString(),
    decimals: 6,
    uiAmount: Number(formatUnitsAsUsdc(amount)),
    uiAmountString: formatUnitsAsUsdc(amount),
  });
  const balance = (accountIndex: number, owner: string, amount: bigint) => ({
    accountIndex,
    mint,
    owner,
    programId: TOKEN_PROGRAM,
    uiTokenAmount: tokenAmount(amount),
  });
  return {
    blockTime: 1_700_000_010,
    meta: {
      computeUnitsConsumed: 6_193,
      err: null,
      fee: 5_000,
      innerInstructions: [],
      logMessages: [
        `Program ${COMPUTE_BUDGET_PROGRAM} invoke [1]`,
        `Program ${COMPUTE_BUDGET_PROGRAM} success`,
        `Program ${TOKEN_PROGRAM} invoke [1]`,
        "Program log: Instruction: TransferChecked",
        `Program ${TOKEN_PROGRAM} consumed 6043 of 199850 compute units`,
        `Program ${TOKEN_PROGRAM} success`,
      ],
      postBalances: [999_995_000, 2_039_280, 2_039_280, 0, 1_461_600, 934_087_680, 1],
      postTokenBalances: [balance(1, agent, agentBefore - units), balance(2, payment.pay_to, payToBefore + units)],
      preBalances: [1_000_000_000, 2_039_280, 2_039_280, 0, 1_461_600, 934_087_680, 1],
      preTokenBalances: [balance(1, agent, agentBefore), balance(2, payment.pay_to, payToBefore)],
      rewards: [],
      status: { Ok: null },
    },
    slot: 412_345_678,
    transaction: {
      message: {
        accountKeys: [
          { pubkey: payment.pay_to, signer: true, source: "transaction", writable: true },
          { pubkey: agentAta, signer: false, source: "transaction", writable: true },
          { pubkey: payToAta, signer: false, source: "transaction", writable: true },
          { pubkey: agent, signer: true, source: "transaction", writable: false },
          { pubkey: mint, signer: false, source: "transaction", writable: false },
          { pubkey: TOKEN_PROGRAM, signer: false, source: "transaction", writable: false },
          { pubkey: COMPUTE_BUDGET_PROGRAM, signer: false, source: "transaction", writable: false },
        ],
        addressTableLookups: [],
        instructions: [
          { accounts: [], data: "3DTZbgwsozUF", programId: COMPUTE_BUDGET_PROGRAM, stackHeight: null },
          {
            parsed: {
              info: {
                authority: agent,
                destination: payToAta,
                mint,
                source: agentAta,
                tokenAmount: tokenAmount(units),
              },
              type: "transferChecked",
            },
            program: "spl-token",
            programId: TOKEN_PROGRAM,
            stackHeight: null,
          },
        ],
        recentBlockhash: "EkSnNWid2cvwEVnVx9aBqawnmiCNiDgp3gUdkDPTKN1N",
      },
      signatures: [payment.tx_signature, bs58.encode(randomBytes(64))],
    },
    version: 0,
  };
}

export interface RecordedRpc extends LocalServer {
  /** Registers the recorded answer for a receipt's payment (its tx_signature). */
  record(receipt: Record<string, unknown>): void;
  /** The params of every getTransaction call, in order. */
  getTransactionCalls(): unknown[][];
}

/** A JSON-RPC node that knows only the transactions recorded on it: others are `null` (not found), as a node says. */
export async function startRecordedRpc(): Promise<RecordedRpc> {
  const known = new Map<string, unknown>();
  const server = await startServer((_req, body, res) => {
    const call = JSON.parse(body) as { id: unknown; method: string; params: unknown[] };
    const answer =
      call.method === "getTransaction"
        ? { jsonrpc: "2.0", id: call.id, result: known.get(call.params[0] as string) ?? null }
        : { jsonrpc: "2.0", id: call.id, error: { code: -32601, message: "Method not found" } };
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(answer));
  });
  return {
    ...server,
    record(receipt) {
      known.set((receipt.payment as { tx_signature: string }).tx_signature, recordedPaymentTransaction(receipt));
    },
    getTransactionCalls: () =>
      server.hits
        .map((h) => JSON.parse(h.body) as { method: string; params: unknown[] })
        .filter((c) => c.method === "getTransaction")
        .map((c) => c.params),
  };
}
