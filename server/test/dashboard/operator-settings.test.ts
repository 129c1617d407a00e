// The dashboard's settings procedures through the real tRPC route on PostgreSQL: typed values per kind (refused with a
// reason, nothing written), a secret only ever as set or not (never in an answer or an audit row), and a change with
// consequences for calls refused until each is confirmed.
import { rm } from "node:fs/promises";
import path from "node:path";
import { utf8ToBytes } from "@noble/hashes/utils.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET as trpcGet, POST as trpcPost } from "@/app/api/trpc/[trpc]/route";
import { GET as challengeRoute } from "@/app/api/operator/challenge/route";
import { POST as signInRoute } from "@/app/api/operator/session/route";
import { DEV_IP_HASH_SALT_FILE } from "../../dashboard/deployment-facts";
import { ipHashSalt } from "../../http/ip-hash-salt";
import { generateKeypair } from "../../keys/parse-secret-key";
import { signDetached } from "../../receipts/sign-receipt";
import { routeRuntime } from "../../runtime/route-edge";
import { startDbStack, type DbStack } from "../support/db-stack";

const operator = generateKeypair();
const ORIGIN = "http://localhost:3000";
const SECRET = "a-brand-new-salt-nobody-may-read-back";
let stack: DbStack;
let cookie: string;

beforeAll(async () => {
  // No Solana mainnet RPC (the test config starts no chain playing it): turning mainnet on breaks its calls.
  stack = await startDbStack({
    SERVICE_OPERATOR_PUBKEYS: operator.publicKeyBase58,
    SERVICE_BASE_URL: ORIGIN,
    IP_HASH_SALT: undefined,
    LOCALNET_MAINNET_RPC_PORT: "0",
    RPC_URL_SOLANA_MAINNET: undefined,
  });
  const { message } = (await (await challengeRoute(new Request(`${ORIGIN}/api/operator/challenge`), {})).json()) as {
    message: string;
  };
  const res = await signInRoute(
    new Request(`${ORIGIN}/api/operator/session`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        pubkey: operator.publicKeyBase58,
        message,
        signature: signDetached(utf8ToBytes(message), operator),
      }),
    }),
    {},
  );
  cookie = res.headers.get("set-cookie")!.split(";")[0]!;
});
afterAll(async () => stack?.close());

interface Consequence {
  id: string;
  code: string;
  severity: "refuse" | "confirm";
  answers: string | null;
  message: string;
}
type SetResult =
  { ok: true } | { ok: false; reason: string; key: string; message: string; consequences: Consequence[] };
interface View {
  key: string;
  kind: string;
  label: string;
  value?: unknown;
  set?: boolean;
  origin?: string | null;
  status?: string;
  source: string;
  options?: { id: string; offered: boolean }[];
}

async function getSettings(): Promise<{ settings: View[]; problems: { id: string }[] }> {
  const res = await trpcGet(
    new Request(`${ORIGIN}/api/trpc/settings.get?input=${encodeURIComponent("{}")}`, { headers: { cookie } }),
  );
  expect(res.status).toBe(200);
  return ((await res.json()) as { result: { data: { settings: View[]; problems: { id: string }[] } } }).result.data;
}
async function rawGet(path: string): Promise<string> {
  return (
    await trpcGet(new Request(`${ORIGIN}/api/trpc/${path}?input=${encodeURIComponent("{}")}`, { headers: { cookie } }))
  ).text();
}
async function setSetting(input: unknown): Promise<{ status: number; data: SetResult | undefined }> {
  const res = await trpcPost(
    new Request(`${ORIGIN}/api/trpc/settings.set`, {
      method: "POST",
      headers: { "content-type": "application/json", cookie, origin: ORIGIN },
      body: JSON.stringify(input),
    }),
  );
  const body = (await res.json()) as { result?: { data: SetResult } };
  return { status: res.status, data: body.result?.data };
}
const viewOf = async (key: string) => (await getSettings()).settings.find((s) => s.key === key)!;
const stored = (key: string) => stack.tdb.prisma.setting.findUnique({ where: { key } });
const audits = (key: string) => stack.tdb.prisma.settingAudit.findMany({ where: { key }, orderBy: { id: "asc" } });

