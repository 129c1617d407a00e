// A log key replaced outright (LOG_SECRET_KEY changed, LOG_PREVIOUS_SECRET_KEY unset, as after a wrong key or a
// backup restored beside another deployment's key) signs nothing: the publisher neither adds its signature to the
// latest checkpoint nor extends the log, logs `log.key_mismatch` and the health says the log is stalled; the receipts
// wait in staging; `signet doctor --local` names the refusal `npm start` would make. Set LOG_PREVIOUS_SECRET_KEY to the
// key that signed the log, and the log resumes under both keys.
import { randomUUID } from "node:crypto";
import bs58 from "bs58";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { GET as healthRoute } from "@/app/api/health/route";
import { GET as checkpointRoute } from "@/app/log/checkpoint/route";
import { attachReceipt } from "../../ledger/attach-receipt";
import { generateKeypair, type Ed25519Keypair } from "../../keys/parse-secret-key";
import { createLogger } from "../../log";
import { buildReceipt } from "../../receipts/build-receipt";
import { signReceipt } from "../../receipts/sign-receipt";
import { routeRuntime, useRouteLogger } from "../../runtime/route-edge";
import { publishLog } from "../../transparency/publish-log";
import { formatVerifierKey, openCheckpoint, parseSignedNote, parseVerifierKey } from "../../verify";
import { logIdentity, operatorKeypair, setEnv, testConfig } from "../support/env";
import { startDbStack, type DbStack } from "../support/db-stack";
import { runSignet } from "../support/signet-cli";

const ORIGIN = "signet.test/log";
const OLD = generateKeypair();
const NEW = generateKeypair();
const OLD_VKEY = formatVerifierKey(ORIGIN, OLD.publicKey);
const NEW_VKEY = formatVerifierKey(ORIGIN, NEW.publicKey);
const keyIdOf = (vkey: string) => parseVerifierKey(vkey)!.keyId.toString(16).padStart(8, "0");
const seed = (key: Ed25519Keypair) => bs58.encode(key.seed);

/** Where this file's own sequencer rounds and the route runtimes (useRouteLogger) log. */
const ownLog = createLogger("silent");
const errors = vi.spyOn(ownLog, "error");
const mismatches = () =>
  errors.mock.calls
    .map(
      ([fields]) => fields as { event?: string; found?: string[]; expected?: string[]; size?: number; detail?: string },
    )
    .filter((fields) => fields?.event === "log.key_mismatch");

let stack: DbStack;
const undo: (() => Promise<void>)[] = [];

beforeAll(async () => {
  useRouteLogger(ownLog);
  // The background sequencer waits its longest: these tests run each round themselves.
  stack = await startDbStack({
    SERVICE_BASE_URL: "http://signet.test",
    LOG_SECRET_KEY: seed(OLD),
    LOG_PUBLISH_INTERVAL_MS: "10000",
  });
});
afterAll(async () => {
  errors.mockRestore();
  useRouteLogger(null);
  for (const restore of undo.reverse()) await restore();
  await stack?.close();
});

/** Stores and stages `n` receipts, as served calls do. */
async function stageReceipts(n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    const id = randomUUID();
    await stack.tdb.prisma.inferenceLog.create({
      data: {
        id,
        agentPubkey: "a",
        network: "n",
        route: "inference",
        model: "local/echo-1",
        upstream: "local",
        costUnits: 1n,
        latencyMs: 1,
        status: "served",
      },
    });
    const receipt = signReceipt(
      buildReceipt({
        agentPubkey: "a",
        upstream: "local",
        model: "local/echo-1",
        costUnits: 1n,
        prompt: { text: id },
        responseText: "r",
        timestampMs: 1,
        inferenceId: id,
        pointsTotal: i + 1,
      }),
      operatorKeypair(),
    );
    await attachReceipt(stack.tdb.prisma, id, receipt);
  }
}

/** Receipts waiting for the sequencer (log_staging is read with raw SQL only). */
const staged = async () =>
  Number((await stack.tdb.prisma.$queryRaw<{ n: bigint }[]>`SELECT count(*) AS n FROM log_staging`)[0]!.n);
const latestCheckpoint = async () =>
  (await checkpointRoute(new Request("http://signet.test/log/checkpoint"), {})).text();
/** The log keys that signed the note, by verifier key, in the order of their lines. */
const signedBy = (note: string) =>
  parseSignedNote(note)!
    .signatures.filter((s) => s.name === ORIGIN)
    .map((s) => [OLD_VKEY, NEW_VKEY].find((k) => parseVerifierKey(k)!.keyId === s.keyId) ?? "unknown");
const health = async () =>
  (await (await healthRoute(new Request("http://signet.test/api/health"), {})).json()) as { warnings: string[] };
const stalledWarnings = async () => (await health()).warnings.filter((w) => w.startsWith("receipt log stalled"));

