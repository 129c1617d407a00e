// The receipt log on the embedded database `npm run dev` uses (PGlite, PostgreSQL 18): staging by the receipt's own
// statement, a sequencer round, and a proof that verifies; the same SQL as on PostgreSQL 15.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openPglite, type PrismaClient } from "../../db";
import { attachReceipt } from "../../ledger/attach-receipt";
import { operatorKeypair, testConfig } from "../support/env";
import { buildReceipt } from "../../receipts/build-receipt";
import { signReceipt } from "../../receipts/sign-receipt";
import { logIdentity } from "../support/env";
import { publishLog } from "../../transparency/publish-log";
import { proveReceiptInclusion } from "../../transparency/read-log";
import { verifyReceiptInclusion } from "../../verify";
import { setEnv } from "../support/env";
import { createLogger } from "../../log";
import { migratedPgliteDir } from "../support/pglite-template";

/** Where this file's own sequencer rounds log: nowhere. */
const quietLog = createLogger("silent");

let db: PrismaClient;
let close: () => Promise<void>;
let restore: () => Promise<void>;
beforeAll(async () => {
  restore = setEnv({
    NODE_ENV: "test",
    DATABASE_URL: undefined,
    SIGNET_DATA_DIR: mkdtempSync(path.join(tmpdir(), "signet-pglite-log-")),
    SERVICE_BASE_URL: "http://signet.test",
  });
  const open = await openPglite(await migratedPgliteDir(path.join(testConfig().dataDir, "pglite")));
  db = open.prisma;
  close = open.close;
}, 60_000);
afterAll(async () => {
  await close?.();
  await restore?.();
});

describe("the receipt log on PGlite", () => {
  it("stages, sequences and proves receipts", async () => {
    const receipts = [];
    for (let i = 0; i < 5; i++) {
      const id = randomUUID();
      await db.inferenceLog.create({
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
      await attachReceipt(db, id, receipt);
      receipts.push(receipt);
      if (i === 2) expect(await publishLog(db, logIdentity(), quietLog)).toMatchObject({ size: 3, appended: 3 });
    }
    // Sent again after a lost answer: staged once.
    await attachReceipt(db, String(receipts[4]!.inference_id), receipts[4]!);
    expect(await publishLog(db, logIdentity(), quietLog)).toMatchObject({ size: 5, appended: 2 });
    expect(await publishLog(db, logIdentity(), quietLog)).toBeNull();
    for (const receipt of receipts) {
      const proof = await proveReceiptInclusion(db, logIdentity(), String(receipt.inference_id));
      expect(
        verifyReceiptInclusion(receipt as unknown as Record<string, unknown>, proof, {
          logKey: logIdentity().verifierKey,
        }),
      ).toMatchObject({ ok: true, treeSize: 5 });
    }
  }, 60_000);
});
