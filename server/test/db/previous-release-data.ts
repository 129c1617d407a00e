// The last release's database, as that release left it: a fresh PostgreSQL database migrated with the last release's
// migration set (recorded in _prisma_migrations exactly as its migrator recorded them), then filled with raw SQL
// written against that schema (never today's Prisma client). The payments that resume after an upgrade are real: their
// headers are signed by funded agents of the local chain, and every transfer an old row says landed did land.
// request-digest.ts, idempotency-key.ts, chat-request-schema.ts and server/receipts are unchanged since that release, so
// the digests, keys and receipts computed here are the ones it wrote.
import { randomBytes, randomUUID } from "node:crypto";
import pg from "pg";
import { decodePaymentSignatureHeader } from "@x402/core/http";
import type { PaymentPayload, PaymentRequired } from "@x402/core/types";
import { getSignatureFromTransaction, getTransactionDecoder, type KeyPairSigner } from "@solana/kit";
import { POST as topUpRoute } from "@/app/api/v1/credits/route";
import { chatRequestSchema } from "../../schemas/chat-request-schema";
import type { Facilitator } from "../../facilitator/create-facilitator";
import { generateKeypair } from "../../keys/parse-secret-key";
import { signEd25519 } from "../../keys/node-ed25519";
import { laneSource } from "../../payments/settle-payment";
import { chatRequestDigest, topUpRequestDigest } from "../../x402/request-digest";
import { buildReceipt } from "../../receipts/build-receipt";
import type { Receipt } from "../../receipts/receipt-types";
import { signReceipt } from "../../receipts/sign-receipt";
import { signCheckpoint } from "../../transparency/publish-log";
import { witnessVerifierKey } from "../../transparency/witness-log";
import { answerLocally } from "../../upstream/local-model";
import {
  cosignatureMessage,
  cosignaturePayload,
  EMPTY_ROOT,
  encodeReceiptEntry,
  formatSignatureLine,
  leafHash,
  parseSignedNote,
  parseVerifierKey,
  rootOfLeaves,
} from "../../verify";
import { CREATE_MIGRATIONS_TABLE, readMigrations } from "../../db/apply-migrations";
import { settlementExpiry, solanaSettlementWire } from "../../x402/find-landed-settlement";
import { paymentIdempotencyKey } from "../../x402/idempotency-key";
import { landDirectly } from "../support/land-directly";
import { buildPaymentHeader, challengeOf, type PaidStack } from "../support/paid-stack";
import { logIdentity, operatorKeypair, TEST_ADMIN_URL } from "../support/env";

/** The price of a paid chat call in the fill, and the service's flat price (X402_FLAT_PRICE_USDC) after it. */
export const PRICE_UNITS = 1_000n;
/** A top-up's amount in the fill: 0.002 USDC. */
export const TOP_UP_UNITS = 2_000n;
/** A prepaid call's hold in the fill. */
const PREPAID_HOLD_UNITS = 500n;

/**
 * Each old payment, named by the state the last release left it in and why: every state the old schema allowed
 * (20261126130000_payment_states), with the pending settlements real on chain.
 */
export const OLD_PAYMENTS = {
  served: {
    purpose: "chat",
    status: "served",
    landed: true,
    why: "served, its answer and receipt kept for the payer's repeat",
  },
  topup_served: {
    purpose: "topup",
    status: "served",
    landed: true,
    why: "a top-up credited (the last release kept no top-up answer)",
  },
  pending_landed: {
    purpose: "chat",
    status: "pending",
    landed: true,
    why: "broadcast, landed after the settle wait, then the server restarted",
  },
  pending_dropped: {
    purpose: "chat",
    status: "pending",
    landed: false,
    why: "broadcast, dropped by the chain, its blockhash still valid",
  },
  pending_expired: {
    purpose: "chat",
    status: "pending",
    landed: false,
    why: "broadcast, dropped, its blockhash expired since",
  },
  topup_pending_landed: {
    purpose: "topup",
    status: "pending",
    landed: true,
    why: "a top-up broadcast that landed after the wait",
  },
  claimed_landed: {
    purpose: "chat",
    status: "claimed",
    landed: true,
    why: "its server sent it and died before recording it",
  },
  claimed_unsent: { purpose: "chat", status: "claimed", landed: false, why: "its server died before sending it" },
  settled: {
    purpose: "chat",
    status: "settled",
    landed: true,
    why: "credited with its hold; its server died before serving",
  },
  serving: { purpose: "chat", status: "serving", landed: true, why: "a retry was serving it when its server died" },
  unserved: {
    purpose: "chat",
    status: "unserved",
    landed: true,
    why: "the upstream failed; its hold waits for the retry",
  },
  failed: {
    purpose: "chat",
    status: "failed",
    landed: false,
    why: "refused before anything moved (the payer's lane was busy)",
  },
  expired: { purpose: "chat", status: "expired", landed: false, why: "sent, and its blockhash passed unseen" },
} as const satisfies Record<string, { purpose: "chat" | "topup"; status: string; landed: boolean; why: string }>;

