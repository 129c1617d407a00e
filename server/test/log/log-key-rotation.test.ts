// Rotating the receipt log's key without starting a new log: the same origin and the same tree, every checkpoint
// signed by both keys while LOG_PREVIOUS_SECRET_KEY is set (and the latest checkpoint signed by the new key as soon as
// the service starts with it). Monitors and a witness that pin the old key keep verifying through the transition; a
// monitor moves to the new key with its state and its history intact; pinned to both, it still compares with views
// from before the rotation; once the transition ends, the old key alone verifies nothing new.
import { copyFileSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import bs58 from "bs58";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POST as inferenceRoute } from "@/app/api/v1/inference/route";
import { newNonce, signRequestHeaders } from "../../agent/sign-request";
import { generateKeypair, toSolanaCliJson, type Ed25519Keypair } from "../../keys/parse-secret-key";
import { publishLog } from "../../transparency/publish-log";
import { witnessVerifierKey } from "../../transparency/witness-log";
import { formatVerifierKey, openCheckpoint, parseReceiptText, parseSignedNote, parseVerifierKey } from "../../verify";
import { logIdentity, setEnv } from "../support/env";
import { startHttpService, type HttpService } from "../support/http-service";
import { startPaidStack, type PaidStack } from "../support/paid-stack";
import { runSignet } from "../support/signet-cli";
import { createLogger } from "../../log";

/** Where this file's own sequencer rounds log: nowhere. */
const quietLog = createLogger("silent");

const ORIGIN = "signet.test/log";
const OLD = generateKeypair();
const NEW = generateKeypair();
const OLD_VKEY = formatVerifierKey(ORIGIN, OLD.publicKey);
const NEW_VKEY = formatVerifierKey(ORIGIN, NEW.publicKey);
const WITNESS_NAME = "witness.test/w1";
const witness = generateKeypair();
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
      LOG_SECRET_KEY: seed(OLD),
      LOG_PUBLISH_INTERVAL_MS: "10000",
      PREPAID_RATE_LIMIT_PER_MINUTE: "100000",
      LOG_WITNESS_KEYS: witnessVerifierKey(WITNESS_NAME, witness),
    },
  });
  service = await startHttpService();
  dir = mkdtempSync(path.join(tmpdir(), "signet-log-rotation-"));
  writeFileSync(path.join(dir, "witness.json"), toSolanaCliJson(witness));
  agent = generateKeypair();
  await stack.credit(agent.publicKeyBase58, 1_000_000n);
});
afterAll(async () => {
  for (const restore of undo.reverse()) await restore();
  await service?.close();
  await stack?.close();
});

async function call(): Promise<Record<string, unknown>> {
  const text = JSON.stringify({ nonce: newNonce(), timestamp: Date.now(), model: "local/echo-1", prompt: "log me" });
  const url = "http://signet.test/api/v1/inference";
  const res = await inferenceRoute(
    new Request(url, { method: "POST", headers: signRequestHeaders(agent, "POST", url, text), body: text }),
    {},
  );
  expect(res.status).toBe(200);
  const parsed = parseReceiptText(res.headers.get("x-service-receipt")!);
  if (!parsed.ok) throw new Error("no receipt");
  return parsed.receipt;
}

async function callsLogged(n: number): Promise<Record<string, unknown>[]> {
  const receipts: Record<string, unknown>[] = [];
  for (let i = 0; i < n; i++) receipts.push(await call());
  while (await publishLog(stack.tdb.prisma, logIdentity(), quietLog));
  return receipts;
}

const signet = (...args: string[]) => runSignet(args, dir, 60_000);
const monitor = (state: string, keys: string[], ...extra: string[]) =>
  signet(
    "log",
    "monitor",
    "--endpoint",
    service.url,
    ...keys.flatMap((k) => ["--log-key", k]),
    "--state",
    path.join(dir, state),
    ...extra,
  );
const witnessRun = (key: string, state: string) =>
  signet(
    "log",
    "witness",
    "--key",
    path.join(dir, "witness.json"),
    "--name",
    WITNESS_NAME,
    "--endpoint",
    service.url,
    "--log-key",
    key,
    "--state",
    path.join(dir, state),
    "--submit",
  );
const latestCheckpoint = async () => (await fetch(`${service.url}/log/checkpoint`)).text();
/** Which of the two keys signed the note, in the order of its signature lines (by key ID; openCheckpoint verifies). */
const signedBy = (note: string) =>
  parseSignedNote(note)!
    .signatures.filter((s) => s.name === ORIGIN)
    .map((s) => [OLD_VKEY, NEW_VKEY].find((k) => parseVerifierKey(k)!.keyId === s.keyId));

