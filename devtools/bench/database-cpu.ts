// The CPU a PostgreSQL server on this machine spends, read from /proc (the processes named `postgres`): with the
// bench's own CPU, what a call costs the whole machine. Null where it cannot be read (another host, no /proc).
import { readdirSync, readFileSync } from "node:fs";

/** Clock ticks per second of /proc's utime and stime (USER_HZ: 100 on Linux). */
const TICKS_PER_S = 100;

/** The local PostgreSQL server's CPU time so far (user + system, all its processes), ms; null when none is visible. */
export function readDatabaseCpuMs(procDir = "/proc"): number | null {
  let entries: string[];
  try {
    entries = readdirSync(procDir);
  } catch {
    return null;
  }
  let ticks = 0;
  let seen = 0;
  for (const pid of entries) {
    if (!/^\d+$/.test(pid)) continue;
    let stat: string;
    try {
      stat = readFileSync(`${procDir}/${pid}/stat`, "utf8");
    } catch {
      continue; // exited between the listing and the read
    }
    const parsed = parseProcStat(stat);
    if (parsed?.comm !== "postgres") continue;
    ticks += parsed.utime + parsed.stime;
    seen++;
  }
  return seen === 0 ? null : (ticks * 1000) / TICKS_PER_S;
}

/** A /proc/<pid>/stat line's command name and CPU ticks; null when it is not one. */
export function parseProcStat(line: string): { comm: string; utime: number; stime: number } | null {
  // The command name is in parentheses and may itself hold spaces or parentheses: the fields resume after the last ")".
  const open = line.indexOf("(");
  const close = line.lastIndexOf(")");
  if (open < 0 || close < open) return null;
  const fields = line.slice(close + 2).split(" ");
  // After the name: state (3), ppid (4), …, utime (14), stime (15), counting from pid as 1.
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  if (!Number.isInteger(utime) || !Number.isInteger(stime)) return null;
  return { comm: line.slice(open + 1, close), utime, stime };
}
