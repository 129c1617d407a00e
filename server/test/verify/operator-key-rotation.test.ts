// Rotating the operator key, end to end: receipts are signed with key A; then B signs and A is retired
// (SERVICE_OPERATOR_RETIRED_KEYS). The receipts of both keys verify through the library (the keys fetched from
// GET /api/v1/operator-key over HTTP), the CLI (`signet verify`, a child process) and the hosted verifier
// (POST /api/verify); a receipt forged with A at its retirement is refused by all three. The did:web document lists A
// as revoked, and the log monitor accepts the log's entries of both keys.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import bs58 from "bs58";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POST as inferenceRoute } from "@/app/api/v1/inference/route";
import { POST as verifyRoute } from "@/app/api/verify/route";
import { newNonce, signRequestHeaders } from "../../agent/sign-request";
import { serverVerifier } from "../../keys/server-verifier";
import { generateKeypair, type Ed25519Keypair } from "../../keys/parse-secret-key";
import { signDetached } from "../../receipts/sign-receipt";
import { publishLog } from "../../transparency/publish-log";
import { nobleVerifier, parseReceiptText, receiptSigningBytes } from "../../verify";
import { logIdentity, setEnv } from "../support/env";
import { startHttpService, type HttpService } from "../support/http-service";
import { startPaidStack, type PaidStack } from "../support/paid-stack";
import { runSignet } from "../support/signet-cli";
import { createLogger } from "../../log";

/** Where this file's own sequencer rounds log: nowhere. */
const quietLog = createLogger("silent");

const A = generateKeypair();
const B = generateKeypair();
const seed = (key: Ed25519Keypair) => bs58.encode(key.seed);

let stack: PaidStack;
let service: HttpService;
let dir: string;
let agent: Ed25519Keypair;
const undo: (() => Promise<void>)[] = [];

beforeAll(async () => {
  stack = await startPaidStack({
    timing: "instant",
    env: {
      SERVICE_OPERATOR_SECRET_KEY: seed(A),
      LOG_PUBLISH_INTERVAL_MS: "10000",
      PREPAID_RATE_LIMIT_PER_MINUTE: "100000",
    },
  });
  service = await startHttpService();
  dir = mkdtempSync(path.join(tmpdir(), "signet-rotation-"));
  agent = generateKeypair();
  await stack.credit(agent.publicKeyBase58, 1_000_000n);
});
afterAll(async () => {
  for (const restore of undo.reverse()) await restore();
  await service?.close();
  await stack?.close();
});

interface Call {
  receipt: Record<string, unknown>;
  request: Record<string, unknown>;
  response: unknown;
}

/** A prepaid call to the inference route, as the service serves it now: its receipt, request and answer. */
async function call(prompt: string): Promise<Call> {
  const request = { nonce: newNonce(), timestamp: Date.now(), model: "local/echo-1", prompt };
  const text = JSON.stringify(request);
  const url = "http://signet.test/api/v1/inference";
  const res = await inferenceRoute(
    new Request(url, { method: "POST", headers: signRequestHeaders(agent, "POST", url, text), body: text }),
    {},
  );
  expect(res.status).toBe(200);
  const parsed = parseReceiptText(res.headers.get("x-service-receipt")!);
  if (!parsed.ok) throw new Error("no receipt");
  return { receipt: parsed.receipt, request, response: await res.json() };
}

/** `call`'s receipt with `edit` applied, signed again by `key`: what whoever holds `key` can make. */
function forged(
  original: Call,
  key: Ed25519Keypair,
  edit: (unsigned: Record<string, unknown>) => Record<string, unknown>,
): Call {
  const { service_signature: _s, ...unsigned } = original.receipt;
  const edited = edit(unsigned);
  return { ...original, receipt: { ...edited, service_signature: signDetached(receiptSigningBytes(edited), key) } };
}

