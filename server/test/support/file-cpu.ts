// Each test file's CPU time, for the run's file list: the worker's own and that of the child processes it waited for
// (the CLI runs, the servers a file starts), from before the file is imported to its last hook. A worker runs one file
// at a time, so the difference is the file's. PostgreSQL's backends, and children still running when the file ends,
// are not counted. Linux only (/proc); elsewhere nothing is recorded.
import { readFileSync } from "node:fs";
import { afterAll } from "vitest";

/** The kernel's clock ticks per second for /proc times (USER_HZ): 100 on every Linux architecture Node runs on. */
const TICKS_PER_SECOND = 100;

/** The CPU milliseconds of this process and the children it waited for, or null where /proc is not there. */
function processTreeCpuMs(): number | null {
  let stat: string;
  try {
    stat = readFileSync("/proc/self/stat", "utf8");
  } catch {
    return null;
  }
  // The command name (field 2) may hold spaces: the fields after it start past its closing parenthesis.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // utime, stime, cutime and cstime are fields 14 to 17, so 11 to 14 of the fields after the name.
  const ticks = fields.slice(11, 15).reduce((sum, f) => sum + Number(f), 0);
  return Number.isFinite(ticks) ? (ticks * 1000) / TICKS_PER_SECOND : null;
}

const atImport = processTreeCpuMs();

// eslint-disable-next-line no-empty-pattern -- vitest requires the fixtures (first) argument destructured
afterAll(({}, file) => {
  const now = processTreeCpuMs();
  if (atImport != null && now != null) file.meta.cpuMs = Math.round(now - atImport);
});

declare module "vitest" {
  interface TaskMeta {
    /** The file's CPU milliseconds (see server/test/support/file-cpu.ts); only on a file's task. */
    cpuMs?: number;
  }
}
