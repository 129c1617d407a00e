// The MCP Inspector's CLI mode (@modelcontextprotocol/inspector --cli), a client we did not write, against the remote
// MCP server: it lists the tools, and calls verify_receipt on a receipt of a paid call, whose five checks pass.
import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MCP_TOOLS } from "../../mcp/mcp-payment-binding";
import { CHECK_NAMES, parseReceiptText } from "../../verify";
import { startServedStack, type ServedStack } from "../support/http-service";
import { runNodeScript } from "../support/signet-cli";
import { REPO_ROOT } from "../verify/vectors";

let served: ServedStack;
let catalog: string;

beforeAll(async () => {
  served = await startServedStack({ timing: "instant", env: { X402_FLAT_PRICE_USDC: "0.001" } });
  catalog = path.join(mkdtempSync(path.join(os.tmpdir(), "signet-inspector-")), "mcp.json");
}, 120_000);
afterAll(async () => served?.close());

/** `mcp-inspector --cli <service>/mcp …args`: its exit code and stdout parsed as JSON. */
async function inspector(args: string[]): Promise<{ code: number | null; json: unknown; stderr: string }> {
  const bin = path.join(REPO_ROOT, "node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js");
  const { code, stdout, stderr } = await runNodeScript(
    bin,
    ["--cli", `${served.service.url}/mcp`, ...args],
    { ...process.env, MCP_CATALOG_PATH: catalog },
    60_000,
  );
  let json: unknown;
  try {
    json = JSON.parse(stdout);
  } catch {
    json = stdout;
  }
  return { code, json, stderr };
}

describe("the MCP Inspector's CLI", () => {
  it("lists the tools, each with an input schema", async () => {
    const listed = await inspector(["--method", "tools/list"]);
    expect(listed.code, listed.stderr).toBe(0);
    const tools = (listed.json as { tools: { name: string; inputSchema: { type: string } }[] }).tools;
    expect(tools.map((t) => t.name).sort()).toEqual([...MCP_TOOLS.paid, ...MCP_TOOLS.free].sort());
    expect(tools.every((t) => t.inputSchema.type === "object")).toBe(true);
  });

  it("calls verify_receipt on a paid call's receipt: ok, the five checks, a signed verdict", async () => {
    const signer = await served.stack.newAgent();
    const messages = [{ role: "user", content: "checked by the Inspector" }];
    const res = await served.stack.payingFetch(signer)(`${served.service.url}/api/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "local/echo-1", messages }),
    });
    expect(res.status).toBe(200);
    const parsed = parseReceiptText(res.headers.get("x-service-receipt") ?? "");
    if (!parsed.ok) throw new Error("no receipt");
    const called = await inspector([
      "--method",
      "tools/call",
      "--tool-name",
      "verify_receipt",
      "--tool-arg",
      `receipt=${JSON.stringify(parsed.receipt)}`,
      `prompt=${JSON.stringify(messages)}`,
      `response=${JSON.stringify(await res.json())}`,
      `rpc=${served.stack.devnet.url}`,
    ]);
    expect(called.code, called.stderr).toBe(0);
    expect(called.json).toMatchObject({
      structuredContent: {
        ok: true,
        checks: Object.fromEntries(CHECK_NAMES.map((check) => [check, true])),
        receipt_signature: expect.any(String),
      },
    });
  });
});