/** `signet verify` on the call's files, the keys fetched from the service; the exit code and the printed result. */
async function cliVerify(
  c: Call,
  name: string,
): Promise<{
  code: number | null;
  result: { ok: boolean; checks: Record<string, boolean>; reasons: Record<string, string>; operatorKey: string };
}> {
  const file = (what: string, value: unknown) => {
    const at = path.join(dir, `${name}-${what}.json`);
    writeFileSync(at, JSON.stringify(value));
    return at;
  };
  const run = await runSignet(
    [
      "verify",
      "--receipt",
      file("receipt", c.receipt),
      "--prompt",
      file("prompt", c.request),
      "--response",
      file("response", c.response),
      "--endpoint",
      service.url,
      "--json",
    ],
    dir,
    60_000,
  );
  expect(run.stderr).toBe("");
  return { code: run.code, result: JSON.parse(run.stdout) as never };
}

/** POST /api/verify, in process; with `endpoint`, the verifier fetches the keys from it, else it uses its own. */
async function hostedVerdict(
  c: Call,
  endpoint?: string,
): Promise<{ ok: boolean; checks: Record<string, boolean>; operator_pubkey: string }> {
  const body = { receipt: c.receipt, prompt: c.request, response: c.response, ...(endpoint ? { endpoint } : {}) };
  const res = await verifyRoute(
    new Request("http://localhost/api/verify", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    }),
    {},
  );
  expect(res.status).toBe(200);
  return (await res.json()) as never;
}

const getJson = async (route: string) =>
  (await (await fetch(`${service.url}${route}`)).json()) as Record<string, unknown>;

