// Operator sign-in, sessions and the tRPC dashboard procedures, through the real route handlers on PostgreSQL.
import { execFile } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { utf8ToBytes } from "@noble/hashes/utils.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET as trpcGet, POST as trpcPost } from "@/app/api/trpc/[trpc]/route";
import { GET as challengeRoute } from "@/app/api/operator/challenge/route";
import { POST as signInRoute } from "@/app/api/operator/session/route";
import { GET as loginLinkRoute } from "@/app/api/operator/login-link/route";
import { generateKeypair, toSolanaCliJson, type Ed25519Keypair } from "../../keys/parse-secret-key";
import { signDetached } from "../../receipts/sign-receipt";
import { startPaidStack, CHAT_URL, type PaidStack } from "../support/paid-stack";
import { setEnv, tempDataDir } from "../support/env";

const operator = generateKeypair();
const outsider = generateKeypair();
const ORIGIN = "http://localhost:3000";
let stack: PaidStack;

beforeAll(async () => {
  stack = await startPaidStack({
    mainnet: true,
    env: {
      SERVICE_OPERATOR_PUBKEYS: operator.publicKeyBase58,
      SERVICE_BASE_URL: ORIGIN,
      X402_FLAT_PRICE_USDC: "0.001",
    },
  });
});
afterAll(async () => stack?.close());

async function signInAs(kp: Ed25519Keypair): Promise<Response> {
  const { message } = (await (await challengeRoute(new Request(`${ORIGIN}/api/operator/challenge`), {})).json()) as {
    message: string;
  };
  return signInRoute(
    new Request(`${ORIGIN}/api/operator/session`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ pubkey: kp.publicKeyBase58, message, signature: signDetached(utf8ToBytes(message), kp) }),
    }),
    {},
  );
}

const cookieOf = (res: Response) => res.headers.get("set-cookie")!.split(";")[0]!;

function query(pathName: string, input: unknown, cookie?: string) {
  const url = `${ORIGIN}/api/trpc/${pathName}?input=${encodeURIComponent(JSON.stringify(input ?? {}))}`;
  return trpcGet(new Request(url, { headers: cookie ? { cookie } : {} }));
}
function mutate(pathName: string, input: unknown, headers: Record<string, string>) {
  return trpcPost(
    new Request(`${ORIGIN}/api/trpc/${pathName}`, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify(input),
    }),
  );
}

describe("operator sign-in", () => {
  it("gives a listed operator an HttpOnly, SameSite=Strict, expiring session cookie", async () => {
    const res = await signInAs(operator);
    expect(res.status).toBe(200);
    const cookie = res.headers.get("set-cookie")!;
    expect(cookie).toMatch(/^signet_session=[^;]+;/);
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    expect(cookie).toMatch(/Max-Age=28800/);
  });

  it("refuses a non-operator wallet, a forged signature and a reused challenge", async () => {
    expect((await signInAs(outsider)).status).toBe(403);
    const { message } = (await (await challengeRoute(new Request(`${ORIGIN}/api/operator/challenge`), {})).json()) as {
      message: string;
    };
    const body = (signature: string) => JSON.stringify({ pubkey: operator.publicKeyBase58, message, signature });
    const forged = await signInRoute(
      new Request(`${ORIGIN}/api/operator/session`, {
        method: "POST",
        body: body(signDetached(utf8ToBytes(message), outsider)),
      }),
      {},
    );
    expect(forged.status).toBe(401);
    const good = body(signDetached(utf8ToBytes(message), operator));
    expect(
      (await signInRoute(new Request(`${ORIGIN}/api/operator/session`, { method: "POST", body: good }), {})).status,
    ).toBe(200);
    const reused = await signInRoute(new Request(`${ORIGIN}/api/operator/session`, { method: "POST", body: good }), {});
    expect(await reused.json()).toMatchObject({ error: { code: "challenge_expired" } });
  });

  it("redeems a CLI login link once", async () => {
    const keyFile = path.join(tempDataDir(), "operator.json");
    writeFileSync(keyFile, toSolanaCliJson(operator));
    const root = path.resolve(__dirname, "../../..");
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [path.join(root, "bin/cli/signet.mjs"), "operator", "login-link", "--key", keyFile, "--endpoint", ORIGIN],
      { cwd: root, encoding: "utf8" },
    );
    const link = stdout.trim();
    const first = await loginLinkRoute(new Request(link), {});
    expect(first.status).toBe(303);
    expect(first.headers.get("location")).toBe("/dashboard");
    expect((await query("dashboard.whoami", {}, cookieOf(first))).status).toBe(200);
    expect((await loginLinkRoute(new Request(link), {})).status).toBe(401);
  });
});