export type OldCase = keyof typeof OLD_PAYMENTS;

export interface OldPayment {
  id: string;
  agent: KeyPairSigner;
  /** The header the client sent, and sends again on its retry. */
  header: string;
  /** The request the payment paid for: a chat body, or a top-up body. */
  body: Record<string, unknown>;
  /** The settlement's transaction (the fee payer's signature), whether it was ever sent or not. */
  transaction: string;
}

/** A call served before the upgrade, with what a verifier needs. */
export interface OldReceipt {
  receipt: Receipt;
  prompt: unknown;
  response: unknown;
}

export interface PreviousRelease {
  payments: Record<OldCase, OldPayment>;
  /** The prepaid agent (the payer of the old served top-up). */
  prepaidAgent: string;
  /** The grant agent. */
  grantAgent: string;
  /** The answer the old served chat call kept (its completion body). */
  keptAnswer: Record<string, unknown>;
  /** The receipts of the old served calls: logged (paid, prepaid) and staged (prepaid). */
  receipts: { paid: OldReceipt; prepaidLogged: OldReceipt; prepaidStaged: OldReceipt };
  /** The prepaid hold whose server died (its lease ran out). */
  deadPrepaidHold: string;
  /** The latest checkpoint the last release's log signed (size 2), with its witness's cosignature. */
  checkpoint: { size: number; note: string };
  /** The witness's verifier key. */
  witnessKey: string;
}

/** A chat request body of the fill: one message naming its case. */
export function chatBody(label: string): { model: string; messages: { role: "user"; content: string }[] } {
  return { model: "local/echo-1", messages: [{ role: "user", content: `before the upgrade: ${label}` }] };
}

/** The top-up the fill's top-ups bought. */
export const TOP_UP_BODY = { amount_usdc: "0.002" };

export function topUp(headers: Record<string, string> = {}): Promise<Response> {
  return topUpRoute(
    new Request("http://signet.test/api/v1/credits", {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify(TOP_UP_BODY),
    }),
    {},
  );
}

/** Creates an empty database and applies the migrations up to `lastMigration` as the migrator of that release did. */
export async function createDatabaseMigratedTo(lastMigration: string): Promise<{ url: string; drop(): Promise<void> }> {
  const migrations = readMigrations();
  const upTo = migrations.findIndex((m) => m.name === lastMigration);
  if (upTo === -1) throw new Error(`no migration ${lastMigration}`);
  const name = `signet_up_${randomBytes(6).toString("hex")}`;
  await withClient(TEST_ADMIN_URL, (c) => c.query(`CREATE DATABASE "${name}"`));
  const url = new URL(TEST_ADMIN_URL);
  url.pathname = `/${name}`;
  await withClient(url.toString(), async (c) => {
    // What apply-migrations.ts does: Prisma's own table, then each migration in its own transaction, recorded with the
    // sha256 of its file, so any later migrator sees it as applied.
    await c.query(CREATE_MIGRATIONS_TABLE);
    for (const m of migrations.slice(0, upTo + 1)) {
      await c.query("BEGIN");
      await c.query(m.sql);
      await c.query(
        `INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, applied_steps_count, started_at) VALUES ($1, $2, now(), $3, 1, now())`,
        [randomUUID(), m.checksum, m.name],
      );
      await c.query("COMMIT");
    }
  });
  return {
    url: url.toString(),
    drop: () =>
      withClient(TEST_ADMIN_URL, (c) => c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)).then(
        () => undefined,
      ),
  };
}

