// Dashboard figures over tRPC: live figures per network, fee-payer health, recent calls (keyset pages).
import "server-only";
import { z } from "zod";
import { feePayerHealthSchema, readFeePayerHealth } from "../../dashboard/fee-payer-health";
import { readRuntimeHealth } from "../../health/check-health";
import { readPendingSettlements } from "../../health/read-pending-settlements";
import { readFigures, readRecentCalls } from "../../dashboard/read-figures";
import { MISMATCH_KINDS, reconcile } from "../../reconcile/reconcile";
import { operatorProcedure, router } from "../init";
import { LISTED_STATES } from "../../health/read-pending-settlements";

/** A decimal USDC amount, as formatted from bigint atomic units. */
const usdc = z.string();
const count = z.number().int().nonnegative();

const figuresOutput = z.object({
  networks: z.array(
    z.object({
      network: z.string(),
      paidCalls: count,
      settleOk: count,
      prepaidCalls: count,
      receivedUsdc: usdc,
      upstreamCostUsdc: usdc,
      marginUsdc: usdc,
      failures: z.array(z.object({ stage: z.string(), reason: z.string(), count })),
    }),
  ),
  grantsToday: z.object({ count, usdc, budgetUsdc: usdc }),
  series: z.array(
    z.object({
      hour: z.iso.datetime(),
      network: z.string(),
      paidCalls: count,
      prepaidCalls: count,
      receivedUsdc: z.number(),
      upstreamCostUsdc: z.number(),
      marginUsdc: z.number(),
    }),
  ),
});

const feePayerOutput = z.array(feePayerHealthSchema);

const cursor = z.object({ createdAt: z.iso.datetime(), id: z.uuid() });

const recentCallsOutput = z.object({
  items: z.array(
    z.object({
      id: z.string(),
      agent: z.string(),
      network: z.string(),
      route: z.string(),
      model: z.string(),
      priceUsdc: usdc.nullable(),
      costUsdc: usdc,
      latencyMs: z.number().int(),
      status: z.string(),
      txSignature: z.string().nullable(),
      createdAt: z.iso.datetime(),
      receiptUrl: z.string(),
    }),
  ),
  nextCursor: cursor.nullable(),
});

const reconcileOutput = z.array(
  z.object({
    network: z.string(),
    label: z.string(),
    depositAddresses: z.array(z.string()),
    onChainTransfers: count,
    recordedPayments: count,
    pendingClaims: count,
    pendingSettlements: count,
    pendingLanded: count,
    mismatches: z.array(z.object({ kind: z.enum(MISMATCH_KINDS), transaction: z.string(), detail: z.string() })),
    drift: count,
  }),
);

const probeFailure = z.enum(["timeout", "unreachable"]);
const pendingPayments = z.object({
  count,
  items: z.array(
    z.object({
      id: z.string(),
      network: z.string(),
      payer: z.string(),
      amountUsdc: usdc,
      status: z.enum(LISTED_STATES),
      label: z.string(),
      failureReason: z.string().nullable(),
      txSignature: z.string().nullable(),
      updatedAt: z.iso.datetime(),
    }),
  ),
});

const healthOutput = z.object({
  status: z.enum(["ok", "degraded", "unavailable"]),
  ready: z.boolean(),
  reasons: z.array(z.string()),
  warnings: z.array(z.string()),
  checkedAt: z.iso.datetime(),
  database: z.object({ ok: z.boolean(), latencyMs: z.number(), error: probeFailure.optional() }),
  chains: z.array(
    z.object({
      network: z.string(),
      label: z.string(),
      ok: z.boolean(),
      latencyMs: z.number(),
      error: probeFailure.optional(),
      slotLag: z.number().optional(),
      latestBlockAgeSeconds: z.number().optional(),
    }),
  ),
  upstream: z.object({
    kind: z.enum(["provider", "built-in"]),
    name: z.string(),
    ok: z.boolean(),
    latencyMs: z.number().optional(),
    status: z.number().optional(),
    error: probeFailure.optional(),
  }),
  pending: z.object({ broadcast: pendingPayments, staleClaims: pendingPayments, unserved: pendingPayments }),
});

export const dashboardRouter = router({
  figures: operatorProcedure
    .output(figuresOutput)
    .query(async ({ ctx }) => readFigures(ctx.db, await ctx.runtime.settings.read(), ctx.runtime.clock.now())),
  feePayer: operatorProcedure
    .output(feePayerOutput)
    .query(({ ctx }) => readFeePayerHealth(ctx.runtime.chains.facilitator)),
  recentCalls: operatorProcedure
    .input(z.object({ cursor: cursor.nullish(), limit: z.number().int().min(1).max(100).default(20) }))
    .output(recentCallsOutput)
    .query(({ ctx, input }) => readRecentCalls(ctx.db, input.cursor ?? null, input.limit)),
  /** Read-only: on-chain deposits against the payments table and the ledger (`signet reconcile`). */
  reconcile: operatorProcedure.output(reconcileOutput).query(async ({ ctx }) => {
    const reports = await reconcile(ctx.runtime);
    return reports.map((r) => ({ ...r, drift: r.mismatches.length }));
  }),
  /** The readiness summary (GET /api/health) and the settlements waiting: broadcast (pending), stale claims and unserved payments. */
  health: operatorProcedure.output(healthOutput).query(async ({ ctx }) => {
    const [report, pending] = await Promise.all([
      readRuntimeHealth(ctx.runtime),
      readPendingSettlements(ctx.db, ctx.runtime.config.PAYMENT_LEASE_MS, ctx.runtime.clock.now()),
    ]);
    return { ...report, pending };
  }),
  whoami: operatorProcedure
    .output(z.object({ pubkey: z.string(), expiresAt: z.iso.datetime() }))
    .query(({ ctx }) => ({ pubkey: ctx.session.pubkey, expiresAt: new Date(ctx.session.expiresAt).toISOString() })),
});
