// Our own receipt vectors (server/verify/vectors/signet-generated), built in memory from fixed keys, fixed timestamps
// and hand-written chain recordings: valid paid (Solana, Base) and prepaid receipts, and one failing case for every
// check result, failure reason and error code the verifier can produce. `npm run vectors` writes them to disk.
// The expected outcomes are written here by hand, never computed by the verifier, so the vectors test it.
import { sha256, sha512 } from "@noble/hashes/sha2.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";
import bs58 from "bs58";
import { keypairFromBytes, type Ed25519Keypair } from "../../server/keys/parse-secret-key";
import { buildReceipt, type ReceiptFacts } from "../../server/receipts/build-receipt";
import { encodeReceiptHeader, signDetached, signDocument, signReceipt } from "../../server/receipts/sign-receipt";
import type { Receipt } from "../../server/receipts/receipt-types";
import { legacyPromptHashOfMessages, receiptSigningBytes, RESPONSE_FORMS } from "../../server/verify";

/** The folder the vectors live in, relative to the repository root. */
export const GENERATED_VECTORS_DIR = "server/verify/vectors/signet-generated";

/** Every name is derived from a fixed label, so each run yields the same keys, addresses and signatures. */
const seedOf = (label: string) => sha256(utf8ToBytes(`signet generated vectors: ${label}`));
const keypairOf = (label: string): Ed25519Keypair => keypairFromBytes(seedOf(label));
const evmAddressOf = (label: string) => `0x${bytesToHex(seedOf(label)).slice(0, 40)}`;

const OPERATOR = keypairOf("operator key");
const OTHER_OPERATOR = keypairOf("some other operator key");
const VERIFIER = keypairOf("hosted verifier key");
/** The operator's key before a rotation to OPERATOR: retired at RETIRED_AT_MS, published as such by the endpoint. */
const RETIRED_OPERATOR = keypairOf("retired operator key");

// The real USDC assets, written out here (not imported from server/verify) so a wrong constant there fails the vectors.
const SOLANA_DEVNET = "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1";
const DEVNET_USDC_MINT = "4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU";
const DEVNET_RPC = "https://api.devnet.solana.com";
const BASE_SEPOLIA = "eip155:84532";
const BASE_SEPOLIA_USDC = "0x036CbD53842c5426634e7929541eC2318f3dCF7e";
const BASE_SEPOLIA_RPC = "https://sepolia.base.org";
const ERC20_TRANSFER_TOPIC = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef";
const TOKEN_PROGRAM = "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA";

const SOL_AGENT = keypairOf("solana agent").publicKeyBase58;
const SOL_PAY_TO = keypairOf("solana pay_to").publicKeyBase58;
const SOL_AGENT_ATA = keypairOf("solana agent token account").publicKeyBase58;
const SOL_PAY_TO_ATA = keypairOf("solana pay_to token account").publicKeyBase58;
const SOL_FEE_PAYER = keypairOf("solana facilitator fee payer").publicKeyBase58;
const SOL_TX = bs58.encode(sha512(utf8ToBytes("signet generated vectors: solana transaction")));
const SOL_BLOCKHASH = keypairOf("solana blockhash").publicKeyBase58;
const SOL_SLOT = 412_345_678;
const SOL_AMOUNT_UNITS = 10_000n;

const EVM_AGENT = evmAddressOf("evm agent");
const EVM_PAY_TO = evmAddressOf("evm pay_to");
const EVM_RELAYER = evmAddressOf("evm facilitator relayer");
const EVM_TX = `0x${bytesToHex(seedOf("evm transaction"))}`;
const EVM_BLOCK_HASH = `0x${bytesToHex(seedOf("evm block"))}`;
const EVM_AMOUNT_UNITS = 1_000n;

const OPERATOR_ENDPOINT = "https://signet.example";
const BASE_TIMESTAMP_MS = 1_763_000_000_000;
/** RETIRED_OPERATOR's retirement: half a second after receipt 40's timestamp, 2025-11-13T02:14:00.500Z. */
const RETIRED_AT_MS = BASE_TIMESTAMP_MS + 40_500;
/** GET /api/v1/operator-key after the rotation: OPERATOR signs now, RETIRED_OPERATOR signed before RETIRED_AT_MS. */
const ROTATED_KEY_RESOURCE = {
  pubkey: OPERATOR.publicKeyBase58,
  algorithm: "ed25519",
  encoding: "base58",
  retired: [{ pubkey: RETIRED_OPERATOR.publicKeyBase58, retired_at: RETIRED_AT_MS }],
};

const MESSAGES = [
  { role: "system", content: "You are a helpful assistant." },
  { role: "user", content: 'Say hi in one word. 😀 \u2028 "q" \\' },
];
const ANSWER = "Hello!";

/** A JSON-RPC or GET request the verifier must make, and the answer the recording gives it. */
export interface RecordedExchange {
  request: { method: "GET"; url: string } | { method: "POST"; url: string; rpc_method: string; params: unknown[] };
  response: { status: number; body: unknown } | { fail: "network" | "hang" | "refused" };
}

/** How a vector is run: these become the verifyReceipt options. */
interface VectorRun {
  offline: boolean;
  /** pinned: operator-pubkey.txt is passed as operatorKey; endpoint: the key is fetched; none: neither is given. */
  operator_key: "pinned" | "endpoint" | "none";
  endpoint?: string;
  attempt_timeout_ms?: number;
}

/** The outcome a vector expects. `reasons` holds the exact sentence for each check that fails. */
export interface GeneratedExpected {
  kind: "verify" | "parse" | "verdict";
  notes: string;
  run?: VectorRun;
  checks?: Record<string, boolean>;
  ok?: boolean;
  reasons?: Record<string, string>;
  error?: { name: "VerifyInputError"; message: string } | { name: "VerifierFetchError"; reason: string };
  parse?: { ok: true } | { ok: false; reason: string };
  verdict_signature_ok?: boolean;
  receipt_signature_matches?: boolean;
  prompt_hash_expected?: string;
  response_hash_expected?: string;
  canonical_payload_hex?: string;
}

interface VectorCase {
  name: string;
  receipt: unknown;
  /** Set for parse vectors: the text a person pasted, written as receipt.txt instead of receipt.json. */
  receiptText?: string;
  request: unknown;
  response: unknown;
  operatorKey?: string;
  http?: RecordedExchange[];
  verdict?: Record<string, unknown>;
  expected: GeneratedExpected;
}

const ALL_TRUE = {
  prompt_hash_ok: true,
  response_hash_ok: true,
  service_signature_ok: true,
  payment_on_chain_ok: true,
  payer_matches: true,
};
const PINNED_ONLINE: VectorRun = { offline: false, operator_key: "pinned" };

const solShort = (text: string) => `${text.slice(0, 4)}…${text.slice(-4)}`;
const evmShort = (text: string) => `${text.slice(0, 6)}…${text.slice(-4)}`;
const operatorShort = (key: string) => `${key.slice(0, 4)}…`;

function facts(i: number, overrides: Partial<ReceiptFacts> = {}): ReceiptFacts {
  return {
    agentPubkey: SOL_AGENT,
    upstream: "local",
    model: "local/echo-1",
    costUnits: 45n,
    prompt: { messages: MESSAGES },
    responseText: ANSWER,
    timestampMs: BASE_TIMESTAMP_MS + i * 1_000,
    inferenceId: `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`,
    pointsTotal: 1,
    ...overrides,
  };
}