describe("rotating the operator key", () => {
  let before: Call;
  let after: Call;
  let retiredAt: number;

  beforeAll(async () => {
    before = await call("signed before the rotation");
    // A retires right after the last receipt it signed.
    retiredAt = (before.receipt.timestamp as number) + 1;
    undo.push(
      setEnv({
        SERVICE_OPERATOR_SECRET_KEY: seed(B),
        SERVICE_OPERATOR_RETIRED_KEYS: `${A.publicKeyBase58}@${retiredAt}`,
      }),
    );
    after = await call("signed after the rotation");
  });

  it("signs with the new key and publishes the retired one with its retirement", async () => {
    expect(
      serverVerifier.verifyEd25519(
        receiptSigningBytes(before.receipt),
        before.receipt.service_signature,
        A.publicKeyBase58,
      ),
    ).toBe(true);
    expect(
      serverVerifier.verifyEd25519(
        receiptSigningBytes(after.receipt),
        after.receipt.service_signature,
        B.publicKeyBase58,
      ),
    ).toBe(true);
    expect(await getJson("/api/v1/operator-key")).toEqual({
      pubkey: B.publicKeyBase58,
      algorithm: "ed25519",
      encoding: "base58",
      retired: [{ pubkey: A.publicKeyBase58, retired_at: retiredAt }],
    });
    const did = (await getJson("/.well-known/did.json")) as {
      id: string;
      verificationMethod: { id: string; publicKeyJwk: { x: string }; revoked?: string }[];
      assertionMethod: string[];
    };
    expect(did.assertionMethod).toEqual([
      `${did.id}#operator-key`,
      `${did.id}#operator-key-${B.publicKeyBase58.slice(0, 8)}`,
    ]);
    expect(
      did.verificationMethod.map((m) => [m.id, bs58.encode(Buffer.from(m.publicKeyJwk.x, "base64url")), m.revoked]),
    ).toEqual([
      [`${did.id}#operator-key`, B.publicKeyBase58, undefined],
      [`${did.id}#operator-key-${B.publicKeyBase58.slice(0, 8)}`, B.publicKeyBase58, undefined],
      [`${did.id}#operator-key-${A.publicKeyBase58.slice(0, 8)}`, A.publicKeyBase58, new Date(retiredAt).toISOString()],
    ]);
  });

  it("verifies the old key's receipt and the new key's through the library, fetching the keys from the service", async () => {
    for (const verifier of [serverVerifier, nobleVerifier]) {
      const old = await verifier.verifyReceipt({
        receipt: before.receipt,
        prompt: before.request,
        response: before.response,
        endpoint: service.url,
      });
      expect(old).toMatchObject({ ok: true, operatorKey: A.publicKeyBase58 });
      expect(old.reasons.service_signature_ok).toBe(
        `signature made by retired operator key ${A.publicKeyBase58.slice(0, 4)}… before its retirement at ${new Date(retiredAt).toISOString()}`,
      );
      expect(
        await verifier.verifyReceipt({
          receipt: after.receipt,
          prompt: after.request,
          response: after.response,
          endpoint: service.url,
        }),
      ).toMatchObject({ ok: true, operatorKey: B.publicKeyBase58 });
    }
  });

  it("verifies both through `signet verify`", async () => {
    for (const [c, key] of [
      [before, A],
      [after, B],
    ] as const) {
      const { code, result } = await cliVerify(c, key === A ? "old" : "new");
      expect(result).toMatchObject({ ok: true, operatorKey: key.publicKeyBase58 });
      expect(code).toBe(0);
    }
  });

  it("verifies both through the hosted verifier, with its own keys and with the service's fetched", async () => {
    for (const endpoint of [undefined, service.url]) {
      expect(await hostedVerdict(before, endpoint)).toMatchObject({ ok: true, operator_pubkey: A.publicKeyBase58 });
      expect(await hostedVerdict(after, endpoint)).toMatchObject({ ok: true, operator_pubkey: B.publicKeyBase58 });
    }
  });

  it("refuses a receipt forged with the retired key at its retirement, everywhere, saying why", async () => {
    const late = forged(before, A, (r) => ({
      ...r,
      timestamp: retiredAt,
      inference_id: "00000000-0000-4000-8000-00000000f04d",
    }));
    const reason = `signature made by operator key ${A.publicKeyBase58.slice(0, 4)}…, retired at ${new Date(retiredAt).toISOString()}: the receipt's timestamp ${new Date(retiredAt).toISOString()} is not before its retirement`;
    const library = await serverVerifier.verifyReceipt({
      receipt: late.receipt,
      prompt: late.request,
      response: late.response,
      endpoint: service.url,
    });
    expect(library.checks).toEqual({
      prompt_hash_ok: true,
      response_hash_ok: true,
      service_signature_ok: false,
      payment_on_chain_ok: true,
      payer_matches: true,
    });
    expect(library.reasons.service_signature_ok).toBe(reason);
    const cli = await cliVerify(late, "late");
    expect(cli.code).toBe(1);
    expect(cli.result.reasons.service_signature_ok).toBe(reason);
    for (const endpoint of [undefined, service.url])
      expect(await hostedVerdict(late, endpoint)).toMatchObject({ ok: false, checks: { service_signature_ok: false } });
    // Backdated, the same forgery passes: the retirement bounds what the key vouches for, not what its holder can sign.
    const backdated = forged(before, A, (r) => ({
      ...r,
      timestamp: retiredAt - 1,
      inference_id: "00000000-0000-4000-8000-00000000f04e",
    }));
    expect(
      (
        await serverVerifier.verifyReceipt({
          receipt: backdated.receipt,
          prompt: backdated.request,
          response: backdated.response,
          endpoint: service.url,
        })
      ).ok,
    ).toBe(true);
  });

  it("lets the log monitor check the entries of both keys against the keys the service publishes", async () => {
    while (await publishLog(stack.tdb.prisma, logIdentity(), quietLog));
    const monitor = (state: string, ...extra: string[]) =>
      runSignet(
        [
          "log",
          "monitor",
          "--endpoint",
          service.url,
          "--log-key",
          logIdentity().verifierKey,
          "--state",
          path.join(dir, state),
          ...extra,
        ],
        dir,
        60_000,
      );
    const fetched = await monitor("fetched.json");
    expect(fetched.stdout).toContain("2 new entries checked, each receipt signed by");
    expect(fetched.stdout).toContain(`${B.publicKeyBase58} (or, before its retirement, by one of 1 retired keys)`);
    expect(fetched.code).toBe(0);
    // Pinned alone, the new key does not vouch for the old key's entry.
    const pinned = await monitor("pinned.json", "--operator-key", B.publicKeyBase58);
    expect(pinned.stdout).toContain("unverifiable_entry [entry 0]");
    expect(pinned.code).toBe(1);
  });
});
