// Operator settings over tRPC: read every setting with its typed value (a secret only as set or not), change one
// (validated by its kind, refused or held for confirmation when it breaks calls, audited), read the audit log.
// Thin: input schema → one service call → output schema.
import "server-only";
import { z } from "zod";
import { changeOperatorSetting, readOperatorSettings } from "../../dashboard/operator-settings";
import { readSettingAudit } from "../../settings/read-setting-audit";
import { SETTING_GROUPS, SETTING_KEYS } from "../../settings/setting-definitions";
import { operatorProcedure, router } from "../init";

/** A network's id in the runtime's registry (the options list them). */
const networkId = z.string().min(1);

const common = {
  key: z.enum(SETTING_KEYS),
  label: z.string(),
  help: z.string(),
  group: z.enum(SETTING_GROUPS),
  source: z.enum(["stored", "environment", "unset"]),
  updatedBy: z.string().nullable(),
  updatedAt: z.iso.datetime().nullable(),
  problem: z.string().nullable(),
};

const settingView = z.discriminatedUnion("kind", [
  z.object({ ...common, kind: z.literal("boolean"), value: z.boolean().nullable() }),
  z.object({ ...common, kind: z.literal("usdc"), value: z.string(), min: z.enum(["positive", "zero"]) }),
  z.object({
    ...common,
    kind: z.literal("integer"),
    value: z.number().int().nullable(),
    min: z.number().int(),
    max: z.number().int(),
  }),
  z.object({
    ...common,
    kind: z.literal("network"),
    value: networkId.nullable(),
    options: z.array(z.object({ id: networkId, label: z.string(), mainnet: z.boolean(), offered: z.boolean() })),
  }),
  z.object({ ...common, kind: z.literal("keys"), value: z.array(z.string()) }),
  z.object({ ...common, kind: z.literal("address"), value: z.string().nullable() }),
  // SECURITY: strict, so a value added to a secret's view by mistake fails the output check instead of reaching a page.
  z.strictObject({
    ...common,
    kind: z.literal("secret"),
    set: z.boolean(),
    origin: z.enum(["stored", "environment", "data_dir"]).nullable(),
    status: z.string(),
  }),
]);

const effect = {
  id: z.string(),
  code: z.string(),
  answers: z.string().nullable(),
  keys: z.array(z.enum(SETTING_KEYS)),
  message: z.string(),
};
const consequence = z.object({ ...effect, severity: z.enum(["refuse", "confirm"]) });

const settingsOutput = z.object({ settings: z.array(settingView), problems: z.array(z.object(effect)) });

/** A setting's typed value: a toggle's boolean, an integer, an amount, a network id, an address or a secret as text, a list of keys. */
const settingValue = z.union([z.boolean(), z.number(), z.string().max(4_000), z.array(z.string().max(128)).max(1_000)]);

const setInput = z.object({
  key: z.enum(SETTING_KEYS),
  value: settingValue,
  acknowledged: z.array(z.string().max(200)).max(50).default([]),
});
const setOutput = z.discriminatedUnion("ok", [
  z.object({ ok: z.literal(true) }),
  z.object({
    ok: z.literal(false),
    reason: z.enum(["invalid_value", "refused", "confirmation_required"]),
    key: z.enum(SETTING_KEYS),
    message: z.string(),
    consequences: z.array(consequence),
  }),
]);

const auditOutput = z.array(
  z.object({
    id: z.string(),
    key: z.string(),
    oldValue: z.string().nullable(),
    newValue: z.string(),
    actor: z.string(),
    at: z.iso.datetime(),
  }),
);

export const settingsRouter = router({
  get: operatorProcedure.output(settingsOutput).query(({ ctx }) => readOperatorSettings(ctx.runtime)),
  /** Refused without a write when invalid, when it breaks a rule, or until each consequence's id is acknowledged. */
  set: operatorProcedure
    .input(setInput)
    .output(setOutput)
    .mutation(({ ctx, input }) => changeOperatorSetting(ctx.runtime, input, ctx.session.pubkey)),
  audit: operatorProcedure
    .input(z.object({ limit: z.number().int().min(1).max(200).default(50) }).optional())
    .output(auditOutput)
    .query(({ ctx, input }) => readSettingAudit(ctx.db, input?.limit ?? 50)),
});
