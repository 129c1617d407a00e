// `signet infer` and `signet balance` as child processes over real HTTP: the CLI signs in the current form, naming the
// service's origin (its --endpoint), and the service accepts it.
import { execFile } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateKeypair } from "../../keys/parse-secret-key";
import { setEnv } from "../support/env";
import { startHttpService, type HttpService } from "../support/http-service";
import { runSignet } from "../support/signet-cli";
import { startPaidStack, type PaidStack } from "../support/paid-stack";

let stack: PaidStack;
let service: HttpService;
let scratch: string;
let restore: () => Promise<void>;

beforeAll(async () => {
  stack = await startPaidStack();
  service = await startHttpService();
  // The service's public origin is the address the CLI reaches it at.
  restore = setEnv({ SERVICE_BASE_URL: service.url });
  scratch = mkdtempSync(path.join(os.tmpdir(), "signet-cli-prepaid-"));
});
afterAll(async () => {
  await restore?.();
  await service?.close();
  await stack?.close();
});

describe("signet infer and signet balance", () => {
  it("make signed prepaid calls the service accepts", async () => {
    const kp = generateKeypair();
    const keyFile = path.join(scratch, "agent.json");
    writeFileSync(keyFile, JSON.stringify([...kp.seed, ...kp.publicKey]));
    await stack.credit(kp.publicKeyBase58, 100_000n);
    const dataDir = path.join(scratch, "data");

    const infer = await runSignet(
      ["infer", "signed for this service", "--keypair", keyFile, "--endpoint", service.url],
      dataDir,
      30_000,
    );
    expect(infer.code, infer.stderr).toBe(0);
    expect(infer.stdout).toContain('You said: "signed for this service"');

    const balance = await runSignet(
      ["balance", "--keypair", keyFile, "--endpoint", service.url, "--network", "devnet", "--json"],
      dataDir,
      30_000,
    );
    expect(balance.code, balance.stderr).toBe(0);
    const answer = JSON.parse(balance.stdout) as {
      agent_pubkey: string;
      network: string;
      balance_usdc: string;
      entries: { kind: string; amount_usdc: string }[];
    };
    expect(answer).toMatchObject({ agent_pubkey: kp.publicKeyBase58 });

    // By default the same answer, readable: the balance on its network, then the entries newest first.
    const readable = await runSignet(
      ["balance", "--keypair", keyFile, "--endpoint", service.url, "--network", "devnet"],
      dataDir,
      30_000,
    );
    expect(readable.code, readable.stderr).toBe(0);
    const lines = readable.stdout.trimEnd().split("\n");
    expect(lines.slice(0, 3)).toEqual([
      `agent ${kp.publicKeyBase58} on Solana devnet (${answer.network})`,
      `balance: ${answer.balance_usdc} USDC`,
      `recent ledger entries (${answer.entries.length}, newest first):`,
    ]);
    expect(lines.slice(3).map((l) => l.trim().split(/\s+/).slice(1, 3))).toEqual(
      answer.entries.map((e) => [e.kind, e.amount_usdc.startsWith("-") ? e.amount_usdc : `+${e.amount_usdc}`]),
    );
  });
});

describe("signet sign", () => {
  it("prints a curl command that spends credit at /api/v1/chat/completions, and the same request as JSON", async () => {
    const kp = generateKeypair();
    const keyFile = path.join(scratch, "signer.json");
    writeFileSync(keyFile, JSON.stringify([...kp.seed, ...kp.publicKey]));
    await stack.credit(kp.publicKeyBase58, 100_000n);
    const dataDir = path.join(scratch, "data-sign");
    const body = JSON.stringify({
      model: "local/echo-1",
      messages: [{ role: "user", content: "it's signed for curl" }],
    });
    const sign = (extra: string[]) =>
      runSignet(
        ["sign", "/api/v1/chat/completions", "--body", body, "--keypair", keyFile, "--endpoint", service.url, ...extra],
        dataDir,
        30_000,
      );

    const printed = await sign([]);
    expect(printed.code, printed.stderr).toBe(0);
    expect(printed.stdout).toMatch(/^curl -sS '/);
    const { stdout } = await promisify(execFile)("bash", ["-c", printed.stdout], { encoding: "utf8" });
    const answer = JSON.parse(stdout) as { object: string; choices: { message: { content: string } }[] };
    expect(answer.object).toBe("chat.completion");
    expect(answer.choices[0]!.message.content).toContain("it's signed for curl");

    const json = await sign(["--json"]);
    expect(json.code, json.stderr).toBe(0);
    const request = JSON.parse(json.stdout) as { url: string; headers: Record<string, string>; body: string };
    expect(request.url).toBe(`${service.url}/api/v1/chat/completions`);
    const res = await fetch(request.url, { method: "POST", headers: request.headers, body: request.body });
    expect(res.status).toBe(200);
    // A printed request is good once: its nonce is spent.
    const again = await fetch(request.url, { method: "POST", headers: request.headers, body: request.body });
    expect(again.status).toBe(409);

    const refused = await runSignet(
      ["sign", "/api/v1/chat/completions", "--body", "[1]", "--keypair", keyFile],
      dataDir,
      30_000,
    );
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("--body must be a JSON object");
  });
});
