// The receipt log's outside checkers, run as users run them (`node bin/cli/signet.mjs …` against the routes over real
// HTTP): `signet verify --log` proves a receipt's inclusion (and a witness quorum); `signet log witness` cosigns only
// consistent checkpoints and the service publishes its cosignature; `signet log monitor` follows the log and catches
// an entry rewritten in the database, a history rewritten and re-signed with the log key, a forked checkpoint
// served to a second monitor, and an inference logged again in a later round than its original.
import { mkdtempSync, writeFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { publishAll as publishStaged } from "../support/publish-all";
import { POST as inferenceRoute } from "@/app/api/v1/inference/route";
import { newNonce, signRequestHeaders } from "../../agent/sign-request";
import { generateKeypair, toSolanaCliJson, type Ed25519Keypair } from "../../keys/parse-secret-key";
import { operatorKeypair } from "../support/env";
import { logIdentity } from "../support/env";
import { signCheckpoint } from "../../transparency/publish-log";
import { witnessVerifierKey } from "../../transparency/witness-log";
import {
  encodeEntryBundle,
  encodeReceiptEntry,
  leafHash,
  newSubtrees,
  nodeHash,
  parseReceiptText,
  parseTilePath,
  rootOfLeaves,
  TILE_WIDTH,
} from "../../verify";
import { startHttpService, type HttpService } from "../support/http-service";
import { startPaidStack, type PaidStack } from "../support/paid-stack";
import { runSignet } from "../support/signet-cli";
import { createLogger } from "../../log";

/** Where this file's own sequencer rounds log: nowhere. */
const quietLog = createLogger("silent");

const WITNESS_NAME = "witness.test/w1";
const witness = generateKeypair();
let stack: PaidStack;
let service: HttpService;
let dir: string;
let agent: Ed25519Keypair;

beforeAll(async () => {
  stack = await startPaidStack({
    timing: "instant",
    env: {
      LOG_PUBLISH_INTERVAL_MS: "10000",
      PREPAID_RATE_LIMIT_PER_MINUTE: "100000",
      LOG_WITNESS_KEYS: witnessVerifierKey(WITNESS_NAME, witness),
    },
  });
  service = await startHttpService();
  dir = mkdtempSync(path.join(tmpdir(), "signet-log-"));
  writeFileSync(path.join(dir, "witness.json"), toSolanaCliJson(witness));
  agent = generateKeypair();
  await stack.credit(agent.publicKeyBase58, 1_000_000n);
});
afterAll(async () => {
  await service?.close();
  await stack?.close();
});

async function call(): Promise<Record<string, unknown>> {
  const text = JSON.stringify({
    nonce: newNonce(),
    timestamp: Date.now(),
    model: "local/echo-1",
    prompt: "monitor me",
  });
  const res = await inferenceRoute(
    new Request("http://signet.test/api/v1/inference", {
      method: "POST",
      headers: signRequestHeaders(agent, "POST", "http://signet.test/api/v1/inference", text),
      body: text,
    }),
    {},
  );
  expect(res.status).toBe(200);
  const parsed = parseReceiptText(res.headers.get("x-service-receipt")!);
  if (!parsed.ok) throw new Error("no receipt");
  return parsed.receipt;
}

async function publishAll(): Promise<void> {
  await publishStaged(stack.tdb.prisma, logIdentity(), quietLog);
}

const signet = (...args: string[]) => runSignet(args, dir, 60_000);
const monitor = (state: string, ...extra: string[]) =>
  signet(
    "log",
    "monitor",
    "--endpoint",
    service.url,
    "--log-key",
    logIdentity().verifierKey,
    "--operator-key",
    operatorKeypair().publicKeyBase58,
    "--state",
    path.join(dir, state),
    ...extra,
  );
const witnessRun = () =>
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
    logIdentity().verifierKey,
    "--state",
    path.join(dir, "witness-state.json"),
    "--submit",
  );

/** Recomputes every stored hash from the entries as they are now and signs a checkpoint: a log operator rewriting history. */
async function resignHistory(): Promise<void> {
  const db = stack.tdb.prisma;
  const entries = await db.logEntry.findMany({ orderBy: { idx: "asc" } });
  const leaves = entries.map((e) => leafHash(new Uint8Array(e.entry)));
  const hashes = new Map<string, Uint8Array>();
  for (const { level, index } of newSubtrees(0, leaves.length)) {
    hashes.set(
      `${level}/${index}`,
      level === 0
        ? leaves[index]!
        : nodeHash(hashes.get(`${level - 1}/${2 * index}`)!, hashes.get(`${level - 1}/${2 * index + 1}`)!),
    );
  }
  await db.$transaction(async (tx) => {
    await tx.logHash.deleteMany({});
    for (const [key, hash] of hashes)
      await tx.logHash.create({
        data: { level: Number(key.split("/")[0]), idx: BigInt(key.split("/")[1]!), hash: Buffer.from(hash) },
      });
    await tx.logCosignature.deleteMany({});
    await tx.logCheckpoint.deleteMany({ where: { size: BigInt(leaves.length) } });
    await tx.logCheckpoint.create({
      data: {
        size: BigInt(leaves.length),
        root: Buffer.from(rootOfLeaves(leaves)),
        note: signCheckpoint(logIdentity(), leaves.length, rootOfLeaves(leaves)),
      },
    });
  });
}