describe("settings.get", () => {
  it("answers every setting with its label and kind, and a typed value for its control", async () => {
    const { settings } = await getSettings();
    expect(settings.map((s) => [s.key, s.kind])).toEqual([
      ["X402_NETWORK", "network"],
      ["X402_FLAT_PRICE_USDC", "usdc"],
      ["SERVICE_MAX_PRICE_USDC", "usdc"],
      ["SERVICE_DEPOSIT_ADDRESS", "address"],
      ["SERVICE_MAINNET_DEPOSIT_ADDRESS", "address"],
      ["SERVICE_MAINNET_ENABLED", "boolean"],
      ["SERVICE_ALLOWED_AGENTS", "keys"],
      ["SERVICE_TESTNET_PROVIDER_MODELS", "boolean"],
      ["SERVICE_GRANT_AMOUNT_USDC", "usdc"],
      ["SERVICE_GRANT_MAX_PER_IP", "integer"],
      ["SERVICE_GRANT_BUDGET_DAILY_USDC", "usdc"],
      ["IP_HASH_SALT", "secret"],
    ]);
    const byKey = new Map(settings.map((s) => [s.key, s]));
    expect(byKey.get("SERVICE_MAINNET_ENABLED")).toMatchObject({
      label: "Mainnet",
      value: false,
      source: "environment",
    });
    expect(byKey.get("SERVICE_GRANT_MAX_PER_IP")).toMatchObject({ value: 3 });
    expect(byKey.get("SERVICE_ALLOWED_AGENTS")).toMatchObject({ value: [] });
    expect(byKey.get("X402_NETWORK")).toMatchObject({ value: "solana-devnet" });
    expect(byKey.get("X402_NETWORK")!.options).toContainEqual(
      expect.objectContaining({ id: "solana-mainnet", offered: false }),
    );
  });

  it("shows the IP-hash salt development generated into the data dir as set, once the service has generated it", async () => {
    // Signing in generated it already (per-address rate limits hash under it too): start again from none.
    const runtime = await routeRuntime();
    await rm(path.join(runtime.config.dataDir, DEV_IP_HASH_SALT_FILE));
    expect(await viewOf("IP_HASH_SALT")).toMatchObject({
      set: false,
      origin: null,
      status: "not set: development generates one in the data dir at first use",
    });
    const generated = ipHashSalt(await runtime.settings.read(), runtime.config);
    const view = await viewOf("IP_HASH_SALT");
    expect(view).toMatchObject({ set: true, origin: "data_dir", status: "set (generated in the data dir)" });
    expect(JSON.stringify(view)).not.toContain(generated);
  });
});

describe("settings.set: typed values", () => {
  it.each<[string, unknown, RegExp]>([
    ["SERVICE_MAINNET_ENABLED", "true", /on or off/],
    ["X402_FLAT_PRICE_USDC", "0.0000001", /at most 6 decimals/],
    ["X402_FLAT_PRICE_USDC", "0", /positive/],
    ["SERVICE_GRANT_MAX_PER_IP", 3.5, /whole number/],
    ["X402_NETWORK", "testnet", /one of/],
    ["SERVICE_ALLOWED_AGENTS", ["nope"], /neither a base58 public key nor a 0x address/],
    ["SERVICE_MAINNET_DEPOSIT_ADDRESS", "not-a-key", /base58 public key/],
    ["IP_HASH_SALT", "short", /at least 16 characters/],
  ])("refuses %s=%j as invalid_value with a message, and writes nothing", async (key, value, message) => {
    const { data } = await setSetting({ key, value });
    expect(data).toMatchObject({ ok: false, reason: "invalid_value", key });
    expect(data?.ok === false && data.message).toMatch(message);
    expect(await stored(key)).toBeNull();
    expect(await audits(key)).toEqual([]);
  });

  it("refuses an unknown setting at the input schema (400)", async () => {
    expect((await setSetting({ key: "DATABASE_URL", value: "postgres://x" })).status).toBe(400);
  });

  it("refuses a price above the ceiling whatever is acknowledged, and writes nothing", async () => {
    const { data } = await setSetting({
      key: "X402_FLAT_PRICE_USDC",
      value: "0.5",
      acknowledged: ["price_above_ceiling"],
    });
    expect(data).toMatchObject({
      ok: false,
      reason: "refused",
      consequences: [
        expect.objectContaining({ id: "price_above_ceiling", severity: "refuse", answers: "server_misconfigured" }),
      ],
    });
    expect(await stored("X402_FLAT_PRICE_USDC")).toBeNull();
  });

  it("refuses a devnet deposit address other than the facilitator's", async () => {
    const { data } = await setSetting({ key: "SERVICE_DEPOSIT_ADDRESS", value: generateKeypair().publicKeyBase58 });
    expect(data).toMatchObject({
      ok: false,
      reason: "refused",
      consequences: [expect.objectContaining({ id: "deposit_address_not_facilitator" })],
    });
    expect(await stored("SERVICE_DEPOSIT_ADDRESS")).toBeNull();
  });

  it("stores an amount in its canonical spelling, a list of keys and a network, each audited as the operator", async () => {
    const agent = generateKeypair().publicKeyBase58;
    expect((await setSetting({ key: "SERVICE_MAX_PRICE_USDC", value: "0.250" })).data).toEqual({ ok: true });
    expect((await setSetting({ key: "X402_NETWORK", value: "solana-devnet" })).data).toEqual({ ok: true });
    const list = await setSetting({ key: "SERVICE_ALLOWED_AGENTS", value: [agent] });
    // Closing an open mainnet to one agent refuses every other payer there: confirmed first.
    expect(list.data).toMatchObject({
      ok: false,
      reason: "confirmation_required",
      consequences: [expect.objectContaining({ id: "agents_refused" })],
    });
    expect(
      (await setSetting({ key: "SERVICE_ALLOWED_AGENTS", value: [agent], acknowledged: ["agents_refused"] })).data,
    ).toEqual({ ok: true });
    expect((await stored("SERVICE_MAX_PRICE_USDC"))?.value).toBe("0.25");
    expect((await stored("X402_NETWORK"))?.value).toBe("solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1");
    expect(await viewOf("SERVICE_ALLOWED_AGENTS")).toMatchObject({ value: [agent], source: "stored" });
    const [row] = await audits("SERVICE_MAX_PRICE_USDC");
    expect(row).toMatchObject({ oldValue: null, newValue: "0.25", actor: operator.publicKeyBase58 });
  });
});