const solanaPayment = { amountUnits: SOL_AMOUNT_UNITS, txSignature: SOL_TX, network: SOLANA_DEVNET, payTo: SOL_PAY_TO };
const basePayment = { amountUnits: EVM_AMOUNT_UNITS, txSignature: EVM_TX, network: BASE_SEPOLIA, payTo: EVM_PAY_TO };

const solanaReceipt = (i: number) => signReceipt(buildReceipt(facts(i, { payment: solanaPayment })), OPERATOR);
const baseReceipt = (i: number, agent = EVM_AGENT) =>
  signReceipt(buildReceipt(facts(i, { agentPubkey: agent, payment: basePayment, responseText: ANSWER })), OPERATOR);
const prepaidReceipt = (i: number) =>
  signReceipt(
    buildReceipt(facts(i, { prompt: { text: "What is the capital of France?" }, responseText: "Paris." })),
    OPERATOR,
  );

/** Re-signs a receipt after `edit`: only the edited fact is wrong, and the signature over it stays valid. */
function resigned(
  receipt: Receipt,
  edit: (unsigned: Record<string, unknown>) => Record<string, unknown>,
): Record<string, unknown> {
  const { service_signature: _old, ...unsigned } = receipt;
  const edited = edit({ ...unsigned });
  return { ...edited, service_signature: signDetached(receiptSigningBytes(edited), OPERATOR) };
}

function chatCompletion(text: string) {
  return {
    id: "chatcmpl-signet-vector",
    object: "chat.completion",
    created: BASE_TIMESTAMP_MS / 1_000,
    model: "local/echo-1",
    choices: [{ index: 0, message: { role: "assistant", content: text }, finish_reason: "stop" }],
    usage: { prompt_tokens: 18, completion_tokens: 2, total_tokens: 20 },
  };
}

/** A streamed answer: the receipt's response hash covers the concatenated `delta.content` of these chunks. */
function streamedCompletion(parts: string[]) {
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) => ({
    id: "chatcmpl-signet-vector-stream",
    object: "chat.completion.chunk",
    created: BASE_TIMESTAMP_MS / 1_000,
    model: "local/echo-1",
    choices,
    ...extra,
  });
  return [
    chunk([{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }]),
    ...parts.map((content) => chunk([{ index: 0, delta: { content }, finish_reason: null }])),
    chunk([{ index: 0, delta: {}, finish_reason: "stop" }]),
    chunk([], { usage: { prompt_tokens: 18, completion_tokens: 2, total_tokens: 20 } }),
  ];
}

interface SolanaTxShape {
  mint?: string;
  payerOwner?: string;
  agentSigns?: boolean;
  err?: unknown;
  withoutMeta?: boolean;
}

/** A getTransaction answer (jsonParsed, confirmed) for an x402 exact payment: the facilitator pays the fee, the agent signs the transfer. */
function solanaTransaction(shape: SolanaTxShape = {}) {
  const mint = shape.mint ?? DEVNET_USDC_MINT;
  const balance = (accountIndex: number, owner: string, units: bigint) => ({
    accountIndex,
    mint,
    owner,
    programId: TOKEN_PROGRAM,
    uiTokenAmount: { amount: units.toString(), decimals: 6, uiAmountString: formatSixDecimals(units) },
  });
  const payer = shape.payerOwner ?? SOL_AGENT;
  const meta = {
    err: shape.err ?? null,
    fee: 5000,
    preBalances: [1_000_000_000, 2_039_280, 2_039_280, 0],
    postBalances: [999_995_000, 2_039_280, 2_039_280, 0],
    preTokenBalances: [balance(1, payer, 5_000_000n), balance(2, SOL_PAY_TO, 0n)],
    postTokenBalances: [balance(1, payer, 5_000_000n - SOL_AMOUNT_UNITS), balance(2, SOL_PAY_TO, SOL_AMOUNT_UNITS)],
    logMessages: [],
  };
  return {
    slot: SOL_SLOT,
    blockTime: BASE_TIMESTAMP_MS / 1_000,
    ...(shape.withoutMeta ? {} : { meta }),
    transaction: {
      signatures: [SOL_TX],
      message: {
        accountKeys: [
          { pubkey: SOL_FEE_PAYER, signer: true, writable: true, source: "transaction" },
          { pubkey: SOL_AGENT_ATA, signer: false, writable: true, source: "transaction" },
          { pubkey: SOL_PAY_TO_ATA, signer: false, writable: true, source: "transaction" },
          { pubkey: SOL_AGENT, signer: shape.agentSigns ?? true, writable: false, source: "transaction" },
        ],
        instructions: [],
        recentBlockhash: SOL_BLOCKHASH,
      },
    },
    version: 0,
  };
}

function formatSixDecimals(units: bigint): string {
  return `${units / 1_000_000n}.${(units % 1_000_000n).toString().padStart(6, "0")}`;
}

interface EvmTxShape {
  status?: string;
  contract?: string;
  from?: string;
}

/** An eth_getTransactionReceipt answer as a Base node gives it: `from` is the relayer, the Transfer log names the payer. */
function evmTransactionReceipt(shape: EvmTxShape = {}) {
  const contract = (shape.contract ?? BASE_SEPOLIA_USDC).toLowerCase();
  const topic = (address: string) => `0x${"0".repeat(24)}${address.slice(2).toLowerCase()}`;
  return {
    transactionHash: EVM_TX,
    blockHash: EVM_BLOCK_HASH,
    blockNumber: "0x1b",
    from: EVM_RELAYER,
    to: contract,
    status: shape.status ?? "0x1",
    gasUsed: "0xc350",
    logs: [
      {
        address: contract,
        topics: [ERC20_TRANSFER_TOPIC, topic(shape.from ?? EVM_AGENT), topic(EVM_PAY_TO)],
        data: `0x${EVM_AMOUNT_UNITS.toString(16).padStart(64, "0")}`,
        logIndex: "0x0",
        removed: false,
      },
    ],
  };
}

const jsonRpcAnswer = (result: unknown) => ({ status: 200, body: { jsonrpc: "2.0", id: 1, result } });
const GET_TRANSACTION_PARAMS = [
  SOL_TX,
  { encoding: "jsonParsed", commitment: "confirmed", maxSupportedTransactionVersion: 0 },
];
const getTransaction = (response: RecordedExchange["response"]): RecordedExchange => ({
  request: { method: "POST", url: DEVNET_RPC, rpc_method: "getTransaction", params: GET_TRANSACTION_PARAMS },
  response,
});
const getEvmReceipt = (result: unknown): RecordedExchange => ({
  request: { method: "POST", url: BASE_SEPOLIA_RPC, rpc_method: "eth_getTransactionReceipt", params: [EVM_TX] },
  response: jsonRpcAnswer(result),
});

const SOL_WHERE = `tx ${solShort(SOL_TX)} at slot ${SOL_SLOT}`;
const EVM_WHERE = `tx ${evmShort(EVM_TX)}`;
const bothPaymentReasons = (why: string) => ({ payment_on_chain_ok: why, payer_matches: why });
const paymentFails = (why: string) => ({
  checks: { ...ALL_TRUE, payment_on_chain_ok: false, payer_matches: false },
  ok: false,
  reasons: bothPaymentReasons(why),
});

