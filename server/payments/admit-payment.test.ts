// Admission over fakes: the real claim statement on an in-memory database, an EVM chain and a model provider held in
// memory. A payment is checked (match, verify, allowlist) before one statement claims it; a refusal moves nothing.
import { describe, expect, it } from "vitest";
import { writeSetting } from "../settings/write-setting";
import { ANSWER_COST_UNITS } from "../test/support/fakes/fake-upstream";
import { createPaymentWorld, useWorldDatabase, type PaymentWorld } from "../test/support/fakes/payment-world";

const database = useWorldDatabase();

async function paymentCount(world: PaymentWorld): Promise<number> {
  return world.db.payment.count();
}

describe("admitting a paid chat call", () => {
  it("answers a call without a payment header with the 402 challenge, asking nothing of the chain", async () => {
    const world = await createPaymentWorld(database());
    const before = await paymentCount(world);
    const { error } = await world.call(null);
    expect(error?.code).toBe("payment_required");
    expect(error?.headers?.["PAYMENT-REQUIRED"]).toBeDefined();
    expect(world.chain.calls).toEqual([]);
    expect(await paymentCount(world)).toBe(before);
  });

  it("refuses a header that is not a payment as malformed, claiming nothing", async () => {
    const world = await createPaymentWorld(database());
    const before = await paymentCount(world);
    const { error } = await world.call("not a payment");
    expect(error?.code).toBe("payment_required");
    expect(error?.details.reason).toBe("malformed");
    expect(world.chain.calls).toEqual([]);
    expect(await paymentCount(world)).toBe(before);
  });

  it("refuses a payment made for another amount as requirements_mismatch, before verifying it", async () => {
    const world = await createPaymentWorld(database());
    const accepted = await world.requirements();
    const payment = world.chain.pay({ ...accepted, amount: (BigInt(accepted.amount) - 1n).toString() });
    world.chain.fund(payment.payer, BigInt(accepted.amount));
    const { error } = await world.call(payment);
    expect(error?.code).toBe("payment_required");
    expect(error?.details.reason).toBe("requirements_mismatch");
    expect(world.chain.calls).toEqual([]);
    expect(await world.db.payment.count({ where: { payer: payment.payer } })).toBe(0);
  });

  it.each([
    ["a bad signature", { invalidReason: "invalid_exact_evm_payload_signature" }, "payment_invalid"],
    [
      "an authorization past validBefore",
      { invalidReason: "invalid_exact_evm_payload_authorization_valid_before" },
      "payment_expired",
    ],
    ["a payer short of funds", { invalidReason: "insufficient_funds" }, "insufficient_balance"],
  ])(
    "refuses a payment the chain refuses for %s as %s, claiming and settling nothing",
    async (_what, refusal, reason) => {
      const world = await createPaymentWorld(database());
      const payment = await world.pay();
      world.chain.refuseVerifies(refusal);
      const { error } = await world.call(payment);
      expect(error?.code).toBe("payment_required");
      expect(error?.details.reason).toBe(reason);
      expect(world.chain.calls).toEqual(["verify"]);
      expect(await world.db.payment.count({ where: { payer: payment.payer } })).toBe(0);
      expect(await world.ledger(payment.payer)).toEqual([]);
    },
  );

  it("answers chain_unavailable when the verification cannot reach the chain, claiming nothing", async () => {
    const world = await createPaymentWorld(database());
    const payment = await world.pay();
    world.chain.failNextVerify();
    const { error } = await world.call(payment);
    expect(error?.code).toBe("chain_unavailable");
    expect(await world.db.payment.count({ where: { payer: payment.payer } })).toBe(0);
  });

  it("claims a verified payment, settles it once, credits it and serves the call from its hold", async () => {
    const world = await createPaymentWorld(database());
    const payment = await world.pay();
    const price = BigInt((await world.requirements()).amount);
    const { served, error } = await world.call(payment);
    expect(error).toBeUndefined();
    expect(served?.headers["X-Service-Receipt"]).toBeDefined();
    expect(world.chain.calls.filter((c) => c === "settle")).toHaveLength(1);
    expect(world.chain.spendOf(payment).state).toBe("used");
    const row = await world.row(payment);
    expect(row).toMatchObject({ status: "served", txSignature: world.chain.spendOf(payment).transaction });
    const ledger = await world.ledger(payment.payer);
    // Credited the price and held it in one statement; the capture returned what the call did not cost.
    expect(ledger).toEqual([
      { kind: "hold", units: -price },
      { kind: "hold_release", units: price - ANSWER_COST_UNITS },
      { kind: "payment_credit", units: price },
    ]);
    expect(await world.balance(payment.payer)).toBe(price - ANSWER_COST_UNITS);
    expect(await world.hold(row.id)).toEqual({ status: "captured", units: price, chargedUnits: ANSWER_COST_UNITS });
    expect(world.upstream.requests).toHaveLength(1);
  });

  it("settles a streamed call before its first byte, streams the provider's pieces and records it once at the end", async () => {
    const world = await createPaymentWorld(database());
    const payment = await world.pay();
    world.upstream.script({ stream: ["one ", "two ", "three"] });
    const { served, error } = await world.call(payment, { stream: true });
    expect(error).toBeUndefined();
    // Settled and held before the stream began.
    expect((await world.row(payment)).status).toBe("settled");
    const text = await new Response(served!.stream).text();
    expect(text).toContain("three");
    expect(text.trimEnd().endsWith("data: [DONE]")).toBe(true);
    const row = await world.row(payment);
    expect(row.status).toBe("served");
    expect(await world.hold(row.id)).toMatchObject({ status: "captured", chargedUnits: ANSWER_COST_UNITS });
    expect((await world.ledger(payment.payer)).filter((e) => e.kind === "payment_credit")).toHaveLength(1);
  });

  it("gives the same header sent again its stored answer: no second settle, call or ledger entry", async () => {
    const world = await createPaymentWorld(database());
    const payment = await world.pay();
    const first = await world.call(payment);
    expect(first.error).toBeUndefined();
    const ledger = await world.ledger(payment.payer);
    const again = await world.call(payment);
    expect(again.error).toBeUndefined();
    expect(again.served?.body).toEqual(first.served?.body);
    expect(world.chain.calls.filter((c) => c === "settle")).toHaveLength(1);
    expect(world.upstream.requests).toHaveLength(1);
    expect(await world.ledger(payment.payer)).toEqual(ledger);
    expect((await world.row(payment)).status).toBe("served");
  });

  it("refuses a second payment of the payer under the first one's payment id, before settling it", async () => {
    const world = await createPaymentWorld(database());
    const first = await world.pay({ paymentId: "pay_0123456789abcdef" });
    expect((await world.call(first)).error).toBeUndefined();
    const second = await world.pay({ payer: first.payer, paymentId: "pay_0123456789abcdef" });
    const { error } = await world.call(second);
    expect(error?.code).toBe("payment_id_conflict");
    expect(world.chain.spendOf(second).state).toBe("unused");
    expect(await world.db.payment.count({ where: { payer: first.payer } })).toBe(1);
  });

  it("plans a call again when the settings changed under it, and claims it under the stored ones", async () => {
    const world = await createPaymentWorld(database());
    // The runtime's guess of the stored settings, from a call planned before the change.
    expect((await world.call(null)).error?.code).toBe("payment_required");
    const payment = await world.pay();
    await world.db.$executeRaw`INSERT INTO settings (key, value) VALUES ('SERVICE_GRANT_MAX_PER_IP', '7')
      ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value`;
    try {
      const { error } = await world.call(payment);
      expect(error).toBeUndefined();
      // Each plan verifies the payment: the stale one's claim took nothing, the replanned one's settled it.
      expect(world.chain.calls.filter((c) => c === "verify")).toHaveLength(2);
      expect((await world.row(payment)).status).toBe("served");
    } finally {
      await world.db.$executeRaw`DELETE FROM settings WHERE key = 'SERVICE_GRANT_MAX_PER_IP'`;
    }
  });
});

describe("the mainnet allowlist", () => {
  it("refuses a payer the allowlist does not name, and serves one it names", async () => {
    const world = await createPaymentWorld(database(), { network: "base" });
    const allowed = await world.pay();
    for (const [key, value] of [
      ["SERVICE_MAINNET_ENABLED", "true"],
      ["SERVICE_ALLOWED_AGENTS", allowed.payer],
    ] as const) {
      const written = await writeSetting(world.db, world.ctx.config, key, value, "test");
      expect(written.ok).toBe(true);
    }
    try {
      const stranger = await world.pay();
      const refused = await world.call(stranger);
      expect(refused.error?.code).toBe("agent_not_allowed");
      expect(world.chain.spendOf(stranger).state).toBe("unused");
      expect(await world.db.payment.count({ where: { payer: stranger.payer } })).toBe(0);
      const served = await world.call(allowed);
      expect(served.error).toBeUndefined();
      expect((await world.row(allowed)).status).toBe("served");
    } finally {
      await world.db
        .$executeRaw`DELETE FROM settings WHERE key IN ('SERVICE_MAINNET_ENABLED', 'SERVICE_ALLOWED_AGENTS')`;
    }
  });
});
