import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { bytesToHex } from "@noble/hashes/utils.js";
import { describe, expect, it } from "vitest";
import {
  CHECK_NAMES,
  parseReceiptText,
  receiptSigningBytes,
  VerifierFetchError,
  verifyReceipt,
  verifyVerdictSignature,
  type FetchLike,
  type VerifyReceiptInput,
} from "../../server/verify";
import { buildVectors, GENERATED_VECTORS_DIR, type GeneratedExpected, type RecordedExchange } from "./build-vectors";

const DIR = path.join(import.meta.dirname, "../..", GENERATED_VECTORS_DIR);

function filesOnDisk(dir: string, prefix = ""): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? filesOnDisk(path.join(dir, entry.name), `${prefix}${entry.name}/`)
      : [`${prefix}${entry.name}`],
  );
}

const vectorNames = readdirSync(DIR, { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name)
  .sort();

/**
 * A fetch that plays a vector's recorded-http.json in order. A request the recording does not expect is collected in
 * `mismatches` (and thrown, which the verifier reads as an outage), so the test can name it.
 */
function recordedFetch(exchanges: RecordedExchange[]) {
  let next = 0;
  const mismatches: string[] = [];
  const fetch: FetchLike = async (url, init) => {
    const method = init?.method ?? "GET";
    const exchange = exchanges[next++];
    const body =
      init?.body === undefined ? undefined : (JSON.parse(String(init.body)) as { method?: unknown; params?: unknown });
    const got = { method, url, ...(body ? { rpc_method: body.method, params: body.params } : {}) };
    if (!exchange || JSON.stringify(got) !== JSON.stringify(exchange.request)) {
      mismatches.push(
        `unexpected request ${JSON.stringify(got)}; the recording expects ${JSON.stringify(exchange?.request ?? "nothing")}`,
      );
      throw new Error(mismatches.at(-1));
    }
    const answer = exchange.response;
    if (!("fail" in answer)) return Response.json(answer.body, { status: answer.status });
    if (answer.fail === "network") throw new TypeError("fetch failed");
    if (answer.fail === "refused")
      throw new VerifierFetchError("fetch_refused", "the caller's fetch refused this address");
    return new Promise<Response>((_resolve, reject) =>
      init?.signal?.addEventListener("abort", () => reject(new DOMException("aborted", "AbortError"))),
    );
  };
  return { fetch, mismatches, unused: () => exchanges.length - next };
}

function readVector(name: string) {
  const dir = path.join(DIR, name);
  const has = (file: string) => readdirSync(dir).includes(file);
  const text = (file: string) => readFileSync(path.join(dir, file), "utf8");
  const json = (file: string) => JSON.parse(text(file)) as unknown;
  return {
    receiptText: has("receipt.txt") ? text("receipt.txt") : undefined,
    receipt: has("receipt.json") ? json("receipt.json") : undefined,
    request: json("request.json"),
    response: json("response.json"),
    operatorKey: text("operator-pubkey.txt").trim(),
    expected: json("expected.json") as GeneratedExpected,
    http: has("recorded-http.json") ? (json("recorded-http.json") as RecordedExchange[]) : [],
    verdict: has("verdict.json") ? (json("verdict.json") as Record<string, unknown>) : undefined,
    verifierKey: has("verifier-pubkey.txt") ? text("verifier-pubkey.txt").trim() : undefined,
  };
}

describe("npm run vectors (devtools/vectors/build-vectors.ts)", () => {
  it("regenerates exactly the committed files, byte for byte, and nothing else", () => {
    const built = buildVectors();
    expect(filesOnDisk(DIR).sort()).toEqual([...built.keys()].sort());
    for (const [file, content] of built) expect(readFileSync(path.join(DIR, file), "utf8"), file).toBe(content);
  });

  it("covers valid Solana, Base and prepaid receipts, every failing check, and every error reason", () => {
    const expectations = vectorNames.map((name) => readVector(name).expected);
    const failing = new Set(expectations.flatMap((e) => Object.keys(e.reasons ?? {})));
    expect([...failing].sort()).toEqual([...CHECK_NAMES].sort());
    const fetchReasons = new Set(
      expectations.flatMap((e) => (e.error?.name === "VerifierFetchError" ? [e.error.reason] : [])),
    );
    expect([...fetchReasons].sort()).toEqual([
      "fetch_refused",
      "operator_key_unavailable",
      "rpc_error",
      "rpc_timeout",
      "rpc_unreachable",
    ]);
    const parseReasons = new Set(expectations.flatMap((e) => (e.parse && !e.parse.ok ? [e.parse.reason] : [])));
    expect([...parseReasons].sort()).toEqual(["empty", "not_an_object", "not_json_or_base64"]);
    expect(vectorNames).toEqual(expect.arrayContaining(["solana-paid-001", "base-paid-001", "prepaid-001"]));
  });
});

describe("verifyReceipt() over the generated vectors", () => {
  it.each(vectorNames)("%s: gives exactly the expected checks, reasons or error", async (name) => {
    const v = readVector(name);
    const { expected } = v;

    if (expected.kind === "verdict") {
      expect(verifyVerdictSignature(v.verdict!, v.verifierKey!)).toBe(expected.verdict_signature_ok);
      const receiptSignature = (v.receipt as { service_signature?: unknown }).service_signature;
      expect(v.verdict!.receipt_signature === receiptSignature).toBe(expected.receipt_signature_matches);
      return;
    }

    let receipt = v.receipt;
    if (expected.kind === "parse") {
      const parsed = parseReceiptText(v.receiptText!);
      if (expected.parse?.ok === false) return expect(parsed).toEqual(expected.parse);
      expect(parsed.ok).toBe(true);
      receipt = parsed.ok ? parsed.receipt : undefined;
    }
    if (expected.canonical_payload_hex !== undefined) {
      expect(bytesToHex(receiptSigningBytes(receipt as Record<string, unknown>))).toBe(expected.canonical_payload_hex);
    }

    const run = expected.run!;
    const recording = recordedFetch(v.http);
    const input: VerifyReceiptInput = {
      receipt,
      prompt: v.request,
      response: v.response,
      offline: run.offline,
      fetch: recording.fetch,
      ...(run.operator_key === "pinned" ? { operatorKey: v.operatorKey } : {}),
      ...(run.endpoint !== undefined ? { endpoint: run.endpoint } : {}),
      ...(run.attempt_timeout_ms !== undefined ? { attemptTimeoutMs: run.attempt_timeout_ms } : {}),
    };
    const outcome = await verifyReceipt(input).then(
      (result) => ({ result }),
      (error: unknown) => ({ error }),
    );
    expect(recording.mismatches).toEqual([]);
    expect(recording.unused(), "recorded exchanges the verifier never asked for").toBe(0);

    if (expected.error) {
      expect("error" in outcome, "the verifier should have thrown").toBe(true);
      const error = (outcome as { error: Error & { reason?: string } }).error;
      expect(error.name).toBe(expected.error.name);
      if (expected.error.name === "VerifyInputError") expect(error.message).toBe(expected.error.message);
      else expect(error.reason).toBe(expected.error.reason);
      return;
    }
    expect("result" in outcome, `the verifier threw: ${String((outcome as { error?: unknown }).error)}`).toBe(true);
    const { result } = outcome as { result: Awaited<ReturnType<typeof verifyReceipt>> };
    expect(result.checks).toEqual(expected.checks);
    expect(result.ok).toBe(expected.ok);
    const failingReasons = Object.fromEntries(
      CHECK_NAMES.filter((c) => !result.checks[c]).map((c) => [c, result.reasons[c]]),
    );
    expect(failingReasons).toEqual(expected.reasons ?? {});
  });
});
