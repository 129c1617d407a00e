// The settings audit log, newest first, as operators read it: a secret's rows say that it was set or replaced, never
// a value (rows written before secrets were audited that way held the value itself).
import "server-only";
import type { DbClient } from "../db";
import { isSettingKey, SETTING_DEFINITIONS } from "./setting-definitions";
import { SECRET_AUDIT } from "./write-setting";

export interface SettingAuditRow {
  id: string;
  key: string;
  oldValue: string | null;
  newValue: string;
  actor: string;
  /** ISO 8601. */
  at: string;
}

/** The newest `limit` changes. */
export async function readSettingAudit(db: DbClient, limit: number): Promise<SettingAuditRow[]> {
  const rows = await db.settingAudit.findMany({ orderBy: { id: "desc" }, take: limit });
  return rows.map((r) => {
    // SECURITY: masked on the way out as well, whatever an older row holds.
    const secret = isSettingKey(r.key) && SETTING_DEFINITIONS[r.key].kind === "secret";
    return {
      id: r.id.toString(),
      key: r.key,
      oldValue: secret ? (r.oldValue === null ? null : SECRET_AUDIT.stored) : r.oldValue,
      newValue: secret ? SECRET_AUDIT.replaced : r.newValue,
      actor: r.actor,
      at: r.createdAt.toISOString(),
    };
  });
}