const solanaRequest = { model: "local/echo-1", messages: MESSAGES };
/** A Responses API request (POST /api/v1/responses): instructions, and one message item with an input_text part. */
const responsesRequest = {
  model: "local/echo-1",
  instructions: "You are a helpful assistant.",
  input: [{ role: "user", content: [{ type: "input_text", text: "Say hi in one word." }] }],
};
/** The messages it is served as, written out by hand: what the receipt's prompt hash covers. */
/**
 * A Responses request that passes back an earlier answer's function calls and the tool's output, and the messages it
 * maps to (written out by hand, not computed): the calls as one assistant message with tool_calls, the output as a tool
 * message. The function tools themselves are not in the prompt hash.
 */
const responsesToolsRequest = {
  model: "openai/gpt-4o-mini",
  input: [
    { role: "user", content: "Weather in Oslo and Bergen?" },
    { type: "function_call", id: "fc_1", call_id: "call_a", name: "get_weather", arguments: '{"city":"Oslo"}' },
    { type: "function_call", id: "fc_2", call_id: "call_b", name: "get_weather", arguments: '{"city":"Bergen"}' },
    { type: "function_call_output", call_id: "call_a", output: '{"celsius":12}' },
    { type: "function_call_output", call_id: "call_b", output: '{"celsius":9}' },
  ],
  tools: [
    { type: "function", name: "get_weather", parameters: { type: "object", properties: { city: { type: "string" } } } },
  ],
};
const RESPONSES_TOOLS_MESSAGES = [
  { role: "user", content: "Weather in Oslo and Bergen?" },
  {
    role: "assistant",
    content: null,
    tool_calls: [
      { id: "call_a", type: "function", function: { name: "get_weather", arguments: '{"city":"Oslo"}' } },
      { id: "call_b", type: "function", function: { name: "get_weather", arguments: '{"city":"Bergen"}' } },
    ],
  },
  { role: "tool", tool_call_id: "call_a", content: '{"celsius":12}' },
  { role: "tool", tool_call_id: "call_b", content: '{"celsius":9}' },
];
const RESPONSES_MESSAGES = [
  { role: "system", content: "You are a helpful assistant." },
  { role: "user", content: [{ type: "text", text: "Say hi in one word." }] },
];
/** `text` in three parts, for a stream's deltas. */
function splitInThree(text: string): string[] {
  const third = Math.ceil(text.length / 3);
  return [text.slice(0, third), text.slice(third, 2 * third), text.slice(2 * third)];
}

/** The Responses object of the answer: the response hash covers its output_text. */
function responsesObject(text: string) {
  return {
    id: "resp_00000000-0000-4000-8000-000000000036",
    object: "response",
    created_at: BASE_TIMESTAMP_MS / 1_000,
    status: "completed",
    model: "local/echo-1",
    output: [
      {
        id: "msg_00000000-0000-4000-8000-000000000036",
        type: "message",
        status: "completed",
        role: "assistant",
        content: [{ type: "output_text", text, annotations: [], logprobs: [] }],
      },
    ],
    usage: { input_tokens: 12, output_tokens: 2, total_tokens: 14 },
  };
}
/**
 * A streamed Responses answer as its events: the receipt's response hash covers the concatenated `delta` of its
 * `response.output_text.delta` events, the same text as the Responses object's output_text.
 */
function responsesEvents(parts: string[]) {
  const at = { item_id: "msg_00000000-0000-4000-8000-000000000036", output_index: 0, content_index: 0 };
  const text = parts.join("");
  const done = responsesObject(text);
  const events: Record<string, unknown>[] = [
    { type: "response.created", response: { ...done, status: "in_progress", output: [], usage: null } },
    { type: "response.in_progress", response: { ...done, status: "in_progress", output: [], usage: null } },
    {
      type: "response.output_item.added",
      output_index: 0,
      item: { ...done.output[0], status: "in_progress", content: [] },
    },
    {
      type: "response.content_part.added",
      ...at,
      part: { type: "output_text", text: "", annotations: [], logprobs: [] },
    },
    ...parts.map((delta) => ({ type: "response.output_text.delta", ...at, delta, logprobs: [] })),
    { type: "response.output_text.done", ...at, text, logprobs: [] },
    { type: "response.content_part.done", ...at, part: done.output[0]!.content[0] },
    { type: "response.output_item.done", output_index: 0, item: done.output[0] },
    { type: "response.completed", response: done },
  ];
  return events.map((event, sequence_number) => ({ ...event, sequence_number }));
}
/**
 * A prompt and an answer of odd content. The prompt holds U+0000, a lone surrogate (which a client may send: JSON can
 * escape it), U+2028 and a BOM; the answer holds U+0000 and U+FFFD, which is what the service sends for a lone
 * surrogate a model answered (UTF-8 cannot carry one), with U+2028, U+2029, a BOM and text that only looks like escapes.
 */
const ODD_MESSAGES = [{ role: "user", content: "nul:\u0000 lone:\ud800 sep:\u2028 bom:\ufeff looks-escaped:\\u0000" }];
const ODD_ANSWER =
  "nul:\u0000 sent-for-a-lone-surrogate:\ufffd seps:\u2028\u2029 bom:\ufeff looks-escaped:\\ud800 emoji:\ud83d\ude00";
/**
 * ODD_MESSAGES' canonical JSON, written out by hand, not computed: keys sorted, no whitespace, strings as
 * JSON.stringify writes them (U+0000 and a lone surrogate escaped as \u0000 and \ud800, in lower case; U+2028 and a
 * BOM raw; a backslash doubled).
 */
const ODD_PROMPT_CANONICAL =
  '[{"content":"nul:\\u0000 lone:\\ud800 sep:\u2028 bom:\ufeff looks-escaped:\\\\u0000","role":"user"}]';
const baseRequest = { model: "local/echo-1", messages: MESSAGES, stream: true };
const prepaidRequest = { prompt: "What is the capital of France?" };
const prepaidResponse = { result: "Paris." };

/**
 * An embeddings call (POST /api/v1/embeddings, OpenAI's shape). The prompt hash covers `input` as a list of inputs; the
 * response hash covers the vectors as float32 values, whichever encoding wrote them. The answer's JSON numbers are not
 * all float32 values (0.1, 1e-7 and 0.123456789 round to the nearest float32), one is -0 (JSON writes it 0; base64
 * keeps its sign bit), and one is the largest float32; the base64 answer holds the same float32 values.
 */
const EMBEDDING_MODEL = "openai/text-embedding-3-small";
const EMBEDDING_TEXT = "The food was delicious and the waiter was kind.";
const EMBEDDING_TEXTS = ["The food was delicious.", 'naïve café \\ "q" 😀'];
const EMBEDDING_TOKENS = [791, 3691, 574, 18406, 13];
const EMBEDDING_VECTORS = [
  [0.1, -0.5, 1e-7, -0],
  [0.123456789, 0.25, -1, 3.4028234663852886e38],
];
/** One float32 step above 0.25: the tampered answer moves this one value. */
const NEXT_FLOAT32_AFTER_QUARTER = 0.2500000298023224;
/**
 * The canonical texts the hashes cover, written out by hand, not computed: inputs as a list (a text as a list of that
 * one text, a token list as a list of that one list); each vector value as the float32 it rounds to, written as
 * JSON.stringify writes that number (-0 as 0, 1e-7's float32 in exponent form).
 */
