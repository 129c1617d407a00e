// Public lookups around paid calls: the receipt permalink, the model list, the hosted verdict for a paid receipt,
// and the settings CLI.
import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET as receiptRoute } from "@/app/api/v1/receipts/[id]/route";
import { GET as modelsRoute } from "@/app/api/v1/models/route";
import { POST as verifyRoute } from "@/app/api/verify/route";
import { canonicalJson, verifyEd25519 } from "../../verify";
import { testEnv, verifierKeypair } from "../support/env";
import { CHAT_URL, challengeOf, startPaidStack, type PaidStack } from "../support/paid-stack";

let stack: PaidStack;
let receipt: Record<string, unknown>;
let answer: unknown;
const messages = [{ role: "user", content: "look me up" }];

beforeAll(async () => {
  stack = await startPaidStack({ env: { X402_FLAT_PRICE_USDC: "0.001" } });
  const agent = await stack.newAgent();
  const res = await stack.payingFetch(agent)(CHAT_URL, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model: "local/echo-1", messages }),
  });
  answer = await res.json();
  receipt = JSON.parse(Buffer.from(res.headers.get("x-service-receipt")!, "base64").toString()) as Record<
    string,
    unknown
  >;
});
afterAll(async () => stack?.close());

const lookup = (id: string) =>
  receiptRoute(new Request(`http://signet.test/api/v1/receipts/${id}`), { params: Promise.resolve({ id }) });

describe("GET /api/v1/receipts/<id>", () => {
  it("returns the stored receipt by inference id and by tx signature, and no prompt or response text", async () => {
    const byId = await lookup(String(receipt.inference_id));
    expect(byId.status).toBe(200);
    const stored = await byId.json();
    expect(stored).toEqual(receipt);
    expect(JSON.stringify(stored)).not.toContain("look me up");
    const byTx = await lookup((receipt.payment as { tx_signature: string }).tx_signature);
    expect(await byTx.json()).toEqual(receipt);
  });

  it.each(["nope", "00000000-0000-0000-0000-000000000000", "1".repeat(88), "'; drop table payments; --"])(
    "answers 404 not_found for %s",
    async (id) => {
      const res = await lookup(encodeURIComponent(id));
      expect(res.status).toBe(404);
      expect(await res.json()).toMatchObject({ error: { code: "not_found" } });
    },
  );
});

describe("POST /api/verify on a real paid receipt", () => {
  it("returns a signed ok: true verdict, checking the payment on the local chain", async () => {
    const res = await verifyRoute(
      new Request("http://signet.test/api/verify", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ receipt, prompt: messages, response: answer, rpc: stack.devnet.url }),
      }),
      {},
    );
    const verdict = (await res.json()) as Record<string, unknown>;
    expect(verdict).toMatchObject({ v: 1, ok: true, receipt_signature: receipt.service_signature });
    const { verifier_signature: sig, ...rest } = verdict;
    expect(verifyEd25519(new TextEncoder().encode(canonicalJson(rest)), sig, verifierKeypair().publicKeyBase58)).toBe(
      true,
    );
  });
});

describe("GET /api/v1/models", () => {
  it("lists what is offered offline, with the per-call price", async () => {
    const res = await modelsRoute(new Request("http://signet.test/api/v1/models"), {});
    const body = (await res.json()) as { object: string; data: { id: string; pricing: { per_call_usdc: string } }[] };
    expect(body.object).toBe("list");
    expect(body.data.map((m) => m.id)).toEqual(["local/echo-1"]);
    expect(body.data[0]!.pricing.per_call_usdc).toBe("0.001");
  });
});

describe("signet settings", () => {
  const signet = (args: string[]) =>
    promisify(execFile)(process.execPath, [path.resolve(__dirname, "../../../bin/cli/signet.mjs"), ...args], {
      cwd: path.resolve(__dirname, "../../.."),
      env: testEnv(),
      encoding: "utf8",
    }).then(
      (r) => ({ code: 0, out: r.stdout }),
      (e: { code?: number; stderr?: string }) => ({ code: e.code ?? 1, out: e.stderr ?? "" }),
    );

  it("sets a validated value that the next request sees, and refuses an invalid one", async () => {
    expect((await signet(["settings", "set", "X402_FLAT_PRICE_USDC", "0.003"])).code).toBe(0);
    const res = await stack.chat({ body: { model: "local/echo-1", messages } });
    expect((await challengeOf(res)).accepts[0]!.amount).toBe("3000");
    const bad = await signet(["settings", "set", "SERVICE_MAINNET_ENABLED", "yes"]);
    expect(bad.code).toBe(2);
    expect(bad.out).toMatch(/SERVICE_MAINNET_ENABLED/);
    expect((await signet(["settings", "set", "NOT_A_KEY", "1"])).code).toBe(2);
    const audit = await stack.tdb.prisma.settingAudit.findMany({ where: { actor: "cli" } });
    expect(audit.map((a) => a.newValue)).toEqual(["0.003"]);
  });
});
