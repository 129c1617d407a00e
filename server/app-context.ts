// The long-lived pieces a request needs (database, payment gateway, upstream), built once per process on first use
// and cached on globalThis (never at import time: `next build` evaluates route modules).
import "server-only";
import { db, type DbClient } from "./db";
import { config } from "./env";
import { createFacilitator } from "./facilitator/create-facilitator";
import { ensureDepositTokenAccount } from "./facilitator/ensure-deposit-token-account";
import { createPaymentGateway, type PaymentGateway } from "./x402/payment-gateway";
import { createUpstream, type Upstream } from "./upstream";
import { NETWORKS, type NetworkId } from "./chain/networks";
import { log } from "./log";
import { releaseExpiredHolds } from "./ledger/credit-holds";
import { startPendingSweeper } from "./payments/pending-settlement";
import { RELAY_SWEEP_EVERY_MS } from "./facilitator/evm-relay-ledger";
import { startLogPublisher } from "./transparency/publish-log";
import type { EvmFacilitator } from "./facilitator/create-evm-facilitator";

export interface AppContext {
  db: DbClient;
  gateway: PaymentGateway;
  upstream: Upstream;
}

const cache = globalThis as unknown as { signetAppContext?: Promise<AppContext> };

/** The process's context, built on first call. A failed build is retried on the next call. */
export function appContext(): Promise<AppContext> {
  if (!cache.signetAppContext) {
    cache.signetAppContext = buildAppContext();
    cache.signetAppContext.catch(() => {
      cache.signetAppContext = undefined;
    });
  }
  return cache.signetAppContext;
}

async function buildAppContext(): Promise<AppContext> {
  const cfg = config();
  const facilitator = await createFacilitator(cfg);
  const gateway = await createPaymentGateway(facilitator);
  const upstream = createUpstream({
    baseUrl: cfg.UPSTREAM_BASE_URL,
    ...(cfg.UPSTREAM_API_KEY ? { apiKey: cfg.UPSTREAM_API_KEY } : {}),
    timeoutMs: cfg.UPSTREAM_TIMEOUT_MS,
    localStreamDelayMs: cfg.LOCAL_MODEL_STREAM_DELAY_MS,
    providerName: cfg.UPSTREAM_PROVIDER_NAME,
  });
  const prisma = await db();
  sweepExpiredHolds(prisma, cfg.PAYMENT_LEASE_MS);
  const ctx = { db: prisma, gateway, upstream };
  // Settlements broadcast but not confirmed in time, which nobody retries: every instance sweeps them.
  startPendingSweeper(ctx);
  // The receipt log's sequencer and checkpoint signer: every instance runs it, one at a time holds its lock.
  startLogPublisher(prisma);
  // Relays a node dropped or never saw: every instance broadcasts them again (each one claimed by one sweeper a round).
  if (facilitator.evm) startRelaySweeper(facilitator.evm);
  return ctx;
}

/** Broadcasts unmined EVM relays again every RELAY_SWEEP_EVERY_MS for as long as the process lives; one round at a time. */
function startRelaySweeper(evm: EvmFacilitator): void {
  let running = false;
  const sweep = () => {
    if (running) return;
    running = true;
    evm
      .sweepRelays()
      .catch((err: unknown) => log.warn({ detail: String((err as Error)?.message ?? err).slice(0, 200) }, "could not sweep EVM relays"))
      .finally(() => {
        running = false;
      });
  };
  sweep();
  setInterval(sweep, RELAY_SWEEP_EVERY_MS).unref();
}

/**
 * Releases prepaid holds whose server died mid-call, every half lease, for as long as the process lives. Every instance
 * runs it; each hold is released by exactly one statement.
 */
function sweepExpiredHolds(prisma: DbClient, leaseMs: number): void {
  const sweep = () => {
    releaseExpiredHolds(prisma).catch((err: unknown) => log.warn({ err }, "could not release expired holds"));
  };
  sweep();
  setInterval(sweep, Math.max(1_000, Math.floor(leaseMs / 2))).unref();
}

const depositReady = new Map<string, Promise<string>>();

/** Makes sure the deposit owner's USDC account exists on a network before a payment to it is requested. */
export function ensureDepositReady(gateway: PaymentGateway, network: NetworkId, owner: string): Promise<string> {
  const key = `${network}|${owner}`;
  let ready = depositReady.get(key);
  if (!ready) {
    const rpc = gateway.facilitator.rpcs[network];
    if (!rpc) return Promise.reject(new Error(`no RPC configured for ${network}`));
    ready = ensureDepositTokenAccount(rpc, gateway.facilitator.signer, owner, NETWORKS[network].usdcAsset, NETWORKS[network].caip2);
    ready.catch((err: unknown) => {
      // Forget the failure first: a cached rejection would refuse every payment on this network until a restart.
      // The log gets the message only (kit's RPC errors are frozen, which pino's `err` serializer cannot tag).
      depositReady.delete(key);
      log.error({ network, owner, detail: String(err instanceof Error ? err.message : err).slice(0, 200) }, "could not prepare the deposit token account");
    });
    depositReady.set(key, ready);
  }
  return ready;
}