describe("signet verify --log, log witness and log monitor", () => {
  it("prove a receipt's inclusion, cosign a consistent checkpoint and follow the log's growth", async () => {
    const receipts = [await call(), await call(), await call()];
    await publishAll();
    const first = await monitor("a.json");
    expect(first.stdout).toContain("ok: ");
    expect(first.stdout).toContain("at size 3 (was 0); 3 new entries checked");
    expect(first.code).toBe(0);

    writeFileSync(path.join(dir, "receipt.json"), JSON.stringify(receipts[1]));
    const verified = await signet(
      "verify",
      "--receipt",
      path.join(dir, "receipt.json"),
      "--signature-only",
      "--operator-key",
      operatorKeypair().publicKeyBase58,
      "--log",
      "--endpoint",
      service.url,
      "--log-key",
      logIdentity().verifierKey,
      "--json",
    );
    expect(verified.code).toBe(0);
    expect(JSON.parse(verified.stdout)).toMatchObject({ ok: true, log: { ok: true, log_index: 1, tree_size: 3 } });

    // No witness has cosigned yet: a quorum of one cannot be met.
    const witnessKey = witnessVerifierKey(WITNESS_NAME, witness);
    const unwitnessed = await signet(
      "verify",
      "--receipt",
      path.join(dir, "receipt.json"),
      "--signature-only",
      "--operator-key",
      operatorKeypair().publicKeyBase58,
      "--log",
      "--endpoint",
      service.url,
      "--log-key",
      logIdentity().verifierKey,
      "--witness",
      witnessKey,
      "--quorum",
      "1",
      "--log-wait",
      "0",
    );
    expect(unwitnessed.code).toBe(1);
    const cosigned = await witnessRun();
    expect(cosigned.stderr).toContain("cosigned size 3, published");
    expect(cosigned.code).toBe(0);
    const witnessed = await signet(
      "verify",
      "--receipt",
      path.join(dir, "receipt.json"),
      "--signature-only",
      "--operator-key",
      operatorKeypair().publicKeyBase58,
      "--log",
      "--endpoint",
      service.url,
      "--log-key",
      logIdentity().verifierKey,
      "--witness",
      witnessKey,
      "--quorum",
      "1",
      "--json",
    );
    expect(JSON.parse(witnessed.stdout)).toMatchObject({ log: { ok: true, cosigned_by: [WITNESS_NAME] } });

    // A receipt whose fields were changed is not the logged one.
    writeFileSync(path.join(dir, "forged.json"), JSON.stringify({ ...receipts[1], cost_usdc: 0 }));
    const forged = await signet(
      "verify",
      "--receipt",
      path.join(dir, "forged.json"),
      "--signature-only",
      "--operator-key",
      operatorKeypair().publicKeyBase58,
      "--log",
      "--endpoint",
      service.url,
      "--log-key",
      logIdentity().verifierKey,
      "--json",
    );
    expect(forged.code).toBe(1);
    expect(JSON.parse(forged.stdout)).toMatchObject({ ok: false, log: { ok: false, reason: "not_included" } });

    await call();
    await call();
    await publishAll();
    const second = await monitor("a.json");
    expect(second.stdout).toContain("at size 5 (was 3); 2 new entries checked");
    expect(second.code).toBe(0);
    expect((await witnessRun()).code).toBe(0);
  });

  it("catches an entry rewritten in the database", async () => {
    const db = stack.tdb.prisma;
    const original = await db.logEntry.findUniqueOrThrow({ where: { idx: 1n } });
    const rewritten = Buffer.from(
      Buffer.from(original.entry)
        .toString("utf8")
        .replace(/"cost_usdc":[0-9.e-]+/, '"cost_usdc":0'),
    );
    expect(rewritten.equals(Buffer.from(original.entry))).toBe(false);
    await db.logEntry.update({ where: { idx: 1n }, data: { entry: rewritten } });
    try {
      const fresh = await monitor("b.json");
      console.log(`signet log monitor after an entry was rewritten in the database:\n${fresh.stdout}`);
      expect(fresh.code).toBe(1);
      expect(fresh.stdout).toContain("FAILED");
      expect(fresh.stdout).toContain("entry_mismatch [entry 1]: entry 1 does not hash to leaf 1 of the signed tree");
      expect(fresh.stdout).toContain("unverifiable_entry [entry 1]");
    } finally {
      await db.logEntry.update({ where: { idx: 1n }, data: { entry: original.entry } });
    }
    expect((await monitor("b.json")).code).toBe(0);
  });

  it("catches a history rewritten and re-signed with the log key, and the witness refuses to cosign it", async () => {
    const db = stack.tdb.prisma;
    const original = await db.logEntry.findUniqueOrThrow({ where: { idx: 2n } });
    await db.logEntry.update({
      where: { idx: 2n },
      data: {
        entry: Buffer.from(
          Buffer.from(original.entry)
            .toString("utf8")
            .replace(/"cost_usdc":[0-9.e-]+/, '"cost_usdc":0'),
        ),
      },
    });
    await resignHistory();
    const watching = await monitor("a.json");
    console.log(`signet log monitor after the operator rewrote history and re-signed it:\n${watching.stdout}`);
    expect(watching.code).toBe(1);
    expect(watching.stdout).toContain(
      "split_view: two checkpoints of size 5 with different roots, both signed by the log",
    );
    const refused = await witnessRun();
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain("REFUSED: not cosigning (inconsistent)");
    await db.logEntry.update({ where: { idx: 2n }, data: { entry: original.entry } });
    await resignHistory();
  });

  it("catches a forked checkpoint served to a second monitor, by comparing it with the first monitor's view", async () => {
    const forkedSize = (await db().logCheckpoint.findFirstOrThrow({ orderBy: { size: "desc" } })).size;
    const fork = signCheckpoint(logIdentity(), Number(forkedSize), new Uint8Array(32).fill(7));
    // The second monitor's view of the service: everything as served, but a different checkpoint of the same size.
    const proxy = http.createServer((req, res) => {
      if (req.url === "/log/checkpoint")
        return void res.writeHead(200, { "content-type": "text/plain; charset=utf-8" }).end(fork);
      const upstream = http.request(
        `${service.url}${req.url}`,
        { method: req.method, headers: req.headers },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      req.pipe(upstream);
    });
    await new Promise<void>((r) => proxy.listen(0, "127.0.0.1", r));
    try {
      const url = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
      const second = await signet(
        "log",
        "monitor",
        "--endpoint",
        url,
        "--log-key",
        logIdentity().verifierKey,
        "--operator-key",
        operatorKeypair().publicKeyBase58,
        "--state",
        path.join(dir, "c.json"),
        "--compare",
        path.join(dir, "b.json"),
      );
      console.log(
        `a second monitor served a forked checkpoint, compared with the first monitor's view:\n${second.stdout}`,
      );
      expect(second.code).toBe(1);
      expect(second.stdout).toMatch(/split_view: .*b\.json was shown size 5 with root .*: the log signed both/);
    } finally {
      proxy.closeAllConnections();
      proxy.close();
    }
  });
});

const db = () => stack.tdb.prisma;

/** A log served from memory (up to one tile, 256 entries): these receipts' entries in order, under checkpoints signed with the log key. */
async function serveLog(
  receipts: readonly Record<string, unknown>[],
): Promise<{ url: string; append: (...more: Record<string, unknown>[]) => void; close: () => Promise<void> }> {
  const entries = receipts.map(encodeReceiptEntry);
  const server = http.createServer((req, res) => {
    const leaves = entries.map(leafHash);
    if (req.url === "/log/checkpoint")
      return void res
        .writeHead(200, { "content-type": "text/plain; charset=utf-8" })
        .end(signCheckpoint(logIdentity(), leaves.length, rootOfLeaves(leaves)));
    const tile = req.url?.startsWith("/log/tile/")
      ? parseTilePath(req.url.slice("/log/tile/".length).split("/"))
      : null;
    const from = (tile?.index ?? 0) * TILE_WIDTH;
    if (tile?.level === "entries")
      return void res.writeHead(200).end(encodeEntryBundle(entries.slice(from, from + tile.width)));
    if (tile?.level === 0) return void res.writeHead(200).end(Buffer.concat(leaves.slice(from, from + tile.width)));
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    append: (...more) => entries.push(...more.map(encodeReceiptEntry)),
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((r) => server.close(() => r()));
    },
  };
}

describe("signet log monitor across rounds", () => {
  it("reports an inference logged again in a later round than its original as duplicate_entry", async () => {
    const receipts = [await call(), await call(), await call()];
    const log = await serveLog(receipts);
    const watch = () =>
      signet(
        "log",
        "monitor",
        "--endpoint",
        log.url,
        "--log-key",
        logIdentity().verifierKey,
        "--operator-key",
        operatorKeypair().publicKeyBase58,
        "--state",
        path.join(dir, "rounds.json"),
      );
    try {
      const first = await watch();
      expect(first.stdout).toContain("at size 3 (was 0); 3 new entries checked");
      expect(first.code).toBe(0);
      // The second round reads entries 3 and 4: a new receipt, then entry 1's again.
      log.append(await call(), receipts[1]!);
      const second = await watch();
      expect(second.stdout).toContain(`FAILED: ${log.url}/log: 1 finding(s) at size 5 (last verified size 3)`);
      expect(second.stdout).toContain(
        `duplicate_entry [entry 4]: entry 4: inference ${String(receipts[1]!.inference_id)} is logged twice (first at entry 1)`,
      );
      expect(second.code).toBe(1);
    } finally {
      await log.close();
    }
  });
});