const EMBEDDING_TEXT_CANONICAL = '["The food was delicious and the waiter was kind."]';
const EMBEDDING_TEXTS_CANONICAL = '["The food was delicious.","naïve café \\\\ \\"q\\" 😀"]';
const EMBEDDING_TOKENS_CANONICAL = "[[791,3691,574,18406,13]]";
const EMBEDDING_ONE_VECTOR_CANONICAL = "[[0.10000000149011612,-0.5,1.0000000116860974e-7,0]]";
const EMBEDDING_VECTORS_CANONICAL =
  "[[0.10000000149011612,-0.5,1.0000000116860974e-7,0],[0.12345679104328156,0.25,-1,3.4028234663852886e+38]]";
const embeddingsRequest = (input: unknown, extra: Record<string, unknown> = {}) => ({
  model: EMBEDDING_MODEL,
  input,
  dimensions: 4,
  ...extra,
});

/** A vector as OpenAI's base64: four little-endian bytes per float32 (written here, not imported from server/verify). */
function float32Base64(values: readonly number[]): string {
  const bytes = new Uint8Array(values.length * 4);
  const view = new DataView(bytes.buffer);
  values.forEach((value, i) => view.setFloat32(i * 4, value, true));
  return Buffer.from(bytes).toString("base64");
}

/** An embeddings response body: each vector as the JSON numbers given, or as base64 of their float32 values. */
function embeddingsResponse(
  vectors: readonly (readonly number[])[],
  encoding: "float" | "base64",
  promptTokens: number,
) {
  return {
    object: "list",
    data: vectors.map((vector, index) => ({
      object: "embedding",
      index,
      embedding: encoding === "base64" ? float32Base64(vector) : vector,
    })),
    model: EMBEDDING_MODEL,
    usage: { prompt_tokens: promptTokens, total_tokens: promptTokens },
  };
}

