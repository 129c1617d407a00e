// A runtime over fakes for the money path's unit tests: the real payment, ledger and pipeline code, the real schema
// in an in-memory PGlite (the worker's, shared by its files), an EVM chain and a model provider held in memory, and a
// clock the test moves. Each test takes a fresh world (its own chain, provider, clock and runtime) over that database;
// payers are fresh addresses, so tests sharing the database never touch each other's rows.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pino from "pino";
import { afterAll, beforeAll } from "vitest";
import type { PaymentRequirements } from "@x402/core/types";
import { loadConfig, type Config } from "../../../env";
import type { DbClient, OpenDb, Payment } from "../../../db";
import { AppError } from "../../../errors";
import { createRuntime } from "../../../runtime/create-runtime";
import type { Runtime } from "../../../context/runtime";
import { servePaidChat, type PaidChatInput } from "../../../chat/serve-paid-chat";
import type { ChatRequest } from "../../../schemas/chat-request-schema";
import type { ServedCall } from "../../../pipeline/call-types";
import type { OfferReceipts } from "../../../x402/offer-receipt";
import type { NetworkId } from "../../../verify";
import { LOCAL_MODEL_ID } from "../../../upstream";
import { admitPayment, planPayment } from "../../../payments/admit-payment";
import type { AdmittedOutcome } from "../../../payments/paid-request-types";
import { paidRouteAdmission } from "../../../x402/paid-routes";
import { chatRequestDigest } from "../../../x402/request-digest";
import { manualClock, type ManualClock } from "../manual-clock";
import { createFakeChain, type FakeChain, type FakePayment } from "./fake-chain";
import { createFakeUpstream, type FakeUpstream } from "./fake-upstream";
import { openMemoryDatabase } from "./memory-database";

/** The EVM testnet every world's chain plays. */
export const WORLD_NETWORK: NetworkId = "base-sepolia";

/** A paid chat call's answer: served (its headers and body), or refused with the route's error. */
export type CallResult = { served: ServedCall; error?: never } | { served?: never; error: AppError };

export interface PaymentWorld {
  ctx: Runtime;
  db: DbClient;
  chain: FakeChain;
  upstream: FakeUpstream;
  clock: ManualClock;
  /** The requirement a paid chat call on the world's network is planned with, at the current flat price. */
  requirements(): Promise<PaymentRequirements>;
  /** A fresh payment of the current price by `payer` (funded with the price first), for the chat challenge. */
  pay(options?: { payer?: string; paymentId?: string; fund?: boolean }): Promise<FakePayment>;
  /**
   * Takes `payment` through admission alone, as the chat route plans it (a server that stops before it serves): the
   * outcome, and nothing served.
   */
  admit(payment: FakePayment, body?: Partial<ChatRequest>): Promise<AdmittedOutcome>;
  /** Sends a paid chat call with `payment`'s header (or this header; none: the challenge): its answer or error. */
  call(payment: FakePayment | string | null, body?: Partial<ChatRequest>): Promise<CallResult>;
  /**
   * Moves the clock to `ageMs` after `payment`'s row was last stamped. The database stamps rows in real time while the
   * clock stands still, so a lease or a gap is measured from the row.
   */
  toRowAge(payment: FakePayment, ageMs: number): Promise<void>;
  /** Moves the clock to `offsetMs` past the end of `payment`'s lease (negative: before it). */
  toLeaseEnd(payment: FakePayment, offsetMs: number): Promise<void>;
  /** The payment row of `payment`, as it is now. */
  row(payment: FakePayment): Promise<Payment>;
  /** The payer's ledger on the world's network: each entry's kind and units, by kind. */
  ledger(payer: string): Promise<{ kind: string; units: bigint }[]>;
  /** The payer's balance on the world's network. */
  balance(payer: string): Promise<bigint>;
  /** Resolves with the first event named `event` the runtime logs from now on (its fields). */
  nextEvent(event: string): Promise<Record<string, unknown>>;
  /** The call's hold (by the payment's id), if any: its status and units. */
  hold(paymentId: string): Promise<{ status: string; units: bigint; chargedUnits: bigint | null } | null>;
}

/** The database a test file's worlds use (the worker's), and the config they share. */
export interface WorldDatabase {
  open: OpenDb;
  config: Config;
  close(): Promise<void>;
}

/** A chat request on `network`, with `body`'s fields over the default. */
function chatBody(network: NetworkId, body: Partial<ChatRequest>): ChatRequest {
  return { model: LOCAL_MODEL_ID, messages: [{ role: "user", content: "hello" }], network, ...body } as ChatRequest;
}

/** Offers and settlement receipts are the gateway's own business: these worlds issue none. */
const NO_OFFER_RECEIPTS: OfferReceipts = {
  get extension(): never {
    throw new Error("fake offer receipts: the extension is registered only by a real gateway");
  },
  issueSettlementReceipt: async () => null,
};

/** Opens the worker's database and a config for the file (`env` over the defaults). beforeAll; close in afterAll. */
export async function openWorldDatabase(env: Record<string, string> = {}): Promise<WorldDatabase> {
  const open = await openMemoryDatabase();
  const config = loadConfig({
    NODE_ENV: "test",
    SIGNET_DATA_DIR: mkdtempSync(path.join(tmpdir(), "signet-world-")),
    X402_NETWORK: WORLD_NETWORK,
    LOG_LEVEL: "silent",
    ...env,
  });
  return { open, config, close: () => open.close() };
}

/**
 * The test file's world database: opened before its tests (the worker's first open migrates, seconds on a loaded
 * machine) and closed after them. Call at the top of the file; the getter is for the tests.
 */
