// A Solana JSON-RPC 2.0 server over a LocalChain: the methods the x402 client, the x402 facilitator signer and our
// verifier call, with the real node's shapes and error codes, plus dev-only `localnet_*` methods.
import "server-only";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { getBase58Decoder } from "@solana/kit";
import { decodeBase58, isBase58PublicKey } from "../../server/verify";
import { readJsonRpcBody } from "../../server/chain/read-json-rpc-body";
import { readTokenAccount, type Commitment, type LocalChain, type StoredTransaction } from "./local-chain";

/** Largest request body accepted, bytes. */
const TOKEN_PROGRAM = "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA";

class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

type Params = unknown[];
type Handler = (params: Params) => unknown | Promise<unknown>;

/**
 * Starts the HTTP server; `port` 0 picks a free port. With the chain's fault profile, requests meet HTTP 429 and 503
 * and timeouts at its rates; the dev-only `localnet_*` methods never do, so a test can always read the fault log.
 * `faults: false` serves the same chain with no HTTP fault (a harness's own reads: funding checks, reconcile).
 */
export async function serveRpc(
  chain: LocalChain,
  host: string,
  port: number,
  opts: { faults?: boolean } = {},
): Promise<{ url: string; close(): Promise<void> }> {
  const methods = rpcMethods(chain);
  const dice = opts.faults === false ? null : chain.faults;
  const held = new Set<NodeJS.Timeout>();
  const server = http.createServer((req, res) => {
    // Browsers verify receipts against this RPC (the explorer), as they can against public Solana RPCs.
    res.setHeader("access-control-allow-origin", "*");
    res.setHeader("access-control-allow-headers", "content-type, solana-client");
    res.setHeader("access-control-allow-methods", "POST, GET, OPTIONS");
    if (req.method === "OPTIONS") return void res.writeHead(204).end();
    if (req.method === "GET" && req.url === "/health") return void res.end("ok");
    if (req.method !== "POST") return void res.writeHead(405).end();
    readJsonRpcBody(req, res, async (parsed) => {
      const fate = dice && !isControlRequest(parsed) ? dice.httpFate(methodsOf(parsed)) : { kind: "ok" as const };
      if (fate.kind === "429") {
        const retryAfter = String(dice!.profile.retryAfterSec);
        return void res.writeHead(429, { "content-type": "application/json", "retry-after": retryAfter }).end(
          JSON.stringify({
            jsonrpc: "2.0",
            id: null,
            error: { code: 429, message: "Too many requests for a specific RPC call" },
          }),
        );
      }
      if (fate.kind === "503")
        return void res.writeHead(503, { "content-type": "text/plain" }).end("Service Unavailable");
      const answer = Array.isArray(parsed)
        ? await Promise.all(parsed.map((r) => dispatch(methods, r)))
        : await dispatch(methods, parsed);
      if (fate.kind === "timeout") {
        // The request took effect (a timed-out send may still land), but its answer never comes.
        const timer = setTimeout(() => {
          held.delete(timer);
          res.destroy();
        }, dice!.profile.timeoutHoldMs);
        held.add(timer);
        return;
      }
      reply(res, answer);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, resolve);
  });
  const actual = (server.address() as AddressInfo).port;
  return {
    url: `http://${host}:${actual}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const timer of held) clearTimeout(timer);
        held.clear();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function reply(res: http.ServerResponse, body: unknown): void {
  res
    .writeHead(200, { "content-type": "application/json" })
    .end(JSON.stringify(body, (_k, v: unknown) => (typeof v === "bigint" ? Number(v) : v)));
}

async function dispatch(methods: Record<string, Handler>, request: unknown): Promise<unknown> {
  const r = request as { jsonrpc?: unknown; id?: unknown; method?: unknown; params?: unknown };
  const id = r && (typeof r.id === "string" || typeof r.id === "number") ? r.id : null;
  if (!r || typeof r.method !== "string")
    return { jsonrpc: "2.0", id, error: { code: -32600, message: "Invalid request" } };
  const handler = Object.hasOwn(methods, r.method) ? methods[r.method] : undefined;
  if (!handler) return { jsonrpc: "2.0", id, error: { code: -32601, message: "Method not found" } };
  try {
    const result = await handler(Array.isArray(r.params) ? r.params : []);
    return { jsonrpc: "2.0", id, result };
  } catch (err) {
    if (err instanceof RpcError)
      return {
        jsonrpc: "2.0",
        id,
        error: { code: err.code, message: err.message, ...(err.data !== undefined ? { data: err.data } : {}) },
      };
    return { jsonrpc: "2.0", id, error: { code: -32603, message: "Internal error" } };
  }
}

/** The methods a request (or batch) calls, for the request log. */
function methodsOf(parsed: unknown): string {
  const requests = Array.isArray(parsed) ? parsed : [parsed];
  return requests
    .map((r) => (typeof (r as { method?: unknown })?.method === "string" ? (r as { method: string }).method : "?"))
    .join(",");
}

/** Dev-only control calls (`localnet_*`), alone or in a batch, which faults spare. */
function isControlRequest(parsed: unknown): boolean {
  const requests = Array.isArray(parsed) ? parsed : [parsed];
  return (
    requests.length > 0 &&
    requests.every(
      (r) =>
        typeof (r as { method?: unknown })?.method === "string" &&
        (r as { method: string }).method.startsWith("localnet_"),
    )
  );
}

const COMMITMENTS: readonly Commitment[] = ["processed", "confirmed", "finalized"];

/** The commitment a call asks for; a node's default is finalized. */
function commitmentParam(params: Params, index: number): Commitment {
  const asked = config(params, index).commitment;
  if (asked === undefined) return "finalized";
  if (typeof asked !== "string" || !COMMITMENTS.includes(asked as Commitment))
    throw new RpcError(-32602, "Invalid param: commitment");
  return asked as Commitment;
}

const RANK: Record<Commitment, number> = { processed: 0, confirmed: 1, finalized: 2 };

function pubkeyParam(params: Params, index = 0): string {
  const value = params[index];
  if (!isBase58PublicKey(value)) throw new RpcError(-32602, "Invalid param: Invalid");
  return value;
}

function config(params: Params, index: number): Record<string, unknown> {
  const c = params[index];
  return typeof c === "object" && c !== null ? (c as Record<string, unknown>) : {};
}

function rpcMethods(chain: LocalChain): Record<string, Handler> {
  const ctx = (commitment: Commitment = "processed") => ({ slot: chain.slotAt(commitment), apiVersion: "2.2.0" });
  /** Whether a landed transaction is visible to a reader at `commitment`. */
  const visibleAt = (tx: StoredTransaction, commitment: Commitment) => RANK[chain.commitmentOf(tx)] >= RANK[commitment];
  const encodeAccount = (addr: string, encoding: string) => {
    const account = chain.getAccount(addr);
    if (!account) return null;
    const base = {
      executable: account.executable,
      lamports: account.lamports,
      owner: account.owner,
      rentEpoch: 18446744073709551615n,
      space: account.space,
    };
    if (encoding === "jsonParsed" && account.owner === TOKEN_PROGRAM) {
      const parsed = parseTokenProgramAccount(account.data);
      if (parsed) return { ...base, data: { program: "spl-token", parsed, space: account.space } };
    }
    if (encoding === "base58") return { ...base, data: [getBase58Decoder().decode(account.data), "base58"] };
    return { ...base, data: [Buffer.from(account.data).toString("base64"), "base64"] };
  };

  return {
    getHealth: () => "ok",
    getVersion: () => ({ "solana-core": "2.2.0", "feature-set": 0, note: "signet localnet (LiteSVM), simulated" }),
    getGenesisHash: () => chain.info.genesisHash,
    getSlot: (p) => chain.slotAt(commitmentParam(p, 0)),
    getBlockHeight: (p) => chain.slotAt(commitmentParam(p, 0)),
    getEpochInfo: (p) => {
      const slot = chain.slotAt(commitmentParam(p, 0));
      return {
        absoluteSlot: slot,
        blockHeight: slot,
        epoch: 0,
        slotIndex: slot,
        slotsInEpoch: 432_000,
        transactionCount: chain.transactionCount(),
      };
    },
    getLatestBlockhash: (p) => {
      const at = chain.blockhashAt(commitmentParam(p, 0));
      return {
        context: { slot: at.slot, apiVersion: "2.2.0" },
        value: { blockhash: at.blockhash, lastValidBlockHeight: at.lastValidBlockHeight },
      };
    },
    isBlockhashValid: (p) => ({ context: ctx(), value: typeof p[0] === "string" && chain.isBlockhashValid(p[0]) }),
    getMinimumBalanceForRentExemption: (p) => {
      const len = p[0];
      if (typeof len !== "number" || !Number.isInteger(len) || len < 0)
        throw new RpcError(-32602, "Invalid param: data length");
      return chain.minimumBalanceForRentExemption(len);
    },
    getBalance: (p) => ({ context: ctx(), value: chain.getAccount(pubkeyParam(p))?.lamports ?? 0n }),
    getAccountInfo: (p) => ({
      context: ctx(),
      value: encodeAccount(pubkeyParam(p), String(config(p, 1).encoding ?? "base58")),
    }),
    getMultipleAccounts: (p) => {
      const list = p[0];
      if (!Array.isArray(list) || list.length > 100) throw new RpcError(-32602, "Invalid param: accounts");
      const encoding = String(config(p, 1).encoding ?? "base58");
      return { context: ctx(), value: list.map((a) => encodeAccount(pubkeyParam([a]), encoding)) };
    },
    getTokenAccountBalance: (p) => {
      const account = chain.getAccount(pubkeyParam(p));
      const parsed =
        account && account.owner === TOKEN_PROGRAM && account.data.length === 165
          ? readTokenAccount(account.data)
          : null;
      if (!parsed) throw new RpcError(-32602, "Invalid param: could not find account");
      return { context: ctx(), value: uiAmount(parsed.amount) };
    },
    getFeeForMessage: () => ({ context: ctx(), value: 5_000 }),
    getRecentPrioritizationFees: () => [],
    requestAirdrop: (p) => {
      const owner = pubkeyParam(p);
      const amount = p[1];
      if (typeof amount !== "number" || !Number.isSafeInteger(amount) || amount <= 0)
        throw new RpcError(-32602, "Invalid param: lamports");
      return chain.airdrop(owner, BigInt(amount));
    },
    sendTransaction: (p) => {
      const wire = p[0];
      const encoding = String(config(p, 1).encoding ?? "base58");
      if (typeof wire !== "string") throw new RpcError(-32602, "Invalid param: transaction");
      const base64 =
        encoding === "base64" ? wire : Buffer.from(decodeBase58(wire) ?? new Uint8Array()).toString("base64");
      const outcome = chain.submit(base64, { skipPreflight: config(p, 1).skipPreflight === true });
      if (outcome.ok) return outcome.signature;
      if (outcome.kind === "signature") throw new RpcError(-32003, outcome.message);
      throw new RpcError(-32002, outcome.message, {
        err: outcome.err,
        logs: outcome.logs,
        accounts: null,
        unitsConsumed: 0,
        returnData: null,
      });
    },
    simulateTransaction: (p) => {
      const wire = p[0];
      const cfg = config(p, 1);
      if (typeof wire !== "string") throw new RpcError(-32602, "Invalid param: transaction");
      const base64 =
        cfg.encoding === "base64" ? wire : Buffer.from(decodeBase58(wire) ?? new Uint8Array()).toString("base64");
      let outcome;
      try {
        outcome = chain.simulate(base64, {
          sigVerify: cfg.sigVerify === true,
          replaceRecentBlockhash: cfg.replaceRecentBlockhash === true,
        });
      } catch {
        // LiteSVM throws on a missing signature when verifying; a node answers with this error.
        if (cfg.sigVerify === true) throw new RpcError(-32003, "Transaction signature verification failure");
        throw new RpcError(-32602, "invalid transaction: could not be simulated");
      }
      if (!outcome) throw new RpcError(-32602, "invalid transaction: failed to deserialize");
      return {
        context: ctx(),
        value: {
          err: outcome.err,
          logs: outcome.logs,
          accounts: null,
          unitsConsumed: outcome.unitsConsumed,
          returnData: null,
          innerInstructions: null,
          replacementBlockhash: null,
        },
      };
    },
    getSignatureStatuses: (p) => {
      const sigs = p[0];
      if (!Array.isArray(sigs) || sigs.length > 256) throw new RpcError(-32602, "Invalid param: signatures");
      return {
        context: ctx(),
        value: sigs.map((s) => {
          const tx = typeof s === "string" ? chain.getTransaction(s) : null;
          if (!tx) return null;
          const confirmationStatus = chain.commitmentOf(tx);
          // A node counts confirmations until the block is rooted, then answers null.
          const confirmations = confirmationStatus === "finalized" ? null : chain.slot - tx.slot;
          return {
            slot: tx.slot,
            confirmations,
            err: tx.meta.err,
            status: tx.meta.err === null ? { Ok: null } : { Err: tx.meta.err },
            confirmationStatus,
          };
        }),
      };
    },
    getTransaction: (p) => {
      const sig = p[0];
      if (typeof sig !== "string" || !decodeBase58(sig, 64)) throw new RpcError(-32602, "Invalid param: Invalid");
      const commitment = commitmentParam(p, 1);
      // A node refuses `processed` here; the instant chain, where everything is final at once, keeps accepting it.
      if (commitment === "processed" && chain.timing.mode === "real")
        throw new RpcError(-32602, "Invalid params: Method does not support commitment below `confirmed`");
      const tx = chain.getTransaction(sig);
      return tx && visibleAt(tx, commitment) ? renderTransaction(tx, String(config(p, 1).encoding ?? "json")) : null;
    },
    getSignaturesForAddress: (p) => {
      const addr = pubkeyParam(p);
      const cfg = config(p, 1);
      const limit = typeof cfg.limit === "number" ? Math.min(Math.max(cfg.limit, 1), 1000) : 1000;
      const commitment = commitmentParam(p, 1);
      let list = chain
        .signaturesFor(addr)
        .filter((t) => visibleAt(t, commitment === "processed" ? "confirmed" : commitment));
      if (typeof cfg.before === "string") {
        const at = list.findIndex((t) => t.signature === cfg.before);
        list = at >= 0 ? list.slice(at + 1) : list;
      }
      return list.slice(0, limit).map((t) => ({
        signature: t.signature,
        slot: t.slot,
        err: t.meta.err,
        memo: null,
        blockTime: t.blockTime,
        confirmationStatus: chain.commitmentOf(t),
      }));
    },
    localnet_faultLog: () => chain.faults?.log() ?? null,
    localnet_requestLog: () => chain.faults?.requestLog() ?? null,
    localnet_info: () => ({
      profile: chain.profile,
      genesisHash: chain.info.genesisHash,
      caip2: chain.info.caip2,
      usdcMint: chain.info.usdcMint,
      mintAuthority: chain.mintAuthority.address,
      simulated: true,
    }),
    localnet_expireBlockhash: () => {
      chain.expireBlockhash();
      return chain.latestBlockhash();
    },
    localnet_fund: async (p) => {
      const owner = pubkeyParam(p);
      const cfg = config(p, 1);
      const units = (v: unknown) =>
        typeof v === "string" && /^\d{1,19}$/.test(v) ? BigInt(v) : v === undefined ? 0n : null;
      const usdcUnits = units(cfg.usdcUnits);
      const lamports = units(cfg.lamports);
      if (usdcUnits === null || lamports === null)
        throw new RpcError(-32602, "Invalid param: usdcUnits and lamports are decimal strings");
      return chain.fund(owner, { usdcUnits, lamports });
    },
  };
}

function uiAmount(amount: bigint) {
  const ui = Number(amount) / 1e6;
  return { amount: amount.toString(), decimals: 6, uiAmount: ui, uiAmountString: String(ui) };
}

function parseTokenProgramAccount(data: Uint8Array): unknown {
  if (data.length === 165) {
    const t = readTokenAccount(data);
    return {
      type: "account",
      info: { mint: t.mint, owner: t.owner, tokenAmount: uiAmount(t.amount), state: "initialized", isNative: false },
    };
  }
  if (data.length === 82) {
    const view = new DataView(data.buffer, data.byteOffset);
    const hasAuthority = view.getUint32(0, true) === 1;
    return {
      type: "mint",
      info: {
        mintAuthority: hasAuthority ? getBase58Decoder().decode(data.slice(4, 36)) : null,
        supply: view.getBigUint64(36, true).toString(),
        decimals: data[44],
        isInitialized: data[45] === 1,
        freezeAuthority: view.getUint32(46, true) === 1 ? getBase58Decoder().decode(data.slice(50, 82)) : null,
      },
    };
  }
  return null;
}

function renderTransaction(tx: StoredTransaction, encoding: string): unknown {
  const meta = {
    ...tx.meta,
    status: tx.meta.err === null ? { Ok: null } : { Err: tx.meta.err },
    innerInstructions: [],
    rewards: [],
    loadedAddresses: { writable: [], readonly: [] },
  };
  const base = { slot: tx.slot, blockTime: tx.blockTime, version: tx.version, meta };
  const signatures = [tx.signature];
  if (encoding === "base64") return { ...base, transaction: [tx.wire, "base64"] };
  if (encoding === "jsonParsed") {
    return {
      ...base,
      transaction: {
        signatures,
        message: {
          accountKeys: tx.accountKeys.map((k) => ({ ...k, source: "transaction" })),
          instructions: tx.instructions.map((ix) => parseInstruction(tx, ix)),
          recentBlockhash: tx.recentBlockhash,
          addressTableLookups: [],
        },
      },
    };
  }
  const signerCount = tx.accountKeys.filter((k) => k.signer).length;
  return {
    ...base,
    transaction: {
      signatures,
      message: {
        header: {
          numRequiredSignatures: signerCount,
          numReadonlySignedAccounts: tx.accountKeys.filter((k) => k.signer && !k.writable).length,
          numReadonlyUnsignedAccounts: tx.accountKeys.filter((k) => !k.signer && !k.writable).length,
        },
        accountKeys: tx.accountKeys.map((k) => k.pubkey),
        recentBlockhash: tx.recentBlockhash,
        instructions: tx.instructions.map((ix) => ({ ...ix, stackHeight: null })),
        addressTableLookups: [],
      },
    },
  };
}

/** Parses SPL token transferChecked the way jsonParsed does; other instructions stay raw. */
function parseInstruction(tx: StoredTransaction, ix: StoredTransaction["instructions"][number]): unknown {
  const programId = tx.accountKeys[ix.programIdIndex]?.pubkey ?? "";
  const accounts = ix.accounts.map((i) => tx.accountKeys[i]?.pubkey ?? "");
  const data = decodeBase58(ix.data) ?? new Uint8Array();
  if (programId === TOKEN_PROGRAM && data[0] === 12 && data.length >= 10 && accounts.length >= 4) {
    const amount = new DataView(data.buffer, data.byteOffset + 1, 8).getBigUint64(0, true);
    return {
      program: "spl-token",
      programId,
      parsed: {
        type: "transferChecked",
        info: {
          source: accounts[0],
          mint: accounts[1],
          destination: accounts[2],
          authority: accounts[3],
          tokenAmount: { ...uiAmount(amount), decimals: data[9] },
        },
      },
      stackHeight: null,
    };
  }
  return { programId, accounts, data: ix.data, stackHeight: null };
}
