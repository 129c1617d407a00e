// One table owns the payment states: payment-states.ts. The database holds the same table (payment_transitions), a
// CHECK refuses any other state and a trigger any other move, so a write outside the table fails wherever it is
// written. Every (from, to) pair of states is tried against the database here: exactly the table's moves succeed.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PAYMENT_STATES, PAYMENT_TRANSITIONS, transitionPairs, type PaymentStatus } from "../../ledger/payment-states";
import { createTestDatabase, type TestDatabase } from "../support/test-db";

let tdb: TestDatabase;
beforeAll(async () => {
  tdb = await createTestDatabase(2);
});
afterAll(async () => tdb?.drop());

const paymentIn = async (status: PaymentStatus): Promise<string> => {
  const id = randomUUID();
  await tdb.prisma.$executeRaw`
    INSERT INTO payments (id, payload_hash, network, payer, pay_to, units, purpose, route, status)
    VALUES (${id}::uuid, ${`key-${id}`}, 'solana:devnet', 'payer', 'deposit', 1000, 'call', 'chat', ${status})`;
  return id;
};
const move = (id: string, to: string) =>
  tdb.prisma.$executeRaw`UPDATE payments SET status = ${to} WHERE id = ${id}::uuid`;

describe("the payment state table", () => {
  it("is the table the database holds", async () => {
    const rows = await tdb.prisma.paymentTransition.findMany();
    const held = rows.map((r) => `${r.fromStatus}→${r.toStatus}`).sort();
    expect(held).toEqual(
      transitionPairs()
        .map(([from, to]) => `${from}→${to}`)
        .sort(),
    );
  });

  it("names every state, and no state is a dead end but the ones that end a payment", () => {
    expect(Object.keys(PAYMENT_TRANSITIONS).sort()).toEqual([...PAYMENT_STATES].sort());
    const ends = PAYMENT_STATES.filter((s) => PAYMENT_TRANSITIONS[s].length === 0);
    expect(ends).toEqual(["served", "refunded", "expired"]);
  });

  it.each(PAYMENT_STATES)("lets a %s payment make exactly the table's moves", async (from) => {
    const allowed = new Set<string>(PAYMENT_TRANSITIONS[from]);
    for (const to of PAYMENT_STATES) {
      if (to === from) continue;
      const id = await paymentIn(from);
      if (allowed.has(to)) {
        expect(await move(id, to), `${from} → ${to}`).toBe(1);
      } else {
        await expect(move(id, to), `${from} → ${to}`).rejects.toThrow(/may not move/);
        expect((await tdb.prisma.payment.findUniqueOrThrow({ where: { id } })).status).toBe(from);
      }
    }
  });

  it("refuses a state that is not in the table", async () => {
    await expect(paymentIn("undone" as PaymentStatus)).rejects.toThrow(/payments_status_check/);
  });
});
