// A served paid call's answer is kept with its payment for PAID_ANSWER_RETENTION_HOURS, for the payer's repeat of the
// same request, then purged in bounded batches: older answers go, newer ones and the rows themselves stay.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { purgeKeptAnswers } from "../../payments/payment-store";
import { createTestDatabase, type TestDatabase } from "../support/test-db";

let tdb: TestDatabase;
beforeAll(async () => {
  tdb = await createTestDatabase(2);
});
afterAll(async () => tdb?.drop());

const HOUR = 3_600_000;
const servedWithAnswer = async (hoursAgo: number): Promise<string> => {
  const id = randomUUID();
  await tdb.prisma.$executeRaw`
    INSERT INTO payments (id, payload_hash, network, payer, pay_to, units, purpose, route, status, answer, updated_at)
    VALUES (${id}::uuid, ${`key-${id}`}, 'solana:devnet', 'payer', 'deposit', 1000, 'call', 'chat', 'served', '{"body":{"id":"chatcmpl-x"},"x402_receipt":null}' ,
            now() - make_interval(secs => ${hoursAgo * 3600}::double precision))`;
  return id;
};
const answerOf = async (id: string) => (await tdb.prisma.payment.findUniqueOrThrow({ where: { id } })).answer;

describe("kept answers", () => {
  it("purges the answers older than the retention, in batches, and keeps the rest", async () => {
    const old = await Promise.all([25, 30, 48].map(servedWithAnswer));
    const fresh = await servedWithAnswer(1);
    expect(await purgeKeptAnswers(tdb.prisma, 24 * HOUR, 2)).toBe(2);
    expect(await purgeKeptAnswers(tdb.prisma, 24 * HOUR, 2)).toBe(1);
    expect(await purgeKeptAnswers(tdb.prisma, 24 * HOUR, 2)).toBe(0);
    for (const id of old) {
      expect(await answerOf(id)).toBeNull();
      expect((await tdb.prisma.payment.findUniqueOrThrow({ where: { id } })).status).toBe("served");
    }
    expect(await answerOf(fresh)).toBe('{"body":{"id":"chatcmpl-x"},"x402_receipt":null}');
  });
});
