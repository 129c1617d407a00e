// Operator sessions and the tRPC endpoint at their edges: sign-out revokes earlier tokens, mutations trust only the
// configured origin, and a batch past the cap is refused before any procedure runs.
import { utf8ToBytes } from "@noble/hashes/utils.js";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { GET as trpcGet, POST as trpcPost } from "@/app/api/trpc/[trpc]/route";
import { GET as challengeRoute } from "@/app/api/operator/challenge/route";
import { DELETE as signOutRoute, POST as signInRoute } from "@/app/api/operator/session/route";
import { generateKeypair, type Ed25519Keypair } from "../../keys/parse-secret-key";
import { signDetached } from "../../receipts/sign-receipt";
import { startDbStack, type DbStack } from "../support/db-stack";

// Counts receipt lookups: each explorer.receipt call in a batch is one database lookup.
const lookups = vi.hoisted(() => ({ count: 0 }));
vi.mock("@/server/receipts/find-receipt", async (original) => {
  const actual = await original<typeof import("@/server/receipts/find-receipt")>();
  return {
    ...actual,
    findReceipt: (...args: Parameters<typeof actual.findReceipt>) => {
      lookups.count += 1;
      return actual.findReceipt(...args);
    },
  };
});

const operator = generateKeypair();
const ORIGIN = "http://localhost:3000";
let stack: DbStack;

beforeAll(async () => {
  stack = await startDbStack({ SERVICE_OPERATOR_PUBKEYS: operator.publicKeyBase58, SERVICE_BASE_URL: ORIGIN });
});
afterAll(async () => stack?.close());

async function signInAs(kp: Ed25519Keypair): Promise<string> {
  const { message } = (await (await challengeRoute(new Request(`${ORIGIN}/api/operator/challenge`), {})).json()) as {
    message: string;
  };
  const res = await signInRoute(
    new Request(`${ORIGIN}/api/operator/session`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ pubkey: kp.publicKeyBase58, message, signature: signDetached(utf8ToBytes(message), kp) }),
    }),
    {},
  );
  expect(res.status).toBe(200);
  return res.headers.get("set-cookie")!.split(";")[0]!;
}

const whoami = (cookie: string) =>
  trpcGet(
    new Request(`${ORIGIN}/api/trpc/dashboard.whoami?input=${encodeURIComponent("{}")}`, { headers: { cookie } }),
  );
const setSetting = (headers: Record<string, string>) =>
  trpcPost(
    new Request(`${ORIGIN}/api/trpc/settings.set`, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify({ key: "X402_FLAT_PRICE_USDC", value: "0.002" }),
    }),
  );

describe("operator sign-out", () => {
  it("revokes a session token captured before sign-out, and every other token issued before it", async () => {
    const captured = await signInAs(operator);
    const otherTab = await signInAs(operator);
    expect((await whoami(captured)).status).toBe(200);

    const out = await signOutRoute(
      new Request(`${ORIGIN}/api/operator/session`, { method: "DELETE", headers: { cookie: captured } }),
      {},
    );
    expect(out.status).toBe(200);
    expect(out.headers.get("set-cookie")).toMatch(/Max-Age=0/);

    expect((await whoami(captured)).status).toBe(401);
    expect((await whoami(otherTab)).status).toBe(401);
    expect((await setSetting({ cookie: captured, origin: ORIGIN })).status).toBe(401);
    // Signing in again works, and the new token is unaffected by the earlier sign-out.
    expect((await whoami(await signInAs(operator))).status).toBe(200);
  });

  it("answers a sign-out without a valid session with ok and a cleared cookie (nothing to revoke)", async () => {
    for (const headers of [{}, { cookie: "signet_session=abc.def" }] as Record<string, string>[]) {
      const res = await signOutRoute(new Request(`${ORIGIN}/api/operator/session`, { method: "DELETE", headers }), {});
      expect(res.status).toBe(200);
      expect(res.headers.get("set-cookie")).toMatch(/Max-Age=0/);
    }
  });
});

describe("tRPC mutation origin check", () => {
  it("refuses a mutation whose Origin equals a forged Host header but not the configured base URL", async () => {
    const cookie = await signInAs(operator);
    // Audits written before this test (by any other) are not this test's business: only that the refusal adds none.
    const audits = await stack.tdb.prisma.settingAudit.count();
    const forged = await setSetting({ cookie, origin: "http://evil.example", host: "evil.example" });
    expect(forged.status).toBe(403);
    expect(await stack.tdb.prisma.settingAudit.count()).toBe(audits);
    // The configured origin still works.
    expect((await setSetting({ cookie, origin: ORIGIN, host: "evil.example" })).status).toBe(200);
  });
});

describe("tRPC batches", () => {
  beforeEach(() => {
    lookups.count = 0;
  });

  const batchGet = (size: number) => {
    const paths = Array.from({ length: size }, () => "explorer.receipt").join(",");
    const input = Object.fromEntries(Array.from({ length: size }, (_, i) => [String(i), { id: `missing-${i}` }]));
    return trpcGet(
      new Request(`${ORIGIN}/api/trpc/${paths}?batch=1&input=${encodeURIComponent(JSON.stringify(input))}`),
    );
  };

  it("refuses a public batch over the cap with 400 and a clear error, before any lookup", async () => {
    const res = await batchGet(150);
    expect(res.status).toBe(400);
    const body = JSON.stringify(await res.json());
    expect(body).toMatch(/batch/i);
    expect(lookups.count).toBe(0);
  });

  it("serves a batch at the cap, one lookup per call", async () => {
    const res = await batchGet(10);
    expect(res.status).not.toBe(400);
    expect(lookups.count).toBe(10);
  });
});