/** Every vector, in folder-name order of intent: valid ones first, then one per check, reason and error code. */
function vectorCases(): VectorCase[] {
  const solana = solanaReceipt(1);
  const base = baseReceipt(2);
  const prepaid = prepaidReceipt(3);
  const tinyCost = signReceipt(
    buildReceipt(
      facts(60, { prompt: { text: "What is the capital of France?" }, responseText: "Paris.", costUnits: 9n }),
    ),
    OPERATOR,
  );
  const odd = signReceipt(
    buildReceipt(facts(37, { prompt: { messages: ODD_MESSAGES }, responseText: ODD_ANSWER })),
    OPERATOR,
  );
  const responsesTools = signReceipt(
    buildReceipt(
      facts(61, {
        model: "openai/gpt-4o-mini",
        upstream: "openrouter",
        prompt: { messages: RESPONSES_TOOLS_MESSAGES },
        responseText: "Oslo 12 °C, Bergen 9 °C.",
      }),
    ),
    OPERATOR,
  );
  const responses = signReceipt(
    buildReceipt(facts(36, { payment: solanaPayment, prompt: { messages: RESPONSES_MESSAGES } })),
    OPERATOR,
  );
  const legacy = resigned(prepaidReceipt(4), (r) => ({ ...r, prompt_hash: legacyPromptHashOfMessages(MESSAGES) }));
  /** A prepaid embeddings receipt whose hashes are SHA-256 of the hand-written canonical texts. */
  const embeddingsReceipt = (i: number, promptCanonical: string, vectorsCanonical: string) =>
    resigned(
      signReceipt(buildReceipt(facts(i, { upstream: "openrouter", model: EMBEDDING_MODEL, costUnits: 1n })), OPERATOR),
      (r) => ({
        ...r,
        prompt_hash: bytesToHex(sha256(utf8ToBytes(promptCanonical))),
        response_hash: bytesToHex(sha256(utf8ToBytes(vectorsCanonical))),
      }),
    );
  const embeddingsText = embeddingsReceipt(43, EMBEDDING_TEXT_CANONICAL, EMBEDDING_ONE_VECTOR_CANONICAL);
  const embeddingsTexts = embeddingsReceipt(44, EMBEDDING_TEXTS_CANONICAL, EMBEDDING_VECTORS_CANONICAL);
  const embeddingsTokens = embeddingsReceipt(45, EMBEDDING_TOKENS_CANONICAL, EMBEDDING_ONE_VECTOR_CANONICAL);
  /** A prepaid receipt signed by the retired key; `edit` changes its fields before signing. */
  const retiredKeyReceipt = (
    i: number,
    edit: (unsigned: Record<string, unknown>) => Record<string, unknown> = (r) => r,
  ) => {
    const unsigned = edit({
      ...buildReceipt(facts(i, { prompt: { text: prepaidRequest.prompt }, responseText: "Paris." })),
    });
    return { ...unsigned, service_signature: signDetached(receiptSigningBytes(unsigned), RETIRED_OPERATOR) };
  };
  const rotatedKeys: RecordedExchange[] = [
    {
      request: { method: "GET", url: `${OPERATOR_ENDPOINT}/api/v1/operator-key` },
      response: { status: 200, body: ROTATED_KEY_RESOURCE },
    },
  ];
  const FROM_ENDPOINT: VectorRun = { offline: false, operator_key: "endpoint", endpoint: OPERATOR_ENDPOINT };
  const otherKeyReceipt = signReceipt(
    buildReceipt(facts(9, { prompt: { text: prepaidRequest.prompt }, responseText: "Paris." })),
    OTHER_OPERATOR,
  );
  const withPayment = (i: number, edit: (payment: Record<string, unknown>) => unknown) =>
    resigned(solanaReceipt(i), (r) => ({ ...r, payment: edit({ ...(r.payment as Record<string, unknown>) }) }));
  const withBasePayment = (i: number, edit: (payment: Record<string, unknown>) => unknown) =>
    resigned(baseReceipt(i), (r) => ({ ...r, payment: edit({ ...(r.payment as Record<string, unknown>) }) }));
  const verdictFor = (receipt: Receipt, checks: Record<string, boolean>, i: number) =>
    signDocument(
      {
        v: 1,
        ok: Object.values(checks).every(Boolean),
        checks,
        receipt_signature: receipt.service_signature,
        verified_at: BASE_TIMESTAMP_MS + i * 1_000 + 500,
        verifier_pubkey: VERIFIER.publicKeyBase58,
      },
      "verifier_signature",
      VERIFIER,
    );
  const hashesOf = (receipt: object) => {
    const fields = receipt as Record<string, unknown>;
    return {
      prompt_hash_expected: fields.prompt_hash as string,
      response_hash_expected: fields.response_hash as string,
      canonical_payload_hex: bytesToHex(receiptSigningBytes(fields)),
    };
  };
  const valid = (notes: string, receipt: object): GeneratedExpected => ({
    kind: "verify",
    notes,
    run: PINNED_ONLINE,
    checks: ALL_TRUE,
    ok: true,
    ...hashesOf(receipt),
  });
  const failing = (
    notes: string,
    outcome: Pick<GeneratedExpected, "checks" | "ok" | "reasons">,
    run: VectorRun = PINNED_ONLINE,
  ): GeneratedExpected => ({
    kind: "verify",
    notes,
    run,
    ...outcome,
  });
  const throws = (
    notes: string,
    error: NonNullable<GeneratedExpected["error"]>,
    run: VectorRun = PINNED_ONLINE,
  ): GeneratedExpected => ({
    kind: "verify",
    notes,
    run,
    error,
  });
  const prepaidCase = (
    name: string,
    receipt: unknown,
    expected: GeneratedExpected,
    extra: Partial<VectorCase> = {},
  ): VectorCase => ({
    name,
    receipt,
    request: prepaidRequest,
    response: prepaidResponse,
    expected,
    ...extra,
  });
  const solanaCase = (
    name: string,
    receipt: unknown,
    http: RecordedExchange[] | undefined,
    expected: GeneratedExpected,
  ): VectorCase => ({
    name,
    receipt,
    request: solanaRequest,
    response: chatCompletion(ANSWER),
    ...(http ? { http } : {}),
    expected,
  });
  const baseCase = (
    name: string,
    receipt: unknown,
    http: RecordedExchange[] | undefined,
    expected: GeneratedExpected,
  ): VectorCase => ({
    name,
    receipt,
    request: baseRequest,
    response: streamedCompletion(["Hel", "lo!"]),
    ...(http ? { http } : {}),
    expected,
  });

  return [
    // Valid receipts.
    solanaCase(
      "solana-paid-001",
      solana,
      [getTransaction(jsonRpcAnswer(solanaTransaction()))],
      valid(
        "x402 receipt paid on Solana devnet; the recorded getTransaction shows the agent's transfer of exactly 0.01 USDC to pay_to.",
        solana,
      ),
    ),
    baseCase(
      "base-paid-001",
      base,
      [getEvmReceipt(evmTransactionReceipt())],
      valid(
        "x402 receipt paid on Base Sepolia, answer streamed: the response hash covers the concatenated delta.content. The recorded receipt's tx.from is the relayer; the Transfer log names the agent.",
        base,
      ),
    ),
    {
      name: "responses-paid-001",
      receipt: responses,
      request: responsesRequest,
      response: responsesObject(ANSWER),
      http: [getTransaction(jsonRpcAnswer(solanaTransaction()))],
      expected: valid(
        "x402 receipt of a Responses API call (POST /api/v1/responses) paid on Solana devnet. The prompt is the Responses request body: its prompt hash covers the messages it maps to (instructions as a system message, input_text parts as chat text parts). The response is the Responses object: its hash covers the output_text.",
        responses,
      ),
    },
    prepaidCase(
      "responses-tools-001",
      responsesTools,
      valid(
        "Prepaid receipt of a Responses API call that passes back an earlier answer's two function calls and their outputs: its prompt hash covers the messages they map to (one assistant message with tool_calls, a tool message per output), not the tools; its response hash covers the answer's text.",
        responsesTools,
      ),
      { request: responsesToolsRequest, response: responsesObject("Oslo 12 °C, Bergen 9 °C.") },
    ),
    {
      name: "responses-streamed-001",
      receipt: responses,
      request: responsesRequest,
      response: responsesEvents(splitInThree(ANSWER)),
      http: [getTransaction(jsonRpcAnswer(solanaTransaction()))],
      expected: valid(
        "The same Responses API receipt, its answer given as the stream's events (an array of objects with a `type`, as the SSE `data` lines carry them): the response hash covers the concatenated `delta` of the `response.output_text.delta` events, the same text as the Responses object's output_text.",
        responses,
      ),
    },
    prepaidCase(
      "prepaid-001",
      prepaid,
      valid(
        "Prepaid receipt (no payment block): checks 4 and 5 are vacuously true and no network is touched. The prompt is a raw string.",
        prepaid,
      ),
    ),
    prepaidCase(
      "prepaid-tiny-cost-001",
      tinyCost,
      valid(
        "Prepaid receipt whose cost_usdc is 0.000009: canonical JSON writes it as JavaScript's Number::toString does (0.000009), where Python's json.dumps would write 9e-06 and fail the signature.",
        tinyCost,
      ),
    ),
    {
      name: "prepaid-odd-content-001",
      receipt: odd,
      request: { messages: ODD_MESSAGES },
      response: chatCompletion(ODD_ANSWER),
      expected: {
        ...valid(
          "Prepaid receipt over odd content. The prompt holds U+0000, a lone surrogate, U+2028 and a BOM; its hash is over canonical JSON with strings as JSON.stringify writes them (U+0000 as \\u0000, a lone surrogate as \\ud800, U+2028 and the BOM raw). The answer holds U+0000 and U+FFFD (the service sends a lone surrogate a model answered as U+FFFD), U+2028, U+2029, a BOM and text that looks like an escape; its hash is over its UTF-8 bytes.",
          odd,
        ),
        prompt_hash_expected: bytesToHex(sha256(utf8ToBytes(ODD_PROMPT_CANONICAL))),
        response_hash_expected: bytesToHex(sha256(utf8ToBytes(ODD_ANSWER))),
      },
    },
    {
      name: "prepaid-legacy-prompt-001",
      receipt: legacy,
      request: { messages: MESSAGES },
      response: prepaidResponse,
      expected: {
        ...valid(
          "Prepaid receipt whose prompt_hash is the legacy form: SHA-256 of the `role:content` lines joined by a newline.",
          legacy,
        ),
        prompt_hash_expected: legacyPromptHashOfMessages(MESSAGES)!,
      },
    },
    {
      name: "embeddings-string-input-001",
      receipt: embeddingsText,
      request: embeddingsRequest(EMBEDDING_TEXT),
      response: embeddingsResponse(EMBEDDING_VECTORS.slice(0, 1), "float", 10),
      expected: valid(
        "Prepaid receipt of an embeddings call with one text as input. Its prompt hash covers the input as a list of that one text; its response hash covers the vector as float32 values (0.1 and 1e-7 as the float32 they round to), whatever decimals the answer wrote.",
        embeddingsText,
      ),
    },
    {
      name: "embeddings-array-input-001",
      receipt: embeddingsTexts,
      request: embeddingsRequest(EMBEDDING_TEXTS),
      response: embeddingsResponse(EMBEDDING_VECTORS, "float", 12),
      expected: valid(
        "Prepaid receipt of an embeddings call with two texts as input, answered as float arrays (encoding_format float, the default). The prompt hash covers the texts as sent, in order; the response hash the two vectors in index order.",
        embeddingsTexts,
      ),
    },
    {
      name: "embeddings-array-input-base64-001",
      receipt: embeddingsTexts,
      request: embeddingsRequest(EMBEDDING_TEXTS, { encoding_format: "base64" }),
      response: embeddingsResponse(EMBEDDING_VECTORS, "base64", 12),
      expected: valid(
        "The receipt of embeddings-array-input-001, with the same answer written as base64 (encoding_format base64: four little-endian bytes per float32; the first vector's last value is -0, which the hash writes as 0, as JSON does). The encoding is not covered by either hash, so one receipt verifies both answers.",
        embeddingsTexts,
      ),
    },
    {
      name: "embeddings-token-input-001",
      receipt: embeddingsTokens,
      request: embeddingsRequest(EMBEDDING_TOKENS, { encoding_format: "base64" }),
      response: embeddingsResponse(EMBEDDING_VECTORS.slice(0, 1), "base64", 5),
      expected: valid(
        "Prepaid receipt of an embeddings call with one list of token ids as input: its prompt hash covers it as a list of that one list (numbers, never texts).",
        embeddingsTokens,
      ),
    },
    {
      name: "embeddings-tampered-001",
      receipt: embeddingsTexts,
      request: embeddingsRequest(EMBEDDING_TEXTS),
      response: embeddingsResponse(
        [EMBEDDING_VECTORS[0]!, [0.123456789, NEXT_FLOAT32_AFTER_QUARTER, -1, 3.4028234663852886e38]],
        "float",
        12,
      ),
      expected: failing(
        "The receipt of embeddings-array-input-001 with its answer tampered: one value moved by one float32 step (0.25 to the next float32 above it).",
        {
          checks: { ...ALL_TRUE, response_hash_ok: false },
          ok: false,
          reasons: { response_hash_ok: "response hash differs from the receipt's response_hash" },
        },
      ),
    },
    prepaidCase(
      "operator-key-from-endpoint-001",
      prepaidReceipt(5),
      {
        ...valid(
          "The operator key is fetched from {endpoint}/api/v1/operator-key instead of being pinned.",
          prepaidReceipt(5),
        ),
        run: { offline: false, operator_key: "endpoint", endpoint: OPERATOR_ENDPOINT },
      },
      {
        http: [
          {
            request: { method: "GET", url: `${OPERATOR_ENDPOINT}/api/v1/operator-key` },
            response: {
              status: 200,
              body: { pubkey: OPERATOR.publicKeyBase58, algorithm: "ed25519", encoding: "base58" },
            },
          },
        ],
      },
    ),
    prepaidCase(
      "parse-base64-header-001",
      null,
      {
        ...valid(
          "The receipt as the X-Service-Receipt header carries it: base64 of the receipt JSON.",
          prepaidReceipt(6),
        ),
        kind: "parse",
        parse: { ok: true },
      },
      {
        receiptText: `${encodeReceiptHeader(prepaidReceipt(6))}\n`,
      },
    ),

    // Check 1: the prompt hash.
    prepaidCase(
      "prompt-hash-mismatch-001",
      prepaidReceipt(7),
      failing("The prompt given is not the one the receipt covers.", {
        checks: { ...ALL_TRUE, prompt_hash_ok: false },
        ok: false,
        reasons: { prompt_hash_ok: "prompt hash differs from the receipt's prompt_hash" },
      }),
      {
        request: { prompt: "What is the capital of Spain?" },
      },
    ),
    prepaidCase(
      "prompt-unrecognised-001",
      prepaidReceipt(7),
      failing(
        "The prompt is in no form the verifier reads (messages, a request body with messages, prompt or a Responses input, or text).",
        {
          checks: { ...ALL_TRUE, prompt_hash_ok: false },
          ok: false,
          reasons: { prompt_hash_ok: "no prompt given in a recognised form (messages, request body, or text)" },
        },
      ),
      {
        request: { question: "What is the capital of France?" },
      },
    ),
    // Check 2: the response hash.
    prepaidCase(
      "response-hash-mismatch-001",
      prepaidReceipt(8),
      failing("The response given is not the one the receipt covers.", {
        checks: { ...ALL_TRUE, response_hash_ok: false },
        ok: false,
        reasons: { response_hash_ok: "response hash differs from the receipt's response_hash" },
      }),
      {
        response: { result: "Madrid." },
      },
    ),
    prepaidCase(
      "response-unrecognised-001",
      prepaidReceipt(8),
      failing("The response holds no text in a form the verifier reads.", {
        checks: { ...ALL_TRUE, response_hash_ok: false },
        ok: false,
        reasons: { response_hash_ok: `no response found in a recognised form (${RESPONSE_FORMS})` },
      }),
      {
        response: { output: "Paris." },
      },
    ),
    // Check 3: the operator signature.
    prepaidCase(
      "signature-other-key-001",
      otherKeyReceipt,
      failing("Signed by another key than the operator key given.", {
        checks: { ...ALL_TRUE, service_signature_ok: false },
        ok: false,
        reasons: {
          service_signature_ok: `signature is not valid for operator key ${operatorShort(OPERATOR.publicKeyBase58)}`,
        },
      }),
    ),

    // Check 3 across a key rotation: the endpoint publishes the retired key with its retirement (2025-11-13T02:14:00.500Z).
    prepaidCase(
      "signature-retired-key-001",
      retiredKeyReceipt(38),
      {
        ...valid(
          "Signed by a retired operator key, timestamped (2025-11-13T02:13:58.000Z) before its retirement: the endpoint lists the key as retired at 2025-11-13T02:14:00.500Z, so the signature counts.",
          retiredKeyReceipt(38),
        ),
        run: FROM_ENDPOINT,
      },
      { http: rotatedKeys },
    ),
    prepaidCase(
      "signature-retired-key-after-retirement-001",
      retiredKeyReceipt(41),
      failing(
        "Signed by a retired operator key, timestamped (2025-11-13T02:14:01.000Z) after its retirement at 2025-11-13T02:14:00.500Z: a retired key vouches for nothing from then on.",
        {
          checks: { ...ALL_TRUE, service_signature_ok: false },
          ok: false,
          reasons: {
            service_signature_ok: `signature made by operator key ${operatorShort(RETIRED_OPERATOR.publicKeyBase58)}, retired at 2025-11-13T02:14:00.500Z: the receipt's timestamp 2025-11-13T02:14:01.000Z is not before its retirement`,
          },
        },
        FROM_ENDPOINT,
      ),
      { http: rotatedKeys },
    ),
    prepaidCase(
      "signature-retired-key-no-timestamp-001",
      retiredKeyReceipt(42, ({ timestamp: _omitted, ...rest }) => rest),
      failing(
        "Signed by a retired operator key, but without a timestamp: nothing places the signature before the key's retirement.",
        {
          checks: { ...ALL_TRUE, service_signature_ok: false },
          ok: false,
          reasons: {
            service_signature_ok: `signature made by operator key ${operatorShort(RETIRED_OPERATOR.publicKeyBase58)}, retired at 2025-11-13T02:14:00.500Z: the receipt has no timestamp to show it was signed before then`,
          },
        },
        FROM_ENDPOINT,
      ),
      { http: rotatedKeys },
    ),
    prepaidCase(
      "signature-rotated-other-key-001",
      otherKeyReceipt,
      failing(
        "Signed by a key that is neither the operator's current key nor one it retired.",
        {
          checks: { ...ALL_TRUE, service_signature_ok: false },
          ok: false,
          reasons: {
            service_signature_ok: `signature is not valid for operator key ${operatorShort(OPERATOR.publicKeyBase58)} nor for any of its retired keys`,
          },
        },
        FROM_ENDPOINT,
      ),
      { http: rotatedKeys },
    ),

    // Checks 4 and 5, before any chain call.
    solanaCase(
      "payment-offline-001",
      solanaReceipt(10),
      undefined,
      failing(
        "A paid receipt verified offline: both payment checks are false, not skipped.",
        paymentFails("not checked: offline mode"),
        { offline: true, operator_key: "pinned" },
      ),
    ),
    solanaCase(
      "payment-malformed-001",
      withPayment(11, () => "x402"),
      undefined,
      failing("The payment block is not an object.", paymentFails("payment block is malformed")),
    ),
    solanaCase(
      "payment-incomplete-001",
      withPayment(12, ({ pay_to: _omitted, ...rest }) => rest),
      undefined,
      failing(
        "The payment block has no pay_to.",
        paymentFails("payment block lacks tx_signature, pay_to or network, or the receipt lacks agent_pubkey"),
      ),
    ),
    solanaCase(
      "payment-amount-invalid-001",
      withPayment(13, (p) => ({ ...p, amount_usdc: 0 })),
      undefined,
      failing("A zero payment amount.", paymentFails("payment.amount_usdc is not a positive USDC amount")),
    ),
    solanaCase(
      "payment-network-unsupported-001",
      withPayment(14, (p) => ({ ...p, network: "solana:unknown" })),
      undefined,
      failing("A network the verifier does not know.", paymentFails("unsupported payment network solana:unknown")),
    ),

    // Checks 4 and 5 on Solana.
    solanaCase(
      "solana-bad-tx-signature-001",
      withPayment(15, (p) => ({ ...p, tx_signature: "not-a-solana-signature" })),
      undefined,
      failing(
        "tx_signature is not base58 of 64 bytes: no RPC call is made.",
        paymentFails("tx_signature is not a base58 Solana signature"),
      ),
    ),
    solanaCase(
      "solana-tx-not-found-001",
      solanaReceipt(16),
      [getTransaction(jsonRpcAnswer(null))],
      failing(
        "The node does not know the transaction.",
        paymentFails(`transaction ${solShort(SOL_TX)} not found at confirmed commitment`),
      ),
    ),
    solanaCase(
      "solana-tx-without-meta-001",
      solanaReceipt(17),
      [getTransaction(jsonRpcAnswer(solanaTransaction({ withoutMeta: true })))],
      failing(
        "The node answers without meta (no balances to read).",
        paymentFails("RPC returned a transaction without meta"),
      ),
    ),
    solanaCase(
      "solana-tx-failed-001",
      solanaReceipt(18),
      [getTransaction(jsonRpcAnswer(solanaTransaction({ err: { InstructionError: [2, { Custom: 1 }] } })))],
      failing("The transaction failed on chain.", paymentFails(`transaction ${solShort(SOL_TX)} failed on chain`)),
    ),
    solanaCase(
      "solana-wrong-mint-001",
      solanaReceipt(19),
      [getTransaction(jsonRpcAnswer(solanaTransaction({ mint: "So11111111111111111111111111111111111111112" })))],
      failing("The transfer moved another token than the network's USDC mint.", {
        checks: { ...ALL_TRUE, payment_on_chain_ok: false, payer_matches: false },
        ok: false,
        reasons: {
          payment_on_chain_ok: `no transfer of exactly 0.01 USDC (mint ${solShort(DEVNET_USDC_MINT)}) to ${SOL_PAY_TO} in ${SOL_WHERE}`,
          payer_matches: `${SOL_AGENT} signed but no USDC account it owns paid 0.01 USDC`,
        },
      }),
    ),
    solanaCase(
      "solana-agent-not-signer-001",
      solanaReceipt(20),
      [getTransaction(jsonRpcAnswer(solanaTransaction({ agentSigns: false })))],
      failing("The money arrived, but the agent did not sign the transaction.", {
        checks: { ...ALL_TRUE, payer_matches: false },
        ok: false,
        reasons: { payer_matches: `${SOL_AGENT} did not sign ${SOL_WHERE}` },
      }),
    ),

    // Checks 4 and 5 on Base.
    baseCase(
      "base-bad-tx-hash-001",
      withBasePayment(21, (p) => ({ ...p, tx_signature: SOL_TX })),
      undefined,
      failing(
        "A Solana signature on an EVM network: no RPC call is made.",
        paymentFails("tx_signature is not a 0x-prefixed 32-byte EVM transaction hash"),
      ),
    ),
    baseCase(
      "base-bad-pay-to-001",
      withBasePayment(22, (p) => ({ ...p, pay_to: SOL_PAY_TO })),
      undefined,
      failing("pay_to is not an EVM address.", paymentFails("pay_to is not a 0x EVM address")),
    ),
    baseCase(
      "base-bad-agent-001",
      baseReceipt(23, SOL_AGENT),
      undefined,
      failing("agent_pubkey is a Solana key on an EVM network.", paymentFails("agent_pubkey is not a 0x EVM address")),
    ),
    baseCase(
      "base-tx-not-found-001",
      baseReceipt(24),
      [getEvmReceipt(null)],
      failing("The node does not know the transaction.", paymentFails(`transaction ${evmShort(EVM_TX)} not found`)),
    ),
    baseCase(
      "base-malformed-receipt-001",
      baseReceipt(25),
      [getEvmReceipt("0x1")],
      failing(
        "The node answers with something that is not a transaction receipt.",
        paymentFails("RPC returned a malformed transaction receipt"),
      ),
    ),
    baseCase(
      "base-tx-reverted-001",
      baseReceipt(26),
      [getEvmReceipt(evmTransactionReceipt({ status: "0x0" }))],
      failing("The transaction reverted.", paymentFails(`transaction ${evmShort(EVM_TX)} failed on chain`)),
    ),
    baseCase(
      "base-wrong-token-001",
      baseReceipt(27),
      [getEvmReceipt(evmTransactionReceipt({ contract: evmAddressOf("another token contract") }))],
      failing("The Transfer log comes from another contract than the network's USDC.", {
        checks: { ...ALL_TRUE, payment_on_chain_ok: false, payer_matches: false },
        ok: false,
        reasons: {
          payment_on_chain_ok: `no USDC Transfer (contract ${evmShort(BASE_SEPOLIA_USDC)}) of exactly 0.001 USDC to ${EVM_PAY_TO} in ${EVM_WHERE}`,
          payer_matches: `no transfer from ${EVM_AGENT} in ${EVM_WHERE}`,
        },
      }),
    ),
    baseCase(
      "base-payer-not-agent-001",
      baseReceipt(28),
      [getEvmReceipt(evmTransactionReceipt({ from: EVM_RELAYER }))],
      failing("The USDC arrived, but from the relayer, not the agent.", {
        checks: { ...ALL_TRUE, payer_matches: false },
        ok: false,
        reasons: { payer_matches: `the transfer to ${EVM_PAY_TO} came from ${EVM_RELAYER}, not ${EVM_AGENT}` },
      }),
    ),

    // Misuse: VerifyInputError.
    prepaidCase(
      "input-receipt-not-object-001",
      ["not", "a", "receipt"],
      throws("The receipt is a JSON array.", { name: "VerifyInputError", message: "receipt must be a JSON object" }),
    ),
    prepaidCase(
      "input-operator-key-malformed-001",
      prepaidReceipt(29),
      throws("The pinned operator key is not base58 of 32 bytes.", {
        name: "VerifyInputError",
        message: "operatorKey is not a base58 32-byte public key",
      }),
      { operatorKey: "not-a-key" },
    ),
    prepaidCase(
      "input-no-operator-key-001",
      prepaidReceipt(30),
      throws(
        "Neither a pinned key nor an endpoint.",
        { name: "VerifyInputError", message: "either operatorKey or endpoint is required" },
        { offline: false, operator_key: "none" },
      ),
    ),

    // No verdict reached: VerifierFetchError, one per reason.
    prepaidCase(
      "fetch-operator-key-unavailable-001",
      prepaidReceipt(31),
      throws(
        "The endpoint answers 404 for the operator key: final, no retry.",
        { name: "VerifierFetchError", reason: "operator_key_unavailable" },
        { offline: false, operator_key: "endpoint", endpoint: OPERATOR_ENDPOINT },
      ),
      {
        http: [
          {
            request: { method: "GET", url: `${OPERATOR_ENDPOINT}/api/v1/operator-key` },
            response: {
              status: 404,
              body: {
                error: {
                  message: "no such API route; the API is described at /api/v1/openapi.json",
                  type: "invalid_request_error",
                  param: null,
                  code: "not_found",
                },
              },
            },
          },
        ],
      },
    ),
    solanaCase(
      "fetch-rpc-unreachable-001",
      solanaReceipt(32),
      [getTransaction({ fail: "network" }), getTransaction({ fail: "network" })],
      throws("The RPC cannot be reached, twice (one retry).", {
        name: "VerifierFetchError",
        reason: "rpc_unreachable",
      }),
    ),
    solanaCase(
      "fetch-rpc-timeout-001",
      solanaReceipt(33),
      [getTransaction({ fail: "hang" }), getTransaction({ fail: "hang" })],
      throws(
        "The RPC never answers, twice (one retry).",
        { name: "VerifierFetchError", reason: "rpc_timeout" },
        { ...PINNED_ONLINE, attempt_timeout_ms: 50 },
      ),
    ),
    solanaCase(
      "fetch-rpc-error-001",
      solanaReceipt(34),
      [
        getTransaction({
          status: 200,
          body: { jsonrpc: "2.0", id: 1, error: { code: -32600, message: "Invalid request" } },
        }),
      ],
      throws("The RPC answers with a JSON-RPC error object.", { name: "VerifierFetchError", reason: "rpc_error" }),
    ),
    solanaCase(
      "fetch-refused-001",
      solanaReceipt(35),
      [getTransaction({ fail: "refused" })],
      throws("The caller's guarded fetch refuses the RPC address: passed through, no retry.", {
        name: "VerifierFetchError",
        reason: "fetch_refused",
      }),
    ),

    // Reading what a person pasted (parseReceiptText).
    prepaidCase(
      "parse-empty-001",
      null,
      { kind: "parse", notes: "Nothing but whitespace.", parse: { ok: false, reason: "empty" } },
      { receiptText: "  \n" },
    ),
    prepaidCase(
      "parse-not-json-or-base64-001",
      null,
      { kind: "parse", notes: "Neither JSON nor base64 of JSON.", parse: { ok: false, reason: "not_json_or_base64" } },
      { receiptText: "this is not a receipt!\n" },
    ),
    prepaidCase(
      "parse-not-an-object-001",
      null,
      { kind: "parse", notes: "JSON, but an array.", parse: { ok: false, reason: "not_an_object" } },
      { receiptText: "[1,2,3]\n" },
    ),

    // The hosted verdict's signature (verifyVerdictSignature) and its binding to the receipt.
    solanaCase("verdict-001", solana, undefined, {
      kind: "verdict",
      notes: "A hosted verdict for solana-paid-001: signed by the verifier key, bound to this receipt's signature.",
      verdict_signature_ok: true,
      receipt_signature_matches: true,
    }),
    prepaidCase("verdict-tampered-001", prepaidReceipt(7), {
      kind: "verdict",
      notes: "A verdict whose prompt_hash_ok and ok were set to true after signing.",
      verdict_signature_ok: false,
      receipt_signature_matches: true,
    }),
    prepaidCase("verdict-other-receipt-001", prepaid, {
      kind: "verdict",
      notes: "A valid verdict replayed for another receipt: its receipt_signature is not this receipt's.",
      verdict_signature_ok: true,
      receipt_signature_matches: false,
    }),
  ].map((c) => {
    if (c.name === "verdict-001") return { ...c, verdict: verdictFor(solana, ALL_TRUE, 1) };
    if (c.name === "verdict-tampered-001") {
      const signed = verdictFor(prepaidReceipt(7), { ...ALL_TRUE, prompt_hash_ok: false }, 7);
      return { ...c, verdict: { ...signed, ok: true, checks: ALL_TRUE } };
    }
    if (c.name === "verdict-other-receipt-001") return { ...c, verdict: verdictFor(prepaidReceipt(5), ALL_TRUE, 5) };
    return c;
  });
}

