// The IP-hash salt: the IP_HASH_SALT setting; in development a random one generated once into the data dir.
import "server-only";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Config } from "../env";
import { AppError } from "../errors";
import type { Settings } from "../settings/setting-definitions";

/**
 * The development salt read from each data dir's file (bound: one entry per data dir a process serves). Every
 * per-address rate limit hashes under it, so it is read once, not on every request; a deleted file is generated again.
 */
const generated = new Map<string, string>();

/** The salt to hash client IPs with. Production without IP_HASH_SALT is misconfigured for grants. */
export function ipHashSalt(settings: Settings, cfg: Pick<Config, "isProduction" | "dataDir">): string {
  if (settings.ipHashSalt) return settings.ipHashSalt;
  if (cfg.isProduction) throw new AppError("server_misconfigured", "grants need IP_HASH_SALT");
  const file = path.join(cfg.dataDir, "ip-hash-salt");
  const known = generated.get(file);
  if (known !== undefined && existsSync(file)) return known;
  mkdirSync(cfg.dataDir, { recursive: true });
  try {
    writeFileSync(file, randomBytes(32).toString("hex"), { flag: "wx", mode: 0o600 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
  }
  const salt = readFileSync(file, "utf8").trim();
  generated.set(file, salt);
  return salt;
}
