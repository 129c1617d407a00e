// One process of the sequencer race: appends COUNT receipts the way a served call does (the log row, then the receipt
// and its staged entry in one transaction), LANES at a time, while it also runs the sequencer in a loop, as every
// instance does. Prints the inference ids it appended as one JSON line.
import { logIdentity } from "../support/env";
import { randomUUID } from "node:crypto";
import { openPostgres } from "../../db";
import { attachReceipt } from "../../ledger/attach-receipt";
import { operatorKeypair, testKnob, testSetting } from "../support/env";
import { buildReceipt } from "../../receipts/build-receipt";
import { signReceipt } from "../../receipts/sign-receipt";
import { publishLog } from "../../transparency/publish-log";
import { createLogger } from "../../log";

/** Where this file's own sequencer rounds log: nowhere. */
const quietLog = createLogger("silent");

const count = testKnob("COUNT", 0);
const lanes = testKnob("LANES", 4);
const databaseUrl = testSetting("DATABASE_URL");
if (!databaseUrl || count <= 0) throw new Error("DATABASE_URL and COUNT are required");
const { prisma, close } = await openPostgres(databaseUrl, lanes + 2);
const ids: string[] = [];
let appending = true;
let published = 0;

async function append(): Promise<void> {
  const id = randomUUID();
  await prisma.inferenceLog.create({
    data: {
      id,
      agentPubkey: operatorKeypair().publicKeyBase58,
      network: "solana:test",
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
      agentPubkey: operatorKeypair().publicKeyBase58,
      upstream: "local",
      model: "local/echo-1",
      costUnits: 1n,
      prompt: { text: id },
      responseText: "r",
      timestampMs: Date.now(),
      inferenceId: id,
      pointsTotal: 1,
    }),
    operatorKeypair(),
  );
  await attachReceipt(prisma, id, receipt);
  ids.push(id);
}

const sequencer = (async () => {
  while (appending) {
    if (await publishLog(prisma, logIdentity(), quietLog, 64)) published++;
    await new Promise((r) => setTimeout(r, 5));
  }
})();
let next = 0;
await Promise.all(
  Array.from({ length: lanes }, async () => {
    while (next < count) {
      next++;
      await append();
    }
  }),
);
appending = false;
await sequencer;
process.stdout.write(`${JSON.stringify({ ids, published })}\n`);
await close();