export async function withClient<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

interface Signed {
  agent: KeyPairSigner;
  header: string;
  payload: PaymentPayload;
  transaction: string;
}

/** A funded agent's payment header for `challenge`, and the transaction its settlement is (sent or not). */
async function signPayment(stack: PaidStack, facilitator: Facilitator, challenge: PaymentRequired): Promise<Signed> {
  const agent = await stack.newAgent();
  const header = await buildPaymentHeader(agent, challenge, stack.devnet.faultFreeUrl);
  const payload = decodePaymentSignatureHeader(header);
  const wire = await solanaSettlementWire(facilitator, payload);
  if (!wire) throw new Error("a Solana payload without a transaction");
  return {
    agent,
    header,
    payload,
    transaction: getSignatureFromTransaction(getTransactionDecoder().decode(Buffer.from(wire, "base64"))),
  };
}

/**
 * Signs a real payment for each old case (the expired ones before the chain's clock moves past their blockhash), lands
 * on chain every transfer an old row says landed, and writes the last release's rows for all of it.
 */
export async function writePreviousRelease(
  stack: PaidStack,
  facilitator: Facilitator,
  url: string,
): Promise<PreviousRelease> {
  // A challenge names a recent blockhash, which the client's transaction is built on.
  const challenges = async () => ({
    chat: await challengeOf(await stack.chat({ body: chatBody("challenge") })),
    topup: await challengeOf(await topUp()),
  });
  const sign = (label: OldCase, challenge: Awaited<ReturnType<typeof challenges>>) =>
    signPayment(stack, facilitator, challenge[OLD_PAYMENTS[label].purpose]);
  const signed: Partial<Record<OldCase, Signed>> = {};
  const cases = Object.keys(OLD_PAYMENTS) as OldCase[];
  const expiring: OldCase[] = ["pending_expired", "expired"];
  const early = await challenges();
  for (const label of expiring) signed[label] = await sign(label, early);
  // Time passes on the chain: every blockhash handed out so far can no longer land.
  stack.devnet.chain.expireBlockhash();
  const later = await challenges();
  for (const label of cases.filter((l) => !expiring.includes(l))) signed[label] = await sign(label, later);
  const all = signed as Record<OldCase, Signed>;
  const landed = await Promise.all(
    cases
      .filter((l) => OLD_PAYMENTS[l].landed)
      .map(async (l) => [l, await landDirectly(stack, facilitator, all[l].header)] as const),
  );
  for (const [l, transaction] of landed)
    if (transaction !== all[l].transaction) throw new Error(`${l} landed as another transaction`);

  const payment = (l: OldCase): OldPayment => ({
    id: randomUUID(),
    agent: all[l].agent,
    header: all[l].header,
    body: OLD_PAYMENTS[l].purpose === "chat" ? chatBody(l) : { ...TOP_UP_BODY },
    transaction: all[l].transaction,
  });
  const payments = Object.fromEntries(cases.map((l) => [l, payment(l)])) as Record<OldCase, OldPayment>;
  return withClient(url, async (c) => {
    await c.query("BEGIN");
    const written = await writeRows(c, stack, payments, all);
    await c.query("COMMIT");
    return written;
  });
}

const minutesAgo = (at: number, minutes: number) => new Date(at - minutes * 60_000);

async function insert(c: pg.Client, table: string, row: Record<string, unknown>): Promise<void> {
  const cols = Object.keys(row);
  const values = cols.map((k) => {
    const v = row[k];
    if (typeof v === "bigint") return v.toString();
    if (v === null || v instanceof Date || Buffer.isBuffer(v) || typeof v !== "object") return v;
    return JSON.stringify(v);
  });
  await c.query(
    `INSERT INTO "${table}" (${cols.map((k) => `"${k}"`).join(", ")}) VALUES (${cols.map((_, i) => `$${i + 1}`).join(", ")})`,
    values,
  );
}

