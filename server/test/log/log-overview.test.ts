// readLogOverview() against PostgreSQL: what the /log page shows. An empty log is a signed checkpoint of size 0 and no
// entries; once receipts are sequenced, the size, the checkpoint's origin and root (the note's own, signed by the
// published key), the newest entries first with their inference ids, only entries the checkpoint covers, and the
// witnesses whose cosignatures the log holds.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { attachReceipt } from "../../ledger/attach-receipt";
import { buildReceipt } from "../../receipts/build-receipt";
import { signReceipt } from "../../receipts/sign-receipt";
import { publishAll } from "../support/publish-all";
import { readLogOverview } from "../../transparency/read-log-overview";
import { EMPTY_ROOT, encodeBase64, openCheckpoint } from "../../verify";
import { startDbStack, type DbStack } from "../support/db-stack";
import { logIdentity, operatorKeypair } from "../support/env";
import { createLogger } from "../../log";

/** Where this file's own sequencer rounds log: nowhere. */
const quietLog = createLogger("silent");

let stack: DbStack;
beforeAll(async () => {
  stack = await startDbStack({ SERVICE_BASE_URL: "http://signet.test" });
});
afterAll(async () => stack?.close());

/** Serves `n` receipts and sequences them; returns their inference ids in log order. */
async function appendReceipts(n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const id = randomUUID();
    await stack.tdb.prisma.inferenceLog.create({
      data: {
        id,
        agentPubkey: "a",
        network: "n",
        route: "inference",
        model: "local/echo-1",
        upstream: "local",
        costUnits: 1n,
        latencyMs: 1,
        status: "served",
      },
    });
    const receipt = signReceipt(
      buildReceipt({
        agentPubkey: "a",
        upstream: "local",
        model: "local/echo-1",
        costUnits: 1n,
        prompt: { text: id },
        responseText: "r",
        timestampMs: 1,
        inferenceId: id,
        pointsTotal: i + 1,
      }),
      operatorKeypair(),
    );
    await attachReceipt(stack.tdb.prisma, id, receipt);
    ids.push(id);
  }
  await publishAll(stack.tdb.prisma, logIdentity(), quietLog);
  return ids;
}

describe("readLogOverview()", () => {
  it("shows an empty log as its signed checkpoint of size 0, the empty tree's root, and no entries", async () => {
    const overview = await readLogOverview(stack.tdb.prisma, logIdentity());
    expect(overview.size).toBe(0);
    expect(overview.recent).toEqual([]);
    expect(overview.checkpoint).toMatchObject({
      origin: "signet.test/log",
      root: encodeBase64(EMPTY_ROOT),
      cosignedBy: [],
    });
    expect(overview.key).toMatchObject({
      origin: "signet.test/log",
      verifier_key: logIdentity().verifierKey,
      checkpoint_url: "/log/checkpoint",
    });
  });

  it("shows the log's size, the latest checkpoint as signed under the published key, and the newest entries first", async () => {
    const ids = await appendReceipts(5);
    const overview = await readLogOverview(stack.tdb.prisma, logIdentity());
    expect(overview.size).toBe(5);
    const opened = openCheckpoint(overview.checkpoint.note, { logKey: overview.key.verifier_key });
    if (!opened.ok) throw new Error(opened.reason);
    expect(opened.checkpoint.size).toBe(5);
    expect(overview.checkpoint.origin).toBe(opened.checkpoint.origin);
    expect(overview.checkpoint.root).toBe(encodeBase64(opened.checkpoint.root));
    expect(overview.recent.map((e) => [e.index, e.inferenceId])).toEqual([4, 3, 2, 1, 0].map((i) => [i, ids[i]]));
    for (const e of overview.recent) expect(Math.abs(e.loggedAtMs - Date.now())).toBeLessThan(60_000);
    expect((await readLogOverview(stack.tdb.prisma, logIdentity(), 2)).recent.map((e) => e.index)).toEqual([4, 3]);
  });

  it("lists only entries the checkpoint covers, and the witnesses whose cosignatures the log holds for it", async () => {
    // An entry written after the checkpoint was read (a sequencer round committing in between) is not published yet.
    await stack.tdb.prisma.logEntry.create({
      data: { idx: 5n, inferenceId: randomUUID(), entry: Buffer.from("not yet published") },
    });
    await stack.tdb.prisma.logCosignature.create({
      data: {
        size: 5n,
        witness: "witness.example/w1",
        line: `— witness.example/w1 ${Buffer.alloc(76).toString("base64")}\n`,
      },
    });
    const overview = await readLogOverview(stack.tdb.prisma, logIdentity());
    expect(overview.size).toBe(5);
    expect(overview.recent[0]!.index).toBe(4);
    expect(overview.checkpoint.cosignedBy).toEqual(["witness.example/w1"]);
    await stack.tdb.prisma.logCosignature.deleteMany({ where: { size: 5n } });
    await stack.tdb.prisma.logEntry.delete({ where: { idx: 5n } });
  });

  it.each([0, 101, 2.5, Number.NaN])("rejects malformed input: a limit of %s entries", async (limit) => {
    await expect(readLogOverview(stack.tdb.prisma, logIdentity(), limit)).rejects.toThrow(
      /limit must be a whole number from 1 to 100/,
    );
  });
});
