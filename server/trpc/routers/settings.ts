// Operator settings over tRPC: read the effective values, change one (validated, audited), read the
// audit log. Thin: input schema → one service call.
import "server-only";
import { z } from "zod";
import { readRawSettings } from "../../settings/read-settings";
import { isSettingKey, SETTING_KEYS } from "../../settings/setting-definitions";
import { writeSetting } from "../../settings/write-setting";
import { operatorProcedure, router } from "../init";

/** Secrets are shown as set/unset, never echoed. */
const SECRET_KEYS = new Set(["IP_HASH_SALT"]);

const settingsOutput = z.array(z.object({ key: z.enum(SETTING_KEYS), value: z.string(), secret: z.boolean() }));
const setOutput = z.discriminatedUnion("ok", [z.object({ ok: z.literal(true) }), z.object({ ok: z.literal(false), key: z.string(), message: z.string() })]);
const auditOutput = z.array(
  z.object({ id: z.string(), key: z.string(), oldValue: z.string().nullable(), newValue: z.string(), actor: z.string(), at: z.iso.datetime() }),
);

export const settingsRouter = router({
  get: operatorProcedure.output(settingsOutput).query(async ({ ctx }) => {
    const raw = await readRawSettings(ctx.db, ctx.runtime.config);
    return SETTING_KEYS.map((key) => ({ key, value: SECRET_KEYS.has(key) ? (raw[key] ? "(set)" : "") : (raw[key] ?? ""), secret: SECRET_KEYS.has(key) }));
  }),
  set: operatorProcedure
    .input(z.object({ key: z.string().refine(isSettingKey, { message: "unknown setting" }), value: z.string().max(4_000) }))
    .output(setOutput)
    .mutation(async ({ ctx, input }) => {
      if (!isSettingKey(input.key)) return { ok: false as const, key: input.key, message: "unknown setting" };
      const outcome = await writeSetting(ctx.db, ctx.runtime.config, input.key, input.value.trim(), ctx.session.pubkey);
      return outcome.ok ? { ok: true as const } : { ok: false as const, key: outcome.key, message: outcome.message };
    }),
  audit: operatorProcedure
    .input(z.object({ limit: z.number().int().min(1).max(200).default(50) }).optional())
    .output(auditOutput)
    .query(async ({ ctx, input }) => {
      const rows = await ctx.db.settingAudit.findMany({ orderBy: { id: "desc" }, take: input?.limit ?? 50 });
      return rows.map((r) => ({
        id: r.id.toString(),
        key: r.key,
        oldValue: SECRET_KEYS.has(r.key) ? "(secret)" : r.oldValue,
        newValue: SECRET_KEYS.has(r.key) ? "(secret)" : r.newValue,
        actor: r.actor,
        at: r.createdAt.toISOString(),
      }));
    }),
});