describe("rotating the log key", () => {
  let oldReceipt: Record<string, unknown>;

  it("before: the old key signs alone, and monitors and a witness pin it", async () => {
    oldReceipt = (await callsLogged(2))[0]!;
    expect(signedBy(await latestCheckpoint())).toEqual([OLD_VKEY]);
    for (const state of ["stays.json", "moves.json", "both.json"])
      expect((await monitor(state, [OLD_VKEY])).code).toBe(0);
    // A view from before the rotation, signed by the old key alone, to compare with later.
    copyFileSync(path.join(dir, "stays.json"), path.join(dir, "view-before.json"));
    expect((await witnessRun(OLD_VKEY, "witness-old.json")).code).toBe(0);
  });

  it("during: the service names both keys, re-signs its latest checkpoint with the new one at start-up, then signs every checkpoint with both", async () => {
    undo.push(setEnv({ LOG_SECRET_KEY: seed(NEW), LOG_PREVIOUS_SECRET_KEY: seed(OLD) }));
    expect(await (await fetch(`${service.url}/log/key`)).json()).toMatchObject({
      origin: ORIGIN,
      verifier_key: NEW_VKEY,
      previous_verifier_key: OLD_VKEY,
    });
    // The runtime that request built signs the latest checkpoint (size 2) with the new key, in the background.
    const deadline = Date.now() + 10_000;
    while (signedBy(await latestCheckpoint()).length < 2 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 100));
    const resigned = await latestCheckpoint();
    expect(resigned.split("\n")[1]).toBe("2");
    expect(signedBy(resigned)).toEqual([OLD_VKEY, NEW_VKEY]);

    await callsLogged(2);
    const cosigned = await latestCheckpoint();
    expect(cosigned.split("\n")[1]).toBe("4");
    expect(signedBy(cosigned)).toEqual([NEW_VKEY, OLD_VKEY]);
    for (const logKey of [OLD_VKEY, NEW_VKEY, [OLD_VKEY, NEW_VKEY]])
      expect(openCheckpoint(cosigned, { logKey }).ok).toBe(true);
  });

  it("during: monitors and witnesses on the old key keep going, and move to the new key with their state", async () => {
    const stays = await monitor("stays.json", [OLD_VKEY]);
    expect(stays.stdout).toContain("at size 4 (was 2); 2 new entries checked");
    expect(stays.code).toBe(0);
    const moves = await monitor("moves.json", [NEW_VKEY]);
    expect(moves.stdout).toContain("at size 4 (was 2); 2 new entries checked");
    expect(moves.code).toBe(0);
    expect((await witnessRun(OLD_VKEY, "witness-old.json")).code).toBe(0);
    const moved = await witnessRun(NEW_VKEY, "witness-old.json");
    expect(moved.stderr).toContain("cosigned size 4, published");
    expect(moved.code).toBe(0);
  });

  it("during: pinned to both keys, a monitor still compares with a view from before the rotation; pinned to the new key alone it cannot", async () => {
    const both = await monitor("both.json", [OLD_VKEY, NEW_VKEY], "--compare", path.join(dir, "view-before.json"));
    expect(both.stdout).toContain("at size 4 (was 2)");
    expect(both.code).toBe(0);
    const newOnly = await monitor("new-only.json", [NEW_VKEY], "--compare", path.join(dir, "view-before.json"));
    expect(newOnly.stdout).toContain("bad_checkpoint_signature");
    expect(newOnly.code).toBe(1);
  });

  it("during and after: a receipt logged under the old key proves its inclusion under the new key", async () => {
    writeFileSync(path.join(dir, "old-receipt.json"), JSON.stringify(oldReceipt));
    const proved = await signet(
      "verify",
      "--receipt",
      path.join(dir, "old-receipt.json"),
      "--signature-only",
      "--log",
      "--endpoint",
      service.url,
      "--log-key",
      NEW_VKEY,
      "--json",
    );
    expect(proved.stderr).toBe("");
    expect(JSON.parse(proved.stdout)).toMatchObject({ ok: true, log: { ok: true, log_index: 0, tree_size: 4 } });
    expect(proved.code).toBe(0);
  });

  it("after: the new key signs alone; the old key verifies nothing new, and a monitor still on it moves over with its state", async () => {
    undo.push(setEnv({ LOG_SECRET_KEY: seed(NEW), LOG_PREVIOUS_SECRET_KEY: undefined }));
    expect(await (await fetch(`${service.url}/log/key`)).json()).toMatchObject({
      verifier_key: NEW_VKEY,
      previous_verifier_key: null,
    });
    await callsLogged(1);
    expect(signedBy(await latestCheckpoint())).toEqual([NEW_VKEY]);
    const stale = await monitor("stays.json", [OLD_VKEY]);
    expect(stale.stdout).toContain(
      "bad_checkpoint_signature: the served checkpoint does not verify under the log key (log_signature_missing)",
    );
    expect(stale.code).toBe(1);
    const caughtUp = await monitor("stays.json", [NEW_VKEY]);
    expect(caughtUp.stdout).toContain("at size 5 (was 4); 1 new entries checked");
    expect(caughtUp.code).toBe(0);
  });
});