async function writeRows(
  c: pg.Client,
  stack: PaidStack,
  payments: Record<OldCase, OldPayment>,
  signed: Record<OldCase, Signed>,
): Promise<PreviousRelease> {
  const at = Date.now();
  const network = stack.devnet.caip2;
  const payTo = (signed.served.payload.accepted as { payTo: string }).payTo;
  const operator = operatorKeypair();
  const ledger = (
    agent: string,
    kind: string,
    units: bigint,
    refs: { payment_id?: string; inference_id?: string },
    minutes: number,
  ) =>
    insert(c, "ledger_entries", {
      agent_pubkey: agent,
      network,
      kind,
      units,
      payment_id: refs.payment_id ?? null,
      inference_id: refs.inference_id ?? null,
      created_at: minutesAgo(at, minutes),
    });

  // Settings the operator changed, and their audit (the salt's rows held its value in this release).
  const salt = `salt-${randomBytes(12).toString("hex")}`;
  for (const [key, value] of [
    ["X402_FLAT_PRICE_USDC", "0.001"],
    ["SERVICE_GRANT_AMOUNT_USDC", "0.0002"],
    ["IP_HASH_SALT", salt],
  ] as const) {
    await insert(c, "settings", { key, value, updated_at: minutesAgo(at, 300), updated_by: "operator:4Nd1m" });
    await insert(c, "setting_audits", {
      key,
      old_value: null,
      new_value: value,
      actor: "operator:4Nd1m",
      created_at: minutesAgo(at, 300),
    });
  }

  // Payments, in every state the last release allowed.
  const digestOf = (l: OldCase) =>
    OLD_PAYMENTS[l].purpose === "chat"
      ? chatRequestDigest(chatRequestSchema.parse(payments[l].body), "solana-devnet")
      : topUpRequestDigest({ amountUnits: TOP_UP_UNITS, network: "solana-devnet", beneficiary: null });
  const served = payments.served;
  const { messages } = chatBody("served");
  const answer = answerLocally(messages, 1_000);
  const keptAnswer = {
    id: `chatcmpl-${served.id}`,
    object: "chat.completion",
    created: Math.floor(minutesAgo(at, 60).getTime() / 1000),
    model: "local/echo-1",
    choices: [
      {
        index: 0,
        message: { role: "assistant", content: answer.content, refusal: null, annotations: [] },
        logprobs: null,
        finish_reason: "stop",
      },
    ],
    usage: answer.usage,
  };
  for (const l of Object.keys(OLD_PAYMENTS) as OldCase[]) {
    const p = payments[l];
    const old = OLD_PAYMENTS[l];
    const pending = old.status === "pending";
    const minutes = l === "served" || l === "topup_served" ? 60 : 10;
    await insert(c, "payments", {
      id: p.id,
      payload_hash: paymentIdempotencyKey(signed[l].payload),
      // A claim has no transaction yet; everything past it names the one it sent (or would send).
      tx_signature: old.status === "claimed" || old.status === "failed" ? null : p.transaction,
      network,
      payer: p.agent.address,
      pay_to: payTo,
      units: old.purpose === "chat" ? PRICE_UNITS : TOP_UP_UNITS,
      purpose: old.purpose,
      status: old.status,
      failure_reason:
        l === "unserved"
          ? "upstream_error"
          : l === "failed"
            ? "lane_busy"
            : l === "expired"
              ? "settlement_expired"
              : null,
      inference_id: l === "served" ? p.id : null,
      created_at: minutesAgo(at, minutes + 1),
      updated_at: minutesAgo(at, minutes),
      pending_payload: pending ? signed[l].payload : null,
      pending_blockhash: pending ? settlementExpiry(signed[l].payload).blockhash : null,
      pending_valid_before: null,
      pending_beneficiary: null,
      client_payment_id: null,
      request_digest: digestOf(l),
      beneficiary: null,
      answer: l === "served" ? keptAnswer : null,
    });
  }
  // The payers' settlement lanes: free after a send, or still held by a claim whose server died.
  const lane = (l: OldCase) => laneSource(network, signed[l].payload, payments[l].agent.address);
  await insert(c, "settlement_lanes", {
    source: lane("served"),
    holder: null,
    held_until: null,
    last_sent_at: minutesAgo(at, 61),
    failures: 0,
  });
  await insert(c, "settlement_lanes", {
    source: lane("claimed_landed"),
    holder: payments.claimed_landed.id,
    held_until: minutesAgo(at, 8),
    last_sent_at: null,
    failures: 0,
  });
  await insert(c, "settlement_lanes", {
    source: lane("claimed_unsent"),
    holder: payments.claimed_unsent.id,
    held_until: minutesAgo(at, 8),
    last_sent_at: null,
    failures: 0,
  });
  await insert(c, "settlement_lanes", {
    source: lane("failed"),
    holder: null,
    held_until: null,
    last_sent_at: null,
    failures: 1,
    failures_since: minutesAgo(at, 10),
  });

  // Paid calls' credits and holds: served (captured), and settled, serving, unserved (held for their payment).
  const paidReceipt = signReceipt(
    buildReceipt({
      agentPubkey: served.agent.address,
      upstream: "local",
      model: "local/echo-1",
      costUnits: 37n,
      prompt: { messages },
      responseText: answer.content,
      timestampMs: minutesAgo(at, 60).getTime(),
      inferenceId: served.id,
      pointsTotal: 1,
      payment: { amountUnits: PRICE_UNITS, txSignature: served.transaction, network, payTo },
    }),
    operator,
  );
  for (const l of ["served", "settled", "serving", "unserved"] as const) {
    const p = payments[l];
    const captured = l === "served";
    await insert(c, "agents", {
      pubkey: p.agent.address,
      points_total: captured ? 1 : 0,
      created_at: minutesAgo(at, 61),
    });
    await ledger(p.agent.address, "payment_credit", PRICE_UNITS, { payment_id: p.id }, captured ? 61 : 11);
    await ledger(p.agent.address, "hold", -PRICE_UNITS, { inference_id: p.id }, captured ? 61 : 11);
    if (captured) await ledger(p.agent.address, "hold_release", PRICE_UNITS - 37n, { inference_id: p.id }, 60);
    await insert(c, "balances", {
      agent_pubkey: p.agent.address,
      network,
      units: captured ? PRICE_UNITS - 37n : 0n,
      updated_at: minutesAgo(at, captured ? 60 : 11),
    });
    await insert(c, "credit_holds", {
      id: p.id,
      agent_pubkey: p.agent.address,
      network,
      units: PRICE_UNITS,
      status: captured ? "captured" : "held",
      created_at: minutesAgo(at, captured ? 61 : 11),
      settled_at: captured ? minutesAgo(at, 60) : null,
      payment_id: p.id,
      charged_units: captured ? 37n : null,
      lease_expires_at: minutesAgo(at, captured ? 59 : 9),
    });
  }
  await insert(c, "inference_logs", {
    id: served.id,
    agent_pubkey: served.agent.address,
    network,
    route: "chat",
    model: "local/echo-1",
    upstream: "local",
    payment_id: served.id,
    tx_signature: served.transaction,
    price_units: PRICE_UNITS,
    cost_units: 37n,
    upstream_cost_units: 37n,
    latency_ms: 12,
    status: "served",
    receipt: paidReceipt,
    created_at: minutesAgo(at, 60),
  });

  // The prepaid agent: its top-up, then calls from that credit: served (logged, and one only staged), released,
  // aborted mid-stream, and one whose server died holding it.
  const prepaid = payments.topup_served.agent.address;
  await insert(c, "agents", { pubkey: prepaid, points_total: 2, created_at: minutesAgo(at, 61) });
  await ledger(prepaid, "topup_credit", TOP_UP_UNITS, { payment_id: payments.topup_served.id }, 60);
  const prompt = (n: number) => `a prepaid question ${n}`;
  const calls = [
    { id: randomUUID(), status: "captured", cost: 120n, outcome: "served", points: 1 },
    { id: randomUUID(), status: "captured", cost: 95n, outcome: "served", points: 2 },
    { id: randomUUID(), status: "released", cost: null, outcome: null, points: 2 },
    { id: randomUUID(), status: "captured", cost: 40n, outcome: "aborted", points: 2 },
    { id: randomUUID(), status: "held", cost: null, outcome: null, points: 2 },
  ] as const;
  const prepaidReceipts: OldReceipt[] = [];
  for (const [n, call] of calls.entries()) {
    const minutes = 50 - n;
    await ledger(prepaid, "hold", -PREPAID_HOLD_UNITS, { inference_id: call.id }, minutes);
    const returned =
      call.status === "released" ? PREPAID_HOLD_UNITS : call.cost !== null ? PREPAID_HOLD_UNITS - call.cost : null;
    if (returned !== null) await ledger(prepaid, "hold_release", returned, { inference_id: call.id }, minutes);
    await insert(c, "credit_holds", {
      id: call.id,
      agent_pubkey: prepaid,
      network,
      units: PREPAID_HOLD_UNITS,
      status: call.status,
      created_at: minutesAgo(at, minutes),
      settled_at: call.status === "held" ? null : minutesAgo(at, minutes),
      payment_id: null,
      charged_units: call.cost,
      lease_expires_at: minutesAgo(at, call.status === "held" ? 5 : minutes - 2),
    });
    await insert(c, "request_nonces", {
      agent_pubkey: prepaid,
      nonce: randomBytes(16).toString("hex"),
      created_at: minutesAgo(at, minutes),
    });
    if (call.cost === null) continue;
    const text = answerLocally([{ role: "user", content: prompt(n) }], 1_000).content;
    const receipt =
      call.outcome === "served"
        ? signReceipt(
            buildReceipt({
              agentPubkey: prepaid,
              upstream: "local",
              model: "local/echo-1",
              costUnits: call.cost,
              prompt: { text: prompt(n) },
              responseText: text,
              timestampMs: minutesAgo(at, minutes).getTime(),
              inferenceId: call.id,
              pointsTotal: call.points,
            }),
            operator,
          )
        : null;
    if (receipt) prepaidReceipts.push({ receipt, prompt: prompt(n), response: text });
    await insert(c, "inference_logs", {
      id: call.id,
      agent_pubkey: prepaid,
      network,
      route: "inference",
      model: "local/echo-1",
      upstream: "local",
      payment_id: null,
      tx_signature: null,
      price_units: null,
      cost_units: call.cost,
      upstream_cost_units: call.cost,
      latency_ms: 9,
      status: call.outcome,
      receipt,
      created_at: minutesAgo(at, minutes),
    });
  }
  const spent = calls.reduce(
    (sum, call) => sum + (call.cost ?? (call.status === "held" ? PREPAID_HOLD_UNITS : 0n)),
    0n,
  );
  await insert(c, "balances", {
    agent_pubkey: prepaid,
    network,
    units: TOP_UP_UNITS - spent,
    updated_at: minutesAgo(at, 46),
  });
  await insert(c, "rate_limit_windows", { agent_pubkey: prepaid, window_start: minutesAgo(at, 46), count: 5 });

  // A grant: its challenge (used), an unused one, its credit, and the address's rate-limit window.
  const grantAgent = generateKeypair().publicKeyBase58;
  const ipHash = randomBytes(16).toString("hex");
  await insert(c, "grant_challenges", {
    nonce: randomBytes(16).toString("hex"),
    agent_pubkey: grantAgent,
    message: "signet grant challenge",
    expires_at: minutesAgo(at, 25),
    used_at: minutesAgo(at, 29),
    created_at: minutesAgo(at, 30),
  });
  await insert(c, "grant_challenges", {
    nonce: randomBytes(16).toString("hex"),
    agent_pubkey: grantAgent,
    message: "signet grant challenge",
    expires_at: minutesAgo(at, 15),
    used_at: null,
    created_at: minutesAgo(at, 20),
  });
  await insert(c, "grants", {
    agent_pubkey: grantAgent,
    ip_hash: ipHash,
    network,
    units: 200n,
    day: new Date(at).toISOString().slice(0, 10),
    created_at: minutesAgo(at, 29),
  });
  await insert(c, "agents", { pubkey: grantAgent, points_total: 0, created_at: minutesAgo(at, 29) });
  await ledger(grantAgent, "grant_credit", 200n, {}, 29);
  await insert(c, "balances", { agent_pubkey: grantAgent, network, units: 200n, updated_at: minutesAgo(at, 29) });
  await insert(c, "ip_rate_limit_windows", {
    bucket: "grants",
    ip_hash: ipHash,
    window_start: minutesAgo(at, 29),
    count: 1,
  });

  // The operator's sign-in, failures counted by the hour, and a Base relay of the relayer's ledger.
  await insert(c, "operator_challenges", {
    nonce: randomBytes(16).toString("hex"),
    message: "signet operator sign-in",
    expires_at: minutesAgo(at, 295),
    used_at: minutesAgo(at, 299),
    created_at: minutesAgo(at, 300),
  });
  await insert(c, "operator_session_generations", {
    pubkey: generateKeypair().publicKeyBase58,
    generation: 3,
    updated_at: minutesAgo(at, 300),
  });
  await insert(c, "payment_failure_counts", {
    network,
    stage: "verify",
    reason: "payment_invalid",
    hour: new Date(Math.floor(at / 3_600_000) * 3_600_000 - 3_600_000),
    count: 4,
  });
  await insert(c, "evm_relays", {
    chain_id: 84532,
    address: "0x7bbf9c61cd044deea532e7c8fd6fd6a87a505a09",
    nonce: 0,
    raw_tx: `0x02${"ab".repeat(60)}`,
    tx_hash: `0x${"cd".repeat(32)}`,
    created_at: minutesAgo(at, 200),
    sent_at: minutesAgo(at, 200),
    sends: 2,
  });

  // The receipt log: the paid call and the first prepaid call in the tree, checkpoints 0, 1 and 2 signed (2 cosigned
  // by a witness), and the second prepaid call staged for the next sequencer round.
  const logged = [paidReceipt, prepaidReceipts[0]!.receipt];
  const leaves = logged.map((r) => leafHash(encodeReceiptEntry(r as unknown as Record<string, unknown>)));
  for (const [idx, receipt] of logged.entries()) {
    await insert(c, "log_entries", {
      idx,
      inference_id: receipt.inference_id,
      entry: Buffer.from(encodeReceiptEntry(receipt as unknown as Record<string, unknown>)),
      logged_at: minutesAgo(at, 45),
    });
    await insert(c, "log_hashes", { level: 0, idx, hash: Buffer.from(leaves[idx]!) });
  }
  const id = logIdentity();
  let note = "";
  for (const size of [0, 1, 2]) {
    const root = size === 0 ? EMPTY_ROOT : rootOfLeaves(leaves.slice(0, size));
    note = signCheckpoint(id, size, root);
    await insert(c, "log_checkpoints", { size, root: Buffer.from(root), note, created_at: minutesAgo(at, 45 - size) });
  }
  const witness = generateKeypair();
  const witnessName = "witness.test/w1";
  const witnessKey = witnessVerifierKey(witnessName, witness);
  const timestamp = BigInt(Math.floor(minutesAgo(at, 42).getTime() / 1000));
  const cosignature = formatSignatureLine(
    witnessName,
    parseVerifierKey(witnessKey)!.keyId,
    cosignaturePayload(
      timestamp,
      signEd25519(cosignatureMessage(parseSignedNote(note)!.text, timestamp), witness.seed),
    ),
  );
  await insert(c, "log_cosignatures", {
    size: 2,
    witness: witnessName,
    line: cosignature,
    created_at: minutesAgo(at, 42),
  });
  await insert(c, "log_staging", {
    inference_id: prepaidReceipts[1]!.receipt.inference_id,
    staged_at: minutesAgo(at, 49),
  });

  return {
    payments,
    prepaidAgent: prepaid,
    grantAgent,
    keptAnswer,
    receipts: {
      paid: { receipt: paidReceipt, prompt: messages, response: keptAnswer },
      prepaidLogged: prepaidReceipts[0]!,
      prepaidStaged: prepaidReceipts[1]!,
    },
    deadPrepaidHold: calls[4].id,
    checkpoint: { size: 2, note: note + cosignature },
    witnessKey,
  };
}
