// Every command's name, one-line description and usage: what `signet --help` and `signet <cmd> --help` print, and the
// options a mistyped one is matched against. Text only, no imports: help never loads a command's modules.

export const CHAT_USAGE =
  'signet chat "prompt" [--keypair FILE] [--network N] [--endpoint URL] [--model M] [--rpc URL] [--stream] [--save DIR] [--payment-id ID]\n' +
  "  --network: devnet (the default), mainnet, base-sepolia, base, or any network the service is configured with, by the\n" +
  "    name its models list gives (GET /api/v1/models) or its CAIP-2 id.\n" +
  "  Solana: FILE is a Solana CLI keypair; EVM: FILE holds a hex EVM private key (default: the dev demo agents).\n" +
  "  --stream: Server-Sent Events, printed as they arrive, with the timeline (first byte, last byte, receipt event).\n" +
  "  --save DIR: writes receipt.json, prompt.json and response.json (the chunks when streamed) for signet verify,\n" +
  "    and x402-receipt.json (the x402 signed receipt).\n" +
  "  --payment-id ID: the payment's x402 payment-identifier (16-128 of A-Z a-z 0-9 _ -): the same id with another payment is refused.";

export const VERIFY_USAGE =
  "signet verify --receipt FILE --prompt FILE --response FILE [--operator-key BASE58] [--endpoint URL] [--rpc URL] [--offline] [--signature-only]\n" +
  "    [--log [--log-key VKEY] [--witness VKEY]… [--quorum N] [--log-wait SEC]] [--json]\n" +
  "  --response: the chat-completion JSON, a streamed answer's JSON array of chunks, or its concatenated text.\n" +
  "  --rpc: the chain RPC that checks the payment; default: the network's public RPC, or, when --endpoint is this\n" +
  "    machine (127.0.0.0/8, [::1] or localhost), the one its /.well-known/x402 names if that is 127.0.0.0/8 or [::1].\n" +
  "  --log: also check that the receipt is in the service's receipt log, under a checkpoint signed by the log key.\n" +
  "  --json: the result as JSON (for scripts); by default each check with ✓ or ✗ and its reason.";

const KEYGEN_USAGE = "signet keygen [--evm] [--out FILE]";

export const LOCALNET_USAGE =
  "signet localnet start [--solana-port N] [--solana-mainnet-port N] [--evm-port N] [--base-port N] [--polygon-amoy-port N]\n" +
  "    [--avalanche-fuji-port N]\n" +
  "  signet localnet fund <pubkey|0x-address> [--usdc N] [--sol N] [--eth N] [--rpc URL]\n" +
  "  start: the dev chains alone (a port of 0 leaves that chain out), printing what a production-mode server needs to\n" +
  "    use them, until Ctrl-C. fund: only the amounts given (a Solana key: --sol, --usdc; a 0x address: --eth, --usdc).";

export const SETTINGS_USAGE = "signet settings set KEY VALUE | signet settings list";

export const INFER_USAGE = 'signet infer "prompt" [--keypair FILE] [--endpoint URL] [--model M] [--network N]';
export const TOPUP_USAGE =
  "signet topup AMOUNT_USDC [--keypair FILE] [--endpoint URL] [--network N] [--rpc URL] [--payment-id ID]";
const BALANCE_USAGE = "signet balance [--keypair FILE] [--endpoint URL] [--network N] [--json]";
const GRANT_USAGE = "signet grant [--keypair FILE] [--endpoint URL]";
export const SIGN_USAGE = "signet sign PATH --body JSON|- [--keypair FILE] [--endpoint URL] [--json]";

export const OPERATOR_USAGE = "signet operator login-link [--key FILE] [--endpoint URL]";

export const RECONCILE_USAGE = "signet reconcile [--network devnet|mainnet|base-sepolia|base] [--since DATE] [--json]";

export const DOCTOR_USAGE =
  "signet doctor [--endpoint URL | --local] [--metrics-token TOKEN] [--json]\n" +
  "  The deployment report npm start prints: version, database, networks and their RPC hosts, keys, fee payers against\n" +
  "    their alert levels, the mainnet switch, what is degraded. Exits 1 when something would stop payments.\n" +
  "  --endpoint: a running deployment, over HTTP (--metrics-token: its METRICS_TOKEN, for the health's detail).\n" +
  "  --local: the deployment this environment configures, checked as npm start checks it (no server needed).";

