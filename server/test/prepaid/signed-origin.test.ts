// Signed prepaid requests name the service they are for: the agent signs `signet-prepaid-v1\n<METHOD> <origin><path>\n`
// followed by the body (or, for a credits read, the timestamp), with the service's configured public origin, so a
// request captured on one deployment cannot be replayed on another within its 60 s window. The old form, which named
// no service, is refused with a message that says what changed.
import { utf8ToBytes } from "@noble/hashes/utils.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POST as inferenceRoute } from "@/app/api/v1/inference/route";
import { GET as creditsRoute } from "@/app/api/v1/credits/[pubkey]/route";
import { newNonce } from "../../agent/sign-request";
import { generateKeypair, type Ed25519Keypair } from "../../keys/parse-secret-key";
import { signDetached } from "../../receipts/sign-receipt";
import { startPaidStack, type PaidStack } from "../support/paid-stack";

const ORIGIN = "https://signet.example";
let stack: PaidStack;
beforeAll(async () => {
  stack = await startPaidStack({ env: { SERVICE_BASE_URL: ORIGIN } });
});
afterAll(async () => stack?.close());

/** Signs `prefix` + `body` by hand, so the test states the exact bytes of each form. */
const sign = (kp: Ed25519Keypair, prefix: string, body: string) => signDetached(utf8ToBytes(`${prefix}${body}`), kp);

async function infer(kp: Ed25519Keypair, prefixFor: (path: string) => string): Promise<Response> {
  const text = JSON.stringify({
    model: "local/echo-1",
    prompt: "whose request?",
    nonce: newNonce(),
    timestamp: Date.now(),
  });
  const headers = {
    "content-type": "application/json",
    "X-Agent-Pubkey": kp.publicKeyBase58,
    "X-Agent-Signature": sign(kp, prefixFor("/api/v1/inference"), text),
  };
  return inferenceRoute(new Request(`${ORIGIN}/api/v1/inference`, { method: "POST", headers, body: text }), {});
}

async function readCredits(kp: Ed25519Keypair, prefixFor: (path: string) => string): Promise<Response> {
  const timestamp = String(Date.now());
  const path = `/api/v1/credits/${kp.publicKeyBase58}`;
  const headers = {
    "X-Agent-Pubkey": kp.publicKeyBase58,
    "X-Agent-Timestamp": timestamp,
    "X-Agent-Signature": sign(kp, prefixFor(path), timestamp),
  };
  return creditsRoute(new Request(`${ORIGIN}${path}?network=devnet`, { headers }), {
    params: Promise.resolve({ pubkey: kp.publicKeyBase58 }),
  });
}

const FORMS = {
  current: (method: string) => (path: string) => `signet-prepaid-v1\n${method} ${ORIGIN}${path}\n`,
  otherOrigin: (method: string) => (path: string) =>
    `signet-prepaid-v1\n${method} https://other-deployment.example${path}\n`,
  old: (method: string) => (path: string) => `${method} ${path}\n`,
};

async function expectOldFormRefused(res: Response): Promise<void> {
  expect(res.status).toBe(401);
  const out = (await res.json()) as { error: { code: string; detail: string } };
  expect(out.error.code).toBe("invalid_signature");
  expect(out.error.detail).toMatch(/^the signed message must start with signet-prepaid-v1 and name the origin/);
  expect(out.error.detail).toContain(ORIGIN);
}

describe("POST /api/v1/inference signatures", () => {
  it("serves a request signed in the current form for this service's origin", async () => {
    const kp = generateKeypair();
    await stack.credit(kp.publicKeyBase58, 100_000n);
    expect((await infer(kp, FORMS.current("POST"))).status).toBe(200);
  });

  it("refuses a request signed for another deployment's origin with 401 invalid_signature", async () => {
    const kp = generateKeypair();
    await stack.credit(kp.publicKeyBase58, 100_000n);
    const res = await infer(kp, FORMS.otherOrigin("POST"));
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ error: { code: "invalid_signature" } });
  });

  it("refuses the old form (no version, no origin) with 401 invalid_signature saying what changed", async () => {
    const kp = generateKeypair();
    await stack.credit(kp.publicKeyBase58, 100_000n);
    await expectOldFormRefused(await infer(kp, FORMS.old("POST")));
  });
});

describe("GET /api/v1/credits/<pubkey> signatures", () => {
  it("serves a read signed in the current form for this service's origin", async () => {
    expect((await readCredits(generateKeypair(), FORMS.current("GET"))).status).toBe(200);
  });

  it("refuses a read signed for another deployment's origin", async () => {
    const res = await readCredits(generateKeypair(), FORMS.otherOrigin("GET"));
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ error: { code: "invalid_signature" } });
  });

  it("refuses the old form with a message saying what changed", async () => {
    await expectOldFormRefused(await readCredits(generateKeypair(), FORMS.old("GET")));
  });
});
