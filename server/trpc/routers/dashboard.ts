// Dashboard figures over tRPC (issue #5): live figures per network, fee-payer health, recent calls (keyset pages).
import { z } from "zod";
import { appContext } from "../../app-context";
import { readFeePayerHealth } from "../../dashboard/fee-payer-health";
import { readFigures, readRecentCalls } from "../../dashboard/read-figures";
import { readSettings } from "../../settings/read-settings";
import { reconcile } from "../../reconcile/reconcile";
import { operatorProcedure, router } from "../init";

export const dashboardRouter = router({
  figures: operatorProcedure.query(async ({ ctx }) => readFigures(ctx.db, await readSettings(ctx.db))),
  feePayer: operatorProcedure.query(async () => readFeePayerHealth((await appContext()).gateway.facilitator)),
  recentCalls: operatorProcedure
    .input(z.object({ cursor: z.object({ createdAt: z.iso.datetime(), id: z.uuid() }).nullish(), limit: z.number().int().min(1).max(100).default(20) }))
    .query(({ ctx, input }) => readRecentCalls(ctx.db, input.cursor ?? null, input.limit)),
  /** Read-only: on-chain deposits against the payments table and the ledger (`signet reconcile`). */
  reconcile: operatorProcedure.query(async ({ ctx }) => {
    const reports = await reconcile(ctx.db, (await appContext()).gateway.facilitator);
    return reports.map((r) => ({ ...r, drift: r.mismatches.length }));
  }),
  whoami: operatorProcedure.query(({ ctx }) => ({ pubkey: ctx.session.pubkey, expiresAt: new Date(ctx.session.expiresAt).toISOString() })),
});