export const LOG_USAGE =
  "signet log monitor [--endpoint URL] [--log-key VKEY]… [--operator-key BASE58] [--state FILE] [--compare FILE|URL]… [--interval SEC]\n" +
  "  signet log witness --key FILE --name NAME [--endpoint URL] [--log-key VKEY] [--state FILE] [--submit] [--print-key]";

export const MCP_USAGE =
  "signet mcp [--keypair FILE] [--network N] [--endpoint URL] [--rpc URL] [--pay x402|prepaid] [--model M]\n" +
  "    [--max-per-call USDC] [--max-session USDC]\n" +
  "  A local MCP server on stdin/stdout for an MCP host (Claude Desktop, Cursor): tools chat, respond, balance, top_up,\n" +
  "  verify_receipt and receipts, paid from FILE's key (a Solana keypair; else $SIGNET_AGENT_SECRET_KEY; else the dev\n" +
  "  demo agent) on a Solana network, per call with x402 (--pay x402, the default) or from prepaid credit (--pay\n" +
  "  prepaid).\n" +
  "  The budget: --max-per-call (default 0.01) and --max-session (default 0.1) USDC; a call over it is refused before\n" +
  "  anything is signed. Nothing but MCP is written to stdout; notes go to stderr.";

export const COMMAND_NAMES = [
  "chat",
  "mcp",
  "verify",
  "infer",
  "topup",
  "balance",
  "grant",
  "sign",
  "keygen",
  "localnet",
  "operator",
  "settings",
  "reconcile",
  "log",
  "doctor",
] as const;
export type CommandName = (typeof COMMAND_NAMES)[number];

const COMMANDS: Record<CommandName, { summary: string; usage: string }> = {
  chat: { summary: "pay for a chat completion with x402, then verify its receipt", usage: CHAT_USAGE },
  mcp: { summary: "a local MCP server (stdio) that pays within a budget and verifies every receipt", usage: MCP_USAGE },
  verify: {
    summary: "verify a saved receipt against its prompt, answer, operator key and payment",
    usage: VERIFY_USAGE,
  },
  infer: { summary: "a signed prepaid call, paid from the agent's credit", usage: INFER_USAGE },
  topup: { summary: "buy prepaid credit with an x402 payment", usage: TOPUP_USAGE },
  balance: { summary: "the agent's prepaid balance and recent ledger entries", usage: BALANCE_USAGE },
  grant: { summary: "claim the free grant: sign the service's challenge", usage: GRANT_USAGE },
  sign: {
    summary: "sign a request body for prepaid credit and print it as a curl command (nothing is sent)",
    usage: SIGN_USAGE,
  },
  keygen: { summary: "make a Solana keypair, or an EVM key with --evm", usage: KEYGEN_USAGE },
  localnet: {
    summary: "run the local dev chains alone, or fund an account on them (never production)",
    usage: LOCALNET_USAGE,
  },
  operator: { summary: "print a one-time dashboard sign-in link", usage: OPERATOR_USAGE },
  settings: { summary: "list or set the operator settings (in the database)", usage: SETTINGS_USAGE },
  reconcile: { summary: "compare on-chain deposits with the payments and the ledger", usage: RECONCILE_USAGE },
  log: { summary: "monitor the receipt log, or witness (cosign) its checkpoints", usage: LOG_USAGE },
  doctor: { summary: "the deployment report; exits 1 when something would stop payments", usage: DOCTOR_USAGE },
};

/** `signet --help`: one line per command. */
export function mainUsage(): string {
  const width = Math.max(...COMMAND_NAMES.map((n) => n.length));
  return [
    "usage: signet <command> [options]",
    "",
    "commands:",
    ...COMMAND_NAMES.map((n) => `  ${n.padEnd(width)}  ${COMMANDS[n].summary}`),
    "",
    "signet <command> --help prints a command's options.",
    "The service: --endpoint URL, else $SIGNET_ENDPOINT, else $SERVICE_BASE_URL, else http://localhost:$PORT (3000).",
  ].join("\n");
}

/** `signet <command> --help`. */
export function commandUsage(name: CommandName): string {
  return `${COMMANDS[name].summary}\nusage: ${COMMANDS[name].usage}`;
}

/** The long options a command's usage names (what a mistyped option is matched against), with --help. */
export function commandOptions(name: CommandName): string[] {
  return [...new Set([...(COMMANDS[name].usage.match(/--[a-z][a-z0-9-]*/g) ?? []), "--help"])];
}