export function useWorldDatabase(env: Record<string, string> = {}): () => WorldDatabase {
  let database: WorldDatabase | undefined;
  beforeAll(async () => {
    database = await openWorldDatabase(env);
  }, 60_000);
  afterAll(async () => {
    await database?.close();
  });
  return () => {
    if (!database) throw new Error("the world database is opened in beforeAll: read it inside a test");
    return database;
  };
}

/** A fresh world over the file's database, its clock at the database's own time; its chain plays `network`. */
export async function createPaymentWorld(
  database: WorldDatabase,
  options: { network?: NetworkId } = {},
): Promise<PaymentWorld> {
  const { config } = database;
  const network = options.network ?? WORLD_NETWORK;
  const db = database.open.prisma;
  // The database stamps rows with its now(); leases compare those stamps with the runtime clock, so the two start
  // together and the clock then moves only when the test says.
  const [stamp] = await db.$queryRaw<{ now: Date }[]>`SELECT now() AS now`;
  const clock = manualClock(stamp!.now.getTime());
  const upstream = createFakeUpstream();
  // The runtime's log, read by event: a test waits for what the runtime says it did, never for time to pass.
  const waiting = new Map<string, ((fields: Record<string, unknown>) => void)[]>();
  const log = pino(
    { level: "info" },
    {
      write(line: string) {
        const fields = JSON.parse(line) as Record<string, unknown>;
        const event = typeof fields.event === "string" ? fields.event : null;
        const resolvers = event === null ? undefined : waiting.get(event);
        if (event === null || !resolvers) return;
        waiting.delete(event);
        for (const resolve of resolvers) resolve(fields);
      },
    },
  );
  const chain = createFakeChain({
    networks: config.networks,
    networkId: network,
    headSeconds: Math.floor(clock.now() / 1000),
    confirmWaitMs: config.SETTLEMENT_CONFIRM_WAIT_MS,
    offerReceipts: NO_OFFER_RECEIPTS,
  });
  const ctx = await createRuntime(config, {
    clock,
    // The file's database outlives each world's runtime.
    database: { prisma: db, close: async () => undefined },
    gateway: chain.gateway,
    upstream,
    log,
  });
  const requirements = async () => {
    const settings = await ctx.settings.read();
    return chain.gateway.requirements(network, settings.flatPriceUnits, chain.facilitator.evm!.address);
  };
  const resourceUrl = `${config.baseUrl}/api/v1/chat/completions`;
  const row = async (payment: FakePayment): Promise<Payment> => {
    const rows = await db.payment.findMany({ where: { payer: payment.payer.toLowerCase() } });
    const mine = rows.filter((r) => r.idempotencyKey.endsWith(`:${payment.nonce.toLowerCase()}`));
    if (mine.length !== 1) throw new Error(`expected one payment row for nonce ${payment.nonce}, found ${mine.length}`);
    return mine[0]!;
  };
  const toRowAge = async (payment: FakePayment, ageMs: number): Promise<void> => {
    const target = (await row(payment)).updatedAt.getTime() + ageMs;
    if (target < clock.now()) throw new Error("the clock is already past that moment");
    clock.advance(target - clock.now());
  };
  const caip2 = config.networks.get(network).caip2;
  return {
    ctx,
    db,
    chain,
    upstream,
    clock,
    requirements,
    async pay(options = {}) {
      const accepted = await requirements();
      const payment = chain.pay(accepted, {
        ...(options.payer ? { payer: options.payer } : {}),
        ...(options.paymentId ? { paymentId: options.paymentId } : {}),
      });
      if (options.fund !== false) chain.fund(payment.payer, BigInt(accepted.amount));
      return payment;
    },
    async admit(payment, body = {}) {
      const chat = chatBody(network, body);
      const { outcome } = await admitPayment(ctx, {
        headers: new Headers({ "PAYMENT-SIGNATURE": payment.header }),
        plan: async (state) => ({
          plan: await planPayment(ctx, state.settings, network, state.settings.flatPriceUnits),
        }),
        admission: ({ plan }) => ({
          resourceUrl,
          ...paidRouteAdmission("chat"),
          requestDigest: chatRequestDigest(chat, plan.network),
        }),
      });
      return outcome;
    },
    async call(payment, body = {}) {
      const header = typeof payment === "string" ? payment : payment?.header;
      const headers = new Headers(header === undefined ? {} : { "PAYMENT-SIGNATURE": header });
      const input: PaidChatInput = { body: chatBody(network, body), headers, resourceUrl };
      try {
        return { served: await servePaidChat(ctx, input) };
      } catch (err) {
        if (err instanceof AppError) return { error: err };
        throw err;
      }
    },
    toRowAge,
    toLeaseEnd: (payment, offsetMs) => toRowAge(payment, config.PAYMENT_LEASE_MS + offsetMs),
    row,
    async ledger(payer) {
      const entries = await db.ledgerEntry.findMany({
        where: { agentPubkey: payer.toLowerCase(), network: caip2 },
        orderBy: { id: "asc" },
      });
      // One statement writes several entries: compared as a set, by kind.
      return entries
        .map((e) => ({ kind: e.kind, units: e.units }))
        .sort((a, b) => a.kind.localeCompare(b.kind) || Number(a.units - b.units));
    },
    async balance(payer) {
      const row = await db.balance.findFirst({ where: { agentPubkey: payer.toLowerCase(), network: caip2 } });
      return row?.units ?? 0n;
    },
    nextEvent: (event) =>
      new Promise((resolve) => {
        waiting.set(event, [...(waiting.get(event) ?? []), resolve]);
      }),
    async hold(paymentId) {
      const hold = await db.creditHold.findFirst({ where: { paymentId } });
      return hold ? { status: hold.status, units: hold.units, chargedUnits: hold.chargedUnits } : null;
    },
  };
}
