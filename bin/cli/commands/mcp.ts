// `signet mcp`: the local MCP server on stdio (server/agent/local-mcp-server.ts), for an MCP host to start. Its key is
// --keypair FILE (a Solana keypair), else SIGNET_AGENT_SECRET_KEY, else the dev demo agent; its chain the network's RPC
// (--rpc, else the one the service names in its /.well-known/x402, else this environment's). Runs until the host
// closes stdin; stdout is MCP's alone.
import path from "node:path";
import { parseArgs } from "node:util";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { createLocalMcpServer } from "../../../server/agent/local-mcp-server";
import { readKeypairFile } from "../../../server/agent/paying-fetch";
import { KeyFormatError, parseSecretKey, type Ed25519Keypair } from "../../../server/keys/parse-secret-key";
import { parseUsdcToUnits } from "../../../server/verify";
import { familyFacts } from "../../../server/verify/chain-family-facts";
import { cliConfig, resolveEndpoint, serviceFetch, UsageError } from "../cli-support";
import { advertisedRpc } from "./advertised-rpc";
import { DEMO_AGENT_FILE } from "./chat";
import { payingNetwork } from "./paying-network";
import { MCP_USAGE } from "./usage";

/** Serves MCP on stdio until the host closes it; 0 then. */
export async function runMcp(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      keypair: { type: "string" },
      network: { type: "string", default: "devnet" },
      endpoint: { type: "string" },
      rpc: { type: "string" },
      pay: { type: "string", default: "x402" },
      model: { type: "string", default: "local/echo-1" },
      "max-per-call": { type: "string", default: "0.01" },
      "max-session": { type: "string", default: "0.1" },
    },
  });
  if (values.pay !== "x402" && values.pay !== "prepaid")
    throw new UsageError(`--pay is x402 or prepaid, not ${values.pay}\nusage: ${MCP_USAGE}`);
  const perCallUnits = usdcOption(values["max-per-call"], "--max-per-call");
  const sessionUnits = usdcOption(values["max-session"], "--max-session");
  const endpoint = resolveEndpoint(values.endpoint);
  const cfg = await cliConfig();
  const network = cfg.networks.get(payingNetwork(values.network, cfg.networks));
  // One key pays and signs prepaid requests: a network whose payer key cannot sign them (an EVM one) is not served.
  if (!familyFacts(network).payerSignsPrepaid)
    throw new UsageError(
      `signet mcp pays on Solana networks, whose key also signs prepaid calls; ${network.label} is not one`,
    );
  const toService = serviceFetch(endpoint);
  const advertised = values.rpc ? null : await advertisedRpc(endpoint, network.caip2, toService).catch(() => null);
  const rpc = values.rpc ?? (advertised?.ok ? advertised.rpc : undefined) ?? cfg.rpcUrls[network.id];
  if (!rpc) throw new UsageError(`no RPC known for ${network.label}; pass --rpc`);
  const keypair = agentKeypair(values.keypair, process.env[AGENT_KEY_VARIABLE], cfg.dataDir);
  const server = createLocalMcpServer({
    endpoint,
    keypair,
    network,
    rpc,
    pay: values.pay,
    model: values.model,
    budget: { perCallUnits, sessionUnits },
    fetch: toService,
  });
  // The host ends the session by closing stdin (or the transport): then the command returns.
  const closed = new Promise<void>((resolve) => {
    server.server.onclose = resolve;
    process.stdin.once("end", resolve);
  });
  await server.connect(new StdioServerTransport());
  process.stderr.write(
    `signet mcp: agent ${keypair.publicKeyBase58} on ${network.label}, paying ${endpoint} (${values.pay}); budget ${values["max-per-call"]} USDC per call, ${values["max-session"]} USDC per session\n`,
  );
  await closed;
  return 0;
}

/** The environment variable `signet mcp` takes its agent's key from when no --keypair is given. */
const AGENT_KEY_VARIABLE = "SIGNET_AGENT_SECRET_KEY";

/**
 * The agent's key: the keypair FILE, else the key in SIGNET_AGENT_SECRET_KEY (base58 of a 32-byte seed or a 64-byte
 * Solana secret key, or the Solana CLI's JSON array), else the dev demo agent under the data dir. A key that does not
 * parse is a usage error naming where it came from, never echoing it.
 */
function agentKeypair(file: string | undefined, fromEnv: string | undefined, dataDir: string): Ed25519Keypair {
  if (file === undefined && fromEnv !== undefined && fromEnv !== "") {
    try {
      return parseSecretKey(fromEnv);
    } catch (err) {
      const reason = err instanceof KeyFormatError ? err.message : "not a key";
      throw new UsageError(`${AGENT_KEY_VARIABLE} is not a Solana secret key: ${reason}`);
    }
  }
  const keyFile = file ?? path.join(dataDir, DEMO_AGENT_FILE);
  try {
    return readKeypairFile(keyFile);
  } catch {
    throw new UsageError(`cannot read the Solana keypair ${keyFile} (the dev demo agent is created by npm run dev)`);
  }
}

function usdcOption(text: string, name: string): bigint {
  const units = /^\d{1,9}(\.\d{1,6})?$/.test(text) ? parseUsdcToUnits(text) : null;
  if (units === null) throw new UsageError(`${name} is an amount of USDC (e.g. 0.05), not ${text}`);
  return units;
}