async function until(what: string, done: () => Promise<boolean> | boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("a log key switched without a transition", () => {
  it("before: the old key signs the log", async () => {
    await routeRuntime();
    await stageReceipts(2);
    while (await publishLog(stack.tdb.prisma, logIdentity(), ownLog));
    const note = await latestCheckpoint();
    expect(note.split("\n")[1]).toBe("2");
    expect(signedBy(note)).toEqual([OLD_VKEY]);
    expect(await stalledWarnings()).toEqual([]);
  });

  it("stalls: the new key neither signs the latest checkpoint at start-up nor extends the log, and says why", async () => {
    const before = await stack.tdb.prisma.logCheckpoint.findFirstOrThrow({ orderBy: { size: "desc" } });
    undo.push(setEnv({ LOG_SECRET_KEY: seed(NEW) }));
    expect(logIdentity().verifierKey).toBe(NEW_VKEY);
    // A runtime with the new key: its publisher's start-up pass refuses to add the new key's signature.
    await routeRuntime();
    await until("the publisher's start-up refusal", () => mismatches().length > 0);
    expect(mismatches()[0]).toMatchObject({ size: 2, found: [keyIdOf(OLD_VKEY)], expected: [keyIdOf(NEW_VKEY)] });

    await stageReceipts(2);
    const seen = mismatches().length;
    expect(await publishLog(stack.tdb.prisma, logIdentity(), ownLog)).toBeNull();
    expect(mismatches().length).toBeGreaterThan(seen);
    expect(mismatches().at(-1)).toMatchObject({ size: 2, found: [keyIdOf(OLD_VKEY)], expected: [keyIdOf(NEW_VKEY)] });
    // Nothing moved: the checkpoint is the old key's alone, as it was, and the receipts wait in staging.
    expect(await stack.tdb.prisma.logCheckpoint.findFirstOrThrow({ orderBy: { size: "desc" } })).toEqual(before);
    expect(await stack.tdb.prisma.logEntry.count()).toBe(2);
    expect(await staged()).toBe(2);
    expect(signedBy(await latestCheckpoint())).toEqual([OLD_VKEY]);

    // The health reports the stall (calls are still served: a warning, not a reason to take no traffic).
    const warnings = await stalledWarnings();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(
      `receipt log stalled (log.key_mismatch): the receipt log's latest checkpoint (${ORIGIN}, size 2) is signed by key ${keyIdOf(OLD_VKEY)}`,
    );
    expect(warnings[0]).toContain(
      `set LOG_PREVIOUS_SECRET_KEY to the key that signed the log (key ${keyIdOf(OLD_VKEY)})`,
    );

    // `signet doctor --local` names the refusal `npm start` would make.
    const doctor = await runSignet(["doctor", "--local"], testConfig().dataDir, 60_000);
    expect(doctor.stdout).toBe(`start-up would refuse: ${mismatches().at(-1)!.detail}\n`);
    expect(doctor.code).toBe(1);
  });

  it("resumes once LOG_PREVIOUS_SECRET_KEY is the key that signed the log: the latest checkpoint gets the new key's signature, then every new one both", async () => {
    undo.push(setEnv({ LOG_SECRET_KEY: seed(NEW), LOG_PREVIOUS_SECRET_KEY: seed(OLD) }));
    await routeRuntime();
    await until(
      "the new key to sign the latest checkpoint",
      async () => signedBy(await latestCheckpoint()).length === 2,
    );
    expect(signedBy(await latestCheckpoint())).toEqual([OLD_VKEY, NEW_VKEY]);

    const stalled = mismatches().length;
    while (await publishLog(stack.tdb.prisma, logIdentity(), ownLog));
    expect(mismatches()).toHaveLength(stalled);
    const note = await latestCheckpoint();
    expect(note.split("\n")[1]).toBe("4");
    expect(signedBy(note)).toEqual([NEW_VKEY, OLD_VKEY]);
    for (const logKey of [OLD_VKEY, NEW_VKEY]) expect(openCheckpoint(note, { logKey }).ok).toBe(true);
    expect(await staged()).toBe(0);
    expect(await stalledWarnings()).toEqual([]);
    const doctor = await runSignet(["doctor", "--local"], testConfig().dataDir, 60_000);
    expect(doctor.stdout).not.toContain("start-up would refuse");
    expect(doctor.stdout).toMatch(/^Signet \S+ at http:\/\/signet\.test: /);
  });

  it("goes on with the new key alone once the transition ends", async () => {
    undo.push(setEnv({ LOG_SECRET_KEY: seed(NEW), LOG_PREVIOUS_SECRET_KEY: undefined }));
    const stalled = mismatches().length;
    await stageReceipts(1);
    while (await publishLog(stack.tdb.prisma, logIdentity(), ownLog));
    expect(mismatches()).toHaveLength(stalled);
    const note = await latestCheckpoint();
    expect(note.split("\n")[1]).toBe("5");
    expect(signedBy(note)).toEqual([NEW_VKEY]);
  });
});
