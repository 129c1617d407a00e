// Several processes on one PostgreSQL append receipts and run the sequencer at the same time, as several instances do.
// Every receipt ends up in the log exactly once, at the dense indices 0..N-1; every checkpoint any process signed is
// consistent with the next; the stored hashes are exactly the recomputed ones; and the final tree head equals an
// independent recomputation from the entries.
import { spawn } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { logIdentity, testEnv } from "../support/env";
import { publishLog } from "../../transparency/publish-log";
import { storedHashReader } from "../../transparency/read-log";
import {
  leafHash,
  newSubtrees,
  nodeHash,
  openCheckpoint,
  proveConsistency,
  rootOfLeaves,
  verifyConsistency,
} from "../../verify";
import { REPO_ROOT } from "../verify/vectors";
import { bundleForNode, type NodeBundle } from "../../../devtools/node-bundle";
import { startDbStack, type DbStack } from "../support/db-stack";
import { createLogger } from "../../log";

/** Where this file's own sequencer rounds log: nowhere. */
const quietLog = createLogger("silent");

const PROCESSES = 4;
const PER_PROCESS = 200;
let stack: DbStack;
/** append-child.ts bundled once: each racing process starts with plain node, not through tsx's loader. */
let appendChild: NodeBundle;
beforeAll(async () => {
  [stack, appendChild] = await Promise.all([
    startDbStack({ SERVICE_BASE_URL: "http://signet.test" }),
    bundleForNode("server/test/log/append-child.ts"),
  ]);
});
afterAll(async () => {
  await stack?.close();
  appendChild?.remove();
});

function child(): Promise<{ ids: string[]; published: number }> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, ["--conditions=react-server", appendChild.entry], {
      cwd: REPO_ROOT,
      env: testEnv({ COUNT: String(PER_PROCESS), LANES: "4" }),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    proc.stdout.on("data", (c: Buffer) => (out += c.toString()));
    proc.stderr.on("data", (c: Buffer) => (err += c.toString()));
    proc.on("close", (code) =>
      code === 0
        ? resolve(JSON.parse(out.trim().split("\n").at(-1)!) as { ids: string[]; published: number })
        : reject(new Error(`child exited ${code}: ${err.slice(-2000)}`)),
    );
  });
}

describe("the log's sequencer across processes", () => {
  it("gives every receipt appended by four racing processes exactly one dense index, and one consistent history", async () => {
    const db = stack.tdb.prisma;
    const runs = await Promise.all(Array.from({ length: PROCESSES }, child));
    while (await publishLog(db, logIdentity(), quietLog));
    const appended = runs.flatMap((r) => r.ids);
    expect(appended).toHaveLength(PROCESSES * PER_PROCESS);
    expect(new Set(appended).size).toBe(appended.length);
    // Sequencer rounds ran in more than one process while the appends went on.
    expect(runs.filter((r) => r.published > 0).length).toBeGreaterThan(1);

    const entries = await db.logEntry.findMany({ orderBy: { idx: "asc" } });
    expect(entries.map((e) => Number(e.idx))).toEqual(appended.map((_, i) => i));
    expect(entries.map((e) => e.inferenceId).sort()).toEqual([...appended].sort());
    expect((await db.$queryRaw<{ n: bigint }[]>`SELECT count(*) AS n FROM log_staging`)[0]!.n).toBe(0n);

    const leaves = entries.map((e) => leafHash(new Uint8Array(e.entry)));
    const expected = new Map<string, string>();
    for (const { level, index } of newSubtrees(0, leaves.length)) {
      const h =
        level === 0
          ? leaves[index]!
          : nodeHash(
              Buffer.from(expected.get(`${level - 1}/${2 * index}`)!, "hex"),
              Buffer.from(expected.get(`${level - 1}/${2 * index + 1}`)!, "hex"),
            );
      expected.set(`${level}/${index}`, Buffer.from(h).toString("hex"));
    }
    // Only the tiles' rows are stored: heights 0, 8, 16, …
    const stored = await db.logHash.findMany();
    expect(new Map(stored.map((h) => [`${h.level}/${h.idx}`, Buffer.from(h.hash).toString("hex")]))).toEqual(
      new Map([...expected].filter(([key]) => Number(key.split("/")[0]) % 8 === 0)),
    );

    const checkpoints = await db.logCheckpoint.findMany({ orderBy: { size: "asc" } });
    expect(checkpoints.length).toBeGreaterThan(PROCESSES);
    const last = checkpoints.at(-1)!;
    const opened = openCheckpoint(last.note, { logKey: logIdentity().verifierKey });
    if (!opened.ok) throw new Error(opened.reason);
    expect(opened.checkpoint.size).toBe(leaves.length);
    expect(Buffer.from(opened.checkpoint.root).equals(Buffer.from(rootOfLeaves(leaves)))).toBe(true);
    const read = storedHashReader(db, leaves.length);
    for (let i = 1; i < checkpoints.length; i++) {
      const [a, b] = [checkpoints[i - 1]!, checkpoints[i]!];
      expect(openCheckpoint(a.note, { logKey: logIdentity().verifierKey }).ok).toBe(true);
      const proof = await proveConsistency(Number(a.size), Number(b.size), read);
      expect(
        verifyConsistency(Number(a.size), Number(b.size), new Uint8Array(a.root), new Uint8Array(b.root), proof),
      ).toBe(true);
    }
  });
});
