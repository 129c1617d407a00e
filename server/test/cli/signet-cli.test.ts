// The `signet` CLI as users run it: `node bin/cli/signet.mjs …` from the repo root, one child process per call, over every
// public vector. Exit codes: 0 ok, 1 not ok, 2 usage or fetch error (one line on stderr).
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseSecretKey } from "../../keys/parse-secret-key";
import { evmAddressOf, parseEvmPrivateKey } from "../../keys/evm-key";
import { isBase58PublicKey } from "../../verify";
import { closedPort, startServer, type LocalServer } from "../verify/local-servers";
import { runSignet, type CliRun } from "../support/signet-cli";
import { assertVectorsPresent, expectedChecks, readVector, vectorNames } from "../verify/vectors";

const scratch = mkdtempSync(path.join(tmpdir(), "signet-cli-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
let fileCount = 0;
function scratchFile(name: string, content?: string): string {
  const file = path.join(scratch, `${fileCount++}-${name}`);
  if (content !== undefined) writeFileSync(file, content);
  return file;
}

type Run = CliRun;

/** Runs the CLI in a child process (async, so servers in this process can answer it). */
function signet(args: string[]): Promise<Run> {
  return runSignet(args, path.join(scratch, "data"));
}

/** A usage or fetch error: exit 2, nothing on stdout, exactly one `signet: …` line on stderr. */
function expectUsageError(r: Run, reason?: RegExp): void {
  expect(r.code, r.stderr).toBe(2);
  expect(r.stdout).toBe("");
  const lines = r.stderr.trimEnd().split("\n");
  expect(lines, r.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(/^signet: \S/);
  if (reason) expect(lines[0]).toMatch(reason);
}

/** A usage mistake: exit 2, nothing on stdout, the reason on the first line of stderr, the command's usage after it. */
function expectUsageMistake(r: Run, reason: string): void {
  expect(r.code, r.stderr).toBe(2);
  expect(r.stdout).toBe("");
  const [first, second] = r.stderr.split("\n");
  expect(first).toBe(reason);
  expect(second).toMatch(/^usage: signet /);
}

function verifyArgs(name: string, receiptFile?: string): string[] {
  const v = readVector(name);
  return [
    "verify",
    "--receipt",
    receiptFile ?? path.join(v.dir, "receipt.json"),
    "--prompt",
    path.join(v.dir, "request.json"),
    "--response",
    path.join(v.dir, "response.json"),
    "--operator-key",
    v.operatorKey,
    "--offline",
    "--json",
  ];
}

/** The library result the CLI prints, checked against a vector's expected booleans offline. */
function expectOfflineResult(name: string, r: Run): void {
  const v = readVector(name);
  const want = expectedChecks(v, { online: false });
  const result = JSON.parse(r.stdout) as { ok: boolean; checks: Record<string, boolean>; operatorKey: string };
  expect(result.checks).toEqual(want);
  expect(result.operatorKey).toBe(v.operatorKey);
  expect(result.ok).toBe(Object.values(want).every(Boolean));
  expect(r.code, r.stderr).toBe(v.expected.ok === true ? 0 : 1);
  expect(r.stderr).toBe("");
}

const base64Receipt = (name: string) =>
  scratchFile(
    `${name}.b64`,
    `${Buffer.from(readFileSync(path.join(readVector(name).dir, "receipt.json"))).toString("base64")}\n`,
  );

describe("signet verify", () => {
  it("finds the vectors folder with at least one vector", () => {
    assertVectorsPresent();
  });

  it.each(vectorNames())(
    "verifies vector %s offline with a pinned key: the expected booleans and exit code",
    async (name) => {
      expectOfflineResult(name, await signet(verifyArgs(name)));
    },
  );

  it.each(vectorNames())(
    "reads vector %s from the base64 X-Service-Receipt form with the same result",
    async (name) => {
      expectOfflineResult(name, await signet(verifyArgs(name, base64Receipt(name))));
    },
  );

  it.each(vectorNames())(
    "prints vector %s as a readable report by default (each check with ✓ or ✗ and its reason), with --json's exit code",
    async (name) => {
      const asJson = await signet(verifyArgs(name));
      const result = JSON.parse(asJson.stdout) as {
        ok: boolean;
        checks: Record<string, boolean>;
        reasons: Record<string, string>;
        operatorKey: string;
      };
      const r = await signet(verifyArgs(name).filter((a) => a !== "--json"));
      expect(r.code, r.stderr).toBe(asJson.code);
      const receipt = JSON.parse(readFileSync(path.join(readVector(name).dir, "receipt.json"), "utf8")) as {
        inference_id?: string;
      };
      expect(r.stdout).toBe(
        [
          `receipt ${receipt.inference_id ?? "(no inference id)"}: ${result.ok ? "ok" : "NOT OK"}`,
          ...Object.entries(result.checks).map(
            ([check, passed]) => `  ${passed ? "✓" : "✗"} ${check}: ${result.reasons[check]}`,
          ),
          `  operator key: ${result.operatorKey}`,
          "",
        ].join("\n"),
      );
    },
  );

  it.each(vectorNames())(
    "checks only the signature of vector %s with --signature-only and just a receipt",
    async (name) => {
      const v = readVector(name);
      const r = await signet([
        "verify",
        "--receipt",
        path.join(v.dir, "receipt.json"),
        "--operator-key",
        v.operatorKey,
        "--signature-only",
        "--json",
      ]);
      const want = v.expected.checks.service_signature_ok === true;
      expect(JSON.parse(r.stdout)).toMatchObject({
        ok: want,
        checks: { service_signature_ok: want },
        operatorKey: v.operatorKey,
      });
      expect(Object.keys((JSON.parse(r.stdout) as { checks: object }).checks)).toEqual(["service_signature_ok"]);
      expect(r.code).toBe(want ? 0 : 1);
    },
  );

  describe("fetching the operator key from --endpoint", () => {
    let service: LocalServer;
    const v = () =>
      readVector(
        vectorNames().find((n) => readVector(n).expected.checks.service_signature_ok === true) ?? "prepaid-001",
      );
    beforeAll(async () => {
      service = await startServer((req, _body, res) => {
        if (req.url === "/api/v1/operator-key") {
          return res
            .writeHead(200, { "content-type": "application/json" })
            .end(JSON.stringify({ pubkey: v().operatorKey, algorithm: "ed25519", encoding: "base58" }));
        }
        res.writeHead(404).end();
      });
    });
    afterAll(() => service.close());

    it("uses the key the endpoint serves", async () => {
      const r = await signet([
        "verify",
        "--receipt",
        path.join(v().dir, "receipt.json"),
        "--endpoint",
        service.url,
        "--signature-only",
        "--json",
      ]);
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ ok: true, operatorKey: v().operatorKey });
      expect(service.hits.at(-1)?.url).toBe("/api/v1/operator-key");
    });

    it("exits 2 with one line when the endpoint has no operator key (404)", async () => {
      expectUsageError(
        await signet([
          "verify",
          "--receipt",
          path.join(v().dir, "receipt.json"),
          "--endpoint",
          `${service.url}/nothing`,
          "--signature-only",
        ]),
      );
    });
  });

  describe("rejects malformed input", () => {
    const anyVector = () => readVector(vectorNames()[0] ?? "prepaid-001");

    it("exits 2 with one line when --receipt is missing", async () => {
      expectUsageError(await signet(["verify"]), /--receipt/);
    });

    it("exits 2 with one line when the receipt file cannot be read", async () => {
      const missing = path.join(scratch, "does-not-exist.json");
      expectUsageError(
        await signet(["verify", "--receipt", missing, "--signature-only", "--operator-key", anyVector().operatorKey]),
        /cannot read receipt file/,
      );
    });

    it("exits 2 with one line when the prompt file cannot be read", async () => {
      const v = anyVector();
      const args = [
        "verify",
        "--receipt",
        path.join(v.dir, "receipt.json"),
        "--prompt",
        path.join(scratch, "nope.json"),
        "--response",
        path.join(v.dir, "response.json"),
        "--operator-key",
        v.operatorKey,
      ];
      expectUsageError(await signet(args), /cannot read prompt file/);
    });

    it.each([
      ["--response", "response", JSON.stringify({ output: "Paris." }), /--response \S+: expected a chat completion/],
      ["--prompt", "prompt", JSON.stringify({ input: [{ weird: 1 }] }), /--prompt \S+: expected chat messages/],
    ])(
      "exits 2 with one line when %s holds JSON in no form the library reads",
      async (_flag, which, content, reason) => {
        const v = anyVector();
        const files = {
          prompt: path.join(v.dir, "request.json"),
          response: path.join(v.dir, "response.json"),
          [which]: scratchFile(`unreadable-${which}.json`, content),
        };
        const args = ["verify", "--receipt", path.join(v.dir, "receipt.json"), "--operator-key", v.operatorKey];
        expectUsageError(await signet([...args, "--prompt", files.prompt, "--response", files.response]), reason);
      },
    );

    it.each([
      ["text that is neither JSON nor base64", "this is not a receipt"],
      ["a JSON array", "[1,2,3]"],
    ])("exits 2 with one line when the receipt file holds %s", async (_label, content) => {
      expectUsageError(
        await signet([
          "verify",
          "--receipt",
          scratchFile("bad-receipt", content),
          "--signature-only",
          "--operator-key",
          anyVector().operatorKey,
        ]),
      );
    });

    it("exits 2 with one line when --operator-key is not a base58 public key", async () => {
      expectUsageError(
        await signet([
          "verify",
          "--receipt",
          path.join(anyVector().dir, "receipt.json"),
          "--signature-only",
          "--operator-key",
          "not-a-key",
        ]),
      );
    });

    it("exits 2 with one line when --prompt and --response are missing without --signature-only", async () => {
      expectUsageError(
        await signet([
          "verify",
          "--receipt",
          path.join(anyVector().dir, "receipt.json"),
          "--operator-key",
          anyVector().operatorKey,
        ]),
        /--prompt/,
      );
    });

    it("exits 2 for an unknown flag: one line naming it, then the usage", async () => {
      expectUsageMistake(await signet(["verify", "--bogus"]), "signet: unknown option --bogus for signet verify");
    });

    it("exits 2 with one line naming the service when the endpoint is unreachable and no key is pinned", async () => {
      const v = anyVector();
      const endpoint = `http://127.0.0.1:${await closedPort()}`;
      const args = [
        "verify",
        "--receipt",
        path.join(v.dir, "receipt.json"),
        "--prompt",
        path.join(v.dir, "request.json"),
        "--response",
        path.join(v.dir, "response.json"),
        "--endpoint",
        endpoint,
        "--offline",
      ];
      expectUsageError(
        await signet(args),
        new RegExp(`^signet: the service at ${endpoint} did not answer \\(connection refused\\)`),
      );
    });

    it("exits 2 with the usage for an unknown command", async () => {
      const r = await signet(["frobnicate"]);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe("");
      expect(r.stderr.split("\n")[0]).toBe("signet: unknown command frobnicate");
    });
  });
});

describe("signet keygen", () => {
  it("writes a Solana CLI keypair (64 numbers) to --out and prints its public key", async () => {
    const out = scratchFile("id.json");
    const r = await signet(["keygen", "--out", out]);
    expect(r.code, r.stderr).toBe(0);
    const pubkey = r.stdout.trim();
    expect(isBase58PublicKey(pubkey)).toBe(true);
    const bytes = JSON.parse(readFileSync(out, "utf8")) as number[];
    expect(bytes).toHaveLength(64);
    expect(bytes.every((b) => Number.isInteger(b) && b >= 0 && b <= 255)).toBe(true);
    expect(parseSecretKey(readFileSync(out, "utf8")).publicKeyBase58).toBe(pubkey);
    expect(statSync(out).mode & 0o077).toBe(0);
  });

  it("writes an EVM key (hex) with --evm and prints its lower-case address", async () => {
    const out = scratchFile("evm.txt");
    const r = await signet(["keygen", "--evm", "--out", out]);
    expect(r.code, r.stderr).toBe(0);
    const key = parseEvmPrivateKey(readFileSync(out, "utf8"));
    expect(key).not.toBeNull();
    expect(r.stdout.trim()).toBe(evmAddressOf(key!));
    expect(r.stdout.trim()).toMatch(/^0x[0-9a-f]{40}$/);
    expect(statSync(out).mode & 0o077).toBe(0);
  });

  it("refuses to overwrite an existing file: exit 2, one line, the file unchanged", async () => {
    const out = scratchFile("existing.json", "[1,2,3]");
    expectUsageError(await signet(["keygen", "--out", out]), /refusing to overwrite/);
    expect(readFileSync(out, "utf8")).toBe("[1,2,3]");
  });

  it("rejects malformed input: exits 2 for an unknown flag, naming it, then the usage", async () => {
    expectUsageMistake(await signet(["keygen", "--force"]), "signet: unknown option --force for signet keygen");
  });
});