describe("tRPC operator procedures", () => {
  it("answer 401 with no data without a session, or with a forged cookie", async () => {
    for (const cookie of [
      undefined,
      "signet_session=abc.def",
      "signet_session=eyJzdWIiOiJ4IiwiZXhwIjo5OTk5OTk5OTk5OTk5fQ.AAAA",
    ]) {
      const res = await query("settings.get", {}, cookie);
      expect(res.status).toBe(401);
      expect(JSON.stringify(await res.json())).not.toContain("X402_FLAT_PRICE_USDC");
    }
    const direct = await mutate("settings.set", { key: "SERVICE_MAINNET_ENABLED", value: true }, { origin: ORIGIN });
    expect(direct.status).toBe(401);
  });

  it("refuse a cross-origin mutation even with a session", async () => {
    const cookie = cookieOf(await signInAs(operator));
    const res = await mutate(
      "settings.set",
      { key: "SERVICE_MAINNET_ENABLED", value: true },
      { cookie, origin: "http://evil.example" },
    );
    expect(res.status).toBe(403);
    const noOrigin = await mutate("settings.set", { key: "SERVICE_MAINNET_ENABLED", value: true }, { cookie });
    expect(noOrigin.status).toBe(403);
  });

  it("flip the kill switch for the next request, refuse invalid values by field, and audit both changes", async () => {
    const cookie = cookieOf(await signInAs(operator));
    const headers = { cookie, origin: ORIGIN };
    await mutate(
      "settings.set",
      { key: "SERVICE_MAINNET_DEPOSIT_ADDRESS", value: generateKeypair().publicKeyBase58 },
      headers,
    );
    expect(
      (
        (await (await mutate("settings.set", { key: "SERVICE_MAINNET_ENABLED", value: true }, headers)).json()) as {
          result: { data: unknown };
        }
      ).result.data,
    ).toEqual({ ok: true });
    const body = { model: "local/echo-1", messages: [{ role: "user", content: "hi" }], network: "mainnet" };
    expect((await stack.chat({ body })).status).toBe(402);
    // Turning a serving mainnet off refuses its calls: the server holds the change until that is confirmed.
    const held = (
      (await (await mutate("settings.set", { key: "SERVICE_MAINNET_ENABLED", value: false }, headers)).json()) as {
        result: { data: { reason: string; consequences: { id: string }[] } };
      }
    ).result.data;
    expect(held.reason).toBe("confirmation_required");
    expect((await stack.chat({ body })).status).toBe(402);
    await mutate(
      "settings.set",
      { key: "SERVICE_MAINNET_ENABLED", value: false, acknowledged: held.consequences.map((c) => c.id) },
      headers,
    );
    expect((await stack.chat({ body })).status).toBe(503);

    for (const [key, value] of [
      ["X402_FLAT_PRICE_USDC", "0.5"],
      ["X402_FLAT_PRICE_USDC", "-1"],
      ["SERVICE_DEPOSIT_ADDRESS", "nope"],
      ["SERVICE_ALLOWED_AGENTS", "a,b"],
    ] as const) {
      const res = (await (await mutate("settings.set", { key, value }, headers)).json()) as {
        result: { data: { ok: boolean; key: string; message: string } };
      };
      expect(res.result.data).toMatchObject({ ok: false, key });
      expect(res.result.data.message.length).toBeGreaterThan(0);
    }
    const audit = (await (await query("settings.audit", {}, cookie)).json()) as {
      result: { data: { key: string; oldValue: string | null; newValue: string; actor: string }[] };
    };
    const switches = audit.result.data.filter((a) => a.key === "SERVICE_MAINNET_ENABLED");
    expect(switches.map((a) => a.newValue)).toEqual(["false", "true"]);
    expect(switches.every((a) => a.actor === operator.publicKeyBase58)).toBe(true);
  });

  it("report figures, fee-payer health and recent calls with keyset pages", async () => {
    const cookie = cookieOf(await signInAs(operator));
    const agent = await stack.newAgent();
    for (let i = 0; i < 3; i++) {
      const res = await stack.payingFetch(agent)(CHAT_URL, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ model: "local/echo-1", messages: [{ role: "user", content: `f${i}` }] }),
      });
      expect(res.status).toBe(200);
    }
    await stack.chat({
      body: { model: "local/echo-1", messages: [{ role: "user", content: "x" }] },
      headers: { "X-Payment": "garbage" },
    });
    const figures = (
      (await (await query("dashboard.figures", {}, cookie)).json()) as {
        result: {
          data: {
            networks: {
              network: string;
              paidCalls: number;
              settleOk: number;
              failures: { reason: string }[];
              receivedUsdc: string;
            }[];
          };
        };
      }
    ).result.data;
    const devnet = figures.networks.find((n) => n.network === stack.devnet.caip2)!;
    expect(devnet.paidCalls).toBe(3);
    expect(devnet.settleOk).toBe(3);
    expect(devnet.receivedUsdc).toBe("0.003");
    expect(devnet.failures.map((f) => f.reason)).toContain("payment_invalid");

    const health = (
      (await (await query("dashboard.feePayer", {}, cookie)).json()) as {
        result: { data: { level: string; balance: number }[] };
      }
    ).result.data;
    expect(health.map((h) => h.level)).toEqual(["ok", "ok"]);

    const page1 = (
      (await (await query("dashboard.recentCalls", { limit: 2 }, cookie)).json()) as {
        result: { data: { items: { id: string }[]; nextCursor: unknown } };
      }
    ).result.data;
    expect(page1.items).toHaveLength(2);
    const page2 = (
      (await (await query("dashboard.recentCalls", { limit: 2, cursor: page1.nextCursor }, cookie)).json()) as {
        result: { data: { items: { id: string }[] } };
      }
    ).result.data;
    expect(page2.items.length).toBeGreaterThan(0);
    expect(page2.items.map((i) => i.id)).not.toContain(page1.items[0]!.id);
  });

  it("dashboard.health shows the readiness summary and the settlements pending: broadcast, claims past their lease and unserved payments", async () => {
    const cookie = cookieOf(await signInAs(operator));
    const payment = (id: string, status: string, minutesAgo: number) => ({
      idempotencyKey: `health-${id}`,
      network: stack.devnet.caip2,
      payer: "payer",
      payTo: "deposit",
      units: 1_000n,
      purpose: "call",
      route: "chat",
      status,
      updatedAt: new Date(Date.now() - minutesAgo * 60_000),
    });
    // A claim whose lease (120 s) ran out, one still settling, an unserved payment and a broadcast one.
    await stack.tdb.prisma.payment.createMany({
      data: [
        payment("stale", "claimed", 10),
        payment("fresh", "claimed", 0),
        payment("unserved", "unserved", 1),
        { ...payment("broadcast", "pending", 0), txSignature: "health-broadcast-tx" },
      ],
    });
    try {
      const res = await query("dashboard.health", {}, cookie);
      expect(res.status).toBe(200);
      const data = (
        (await res.json()) as {
          result: {
            data: {
              status: string;
              ready: boolean;
              database: { ok: boolean };
              chains: unknown[];
              pending: {
                broadcast: { count: number; items: { status: string; txSignature: string | null }[] };
                staleClaims: { count: number; items: { status: string; amountUsdc: string }[] };
                unserved: { count: number };
              };
            };
          };
        }
      ).result.data;
      expect(data).toMatchObject({ ready: true, database: { ok: true } });
      expect(data.chains).toHaveLength(2);
      expect(data.pending.staleClaims).toMatchObject({ count: 1, items: [{ status: "claimed", amountUsdc: "0.001" }] });
      expect(data.pending.unserved.count).toBe(1);
      expect(data.pending.broadcast).toMatchObject({
        count: 1,
        items: [{ status: "pending", txSignature: "health-broadcast-tx" }],
      });
      // Operators only.
      expect((await query("dashboard.health", {})).status).toBe(401);
    } finally {
      await stack.tdb.prisma.payment.deleteMany({ where: { idempotencyKey: { startsWith: "health-" } } });
    }
  });

  it("serve receipts publicly to the explorer, with 404 for unknown ids", async () => {
    const res = await query("explorer.receipt", { id: "nope" });
    expect(res.status).toBe(404);
  });

  it("advertise the chain RPCs to browsers outside production, and never when EXPLORER_ADVERTISE_RPC=false", async () => {
    const rpcs = async () =>
      ((await (await query("explorer.rpcs", undefined)).json()) as { result: { data: Record<string, string> } }).result
        .data;
    expect(await rpcs()).toMatchObject({ [stack.devnet.caip2]: stack.devnet.url });
    const restore = setEnv({ EXPLORER_ADVERTISE_RPC: "false" });
    try {
      expect(await rpcs()).toEqual({});
    } finally {
      await restore();
    }
  });
});