const README = `# Signet's generated receipt vectors

Written by \`npm run vectors\` (bin/dev/make-vectors.ts, from devtools/vectors/build-vectors.ts): do not edit by hand. Fixed keys, fixed
timestamps and hand-written chain recordings make every run byte-identical, and a unit test checks that.

Each folder follows the public sir-v2 layout (receipt.json, request.json, response.json, operator-pubkey.txt,
expected.json), plus:
- \`receipt.txt\` instead of \`receipt.json\` for the parse vectors: the text a person pasted;
- \`recorded-http.json\`: the requests the verifier must make, in order, and the answers it gets (chain RPC and the
  operator-key endpoint). A vector without it must not touch the network;
- \`verdict.json\` and \`verifier-pubkey.txt\` for the hosted-verdict vectors.

\`expected.json\` says how to run the vector (\`run\`) and what must come out: the five checks, \`ok\`, and the exact
reason sentence of every failing check; or the error thrown (\`VerifyInputError\` message, \`VerifierFetchError\`
reason); or the parse result; or the verdict signature result. Operator key: ${OPERATOR.publicKeyBase58}.

The \`signature-retired-key-*\` and \`signature-rotated-*\` vectors fetch the operator key resource after a rotation:
it lists ${RETIRED_OPERATOR.publicKeyBase58} as retired at ${RETIRED_AT_MS} (Unix ms).
`;

const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

/** Every generated file, by path relative to the vectors folder, with its exact content. */
export function buildVectors(): Map<string, string> {
  const files = new Map<string, string>([["README.md", README]]);
  for (const c of vectorCases()) {
    const put = (file: string, content: string) => files.set(`${c.name}/${file}`, content);
    if (c.receiptText !== undefined) put("receipt.txt", c.receiptText);
    else put("receipt.json", json(c.receipt));
    put("request.json", json(c.request));
    put("response.json", json(c.response));
    put("operator-pubkey.txt", `${c.operatorKey ?? OPERATOR.publicKeyBase58}\n`);
    put("expected.json", json(c.expected));
    if (c.http) put("recorded-http.json", json(c.http));
    if (c.verdict) {
      put("verdict.json", json(c.verdict));
      put("verifier-pubkey.txt", `${VERIFIER.publicKeyBase58}\n`);
    }
  }
  return files;
}