describe("settings.set: a secret", () => {
  it("is replaced write-only: confirmed (grant counts start over), never answered, audited without its value", async () => {
    // Development's generated salt is in use (the test above generated it): replacing it is a consequence to confirm.
    const first = await setSetting({ key: "IP_HASH_SALT", value: SECRET });
    expect(first.data).toMatchObject({
      ok: false,
      reason: "confirmation_required",
      consequences: [expect.objectContaining({ id: "grant_counts_reset" })],
    });
    expect(JSON.stringify(first.data)).not.toContain(SECRET);
    expect(await stored("IP_HASH_SALT")).toBeNull();

    expect(
      (await setSetting({ key: "IP_HASH_SALT", value: SECRET, acknowledged: ["grant_counts_reset"] })).data,
    ).toEqual({ ok: true });
    // In effect for the next request.
    const runtime = await routeRuntime();
    expect((await runtime.settings.read()).ipHashSalt).toBe(SECRET);

    expect(await viewOf("IP_HASH_SALT")).toMatchObject({
      set: true,
      origin: "stored",
      status: "set (stored in the settings table)",
    });
    expect(await rawGet("settings.get")).not.toContain(SECRET);
    expect(await rawGet("settings.audit")).not.toContain(SECRET);
    const rows = await audits("IP_HASH_SALT");
    expect(rows.map((r) => [r.oldValue, r.newValue, r.actor])).toEqual([
      [null, "(replaced)", operator.publicKeyBase58],
    ]);
    expect(JSON.stringify(rows, (_k, v: unknown) => (typeof v === "bigint" ? v.toString() : v))).not.toContain(SECRET);

    // Replaced again: the audit row says a stored one was there, and that it was replaced.
    const next = `${SECRET}-2`;
    expect((await setSetting({ key: "IP_HASH_SALT", value: next, acknowledged: ["grant_counts_reset"] })).data).toEqual(
      { ok: true },
    );
    const again = await audits("IP_HASH_SALT");
    expect(again.map((r) => [r.oldValue, r.newValue])).toEqual([
      [null, "(replaced)"],
      ["(set)", "(replaced)"],
    ]);
    expect(JSON.stringify(again, (_k, v: unknown) => (typeof v === "bigint" ? v.toString() : v))).not.toContain(next);
  });
});

describe("settings.set: consequences for calls", () => {
  it("refuses to turn mainnet on without a Solana mainnet RPC until that consequence is confirmed, writing nothing before", async () => {
    const refused = await setSetting({ key: "SERVICE_MAINNET_ENABLED", value: true });
    expect(refused.data).toMatchObject({
      ok: false,
      reason: "confirmation_required",
      consequences: [
        expect.objectContaining({
          id: "network_broken:solana-mainnet:no_rpc",
          severity: "confirm",
          answers: "server_misconfigured",
        }),
      ],
    });
    expect(await stored("SERVICE_MAINNET_ENABLED")).toBeNull();
    expect(await audits("SERVICE_MAINNET_ENABLED")).toEqual([]);

    // An acknowledgement of something else confirms nothing.
    const wrong = await setSetting({
      key: "SERVICE_MAINNET_ENABLED",
      value: true,
      acknowledged: ["network_broken:solana-mainnet:no_deposit_address"],
    });
    expect(wrong.data).toMatchObject({ ok: false, reason: "confirmation_required" });
    expect(await stored("SERVICE_MAINNET_ENABLED")).toBeNull();

    const confirmed = await setSetting({
      key: "SERVICE_MAINNET_ENABLED",
      value: true,
      acknowledged: ["network_broken:solana-mainnet:no_rpc"],
    });
    expect(confirmed.data).toEqual({ ok: true });
    expect((await stored("SERVICE_MAINNET_ENABLED"))?.value).toBe("true");
    expect((await audits("SERVICE_MAINNET_ENABLED")).map((r) => [r.oldValue, r.newValue, r.actor])).toEqual([
      [null, "true", operator.publicKeyBase58],
    ]);

    // What the settings break now is on the page too.
    expect((await getSettings()).problems.map((p) => p.id)).toContain("network_broken:solana-mainnet:no_rpc");

    // Turning a broken mainnet off breaks nothing more: no confirmation.
    expect((await setSetting({ key: "SERVICE_MAINNET_ENABLED", value: false })).data).toEqual({ ok: true });
    expect((await getSettings()).problems.map((p) => p.id)).not.toContain("network_broken:solana-mainnet:no_rpc");
  });
});
