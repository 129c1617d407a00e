// `signet settings set KEY VALUE` / `signet settings list`: the operator settings (price, deposit addresses, mainnet
// switch, allowlist, grants), validated and
// audited like the dashboard's. Takes effect on the next request, with no restart.
import { DatabaseInUseError, openDatabase, type OpenDb } from "../../../server/db";
import { readRawSettings } from "../../../server/settings/read-settings";
import { isSettingKey, SETTING_KEYS } from "../../../server/settings/setting-definitions";
import { writeSetting } from "../../../server/settings/write-setting";
import { cliConfig, UsageError } from "../cli-support";
import { SETTINGS_USAGE } from "./usage";
import { createLogger } from "../../../server/log";

/** Runs the command; returns the exit code. */
export async function runSettings(argv: string[]): Promise<number> {
  const [action, key, ...rest] = argv;
  let open: OpenDb | null = null;
  try {
    const config = await cliConfig();
    const db = async () => (open ??= await openDatabase(config, createLogger(config.logLevel))).prisma;
    if (action === "list") {
      const raw = await readRawSettings(await db(), config);
      for (const k of SETTING_KEYS)
        process.stdout.write(`${k}=${k === "IP_HASH_SALT" && raw[k] ? "(set)" : (raw[k] ?? "")}\n`);
      return 0;
    }
    if (action !== "set" || !key || rest.length !== 1) throw new UsageError(`usage: ${SETTINGS_USAGE}`);
    if (!isSettingKey(key)) throw new UsageError(`unknown setting ${key}; one of ${SETTING_KEYS.join(", ")}`);
    const outcome = await writeSetting(await db(), config, key, rest[0]!, "cli");
    if (!outcome.ok) throw new UsageError(`${outcome.key}: ${outcome.message}`);
    process.stdout.write(`${key}: ${outcome.oldValue ?? "(default)"} → ${outcome.newValue}\n`);
    return 0;
  } catch (err) {
    if (err instanceof DatabaseInUseError) throw new UsageError(`${err.message}`);
    throw err;
  } finally {
    await (open as OpenDb | null)?.close();
  }
}
