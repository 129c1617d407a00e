// The signet CLI: dispatches to one command module per verb.
import { failUsage, UsageError } from "./cli-support";
import { runKeygen } from "./commands/keygen";
import { runVerify, VERIFY_USAGE } from "./commands/verify";
import { CHAT_USAGE, runChat } from "./commands/chat";
import { LOCALNET_USAGE, runLocalnet } from "./commands/localnet";
import { runSettings, SETTINGS_USAGE } from "./commands/settings";
import { PREPAID_USAGE, runBalance, runGrant, runInfer, runTopUp } from "./commands/prepaid";
import { OPERATOR_USAGE, runOperator } from "./commands/operator";
import { RECONCILE_USAGE, runReconcile } from "./commands/reconcile";
import { LOG_USAGE, runLog } from "./commands/log";

const COMMANDS: Record<string, { run: (argv: string[]) => Promise<number>; usage: string }> = {
  verify: { run: runVerify, usage: VERIFY_USAGE },
  keygen: { run: runKeygen, usage: "signet keygen [--evm] [--out FILE]" },
  chat: { run: runChat, usage: CHAT_USAGE },
  localnet: { run: runLocalnet, usage: LOCALNET_USAGE },
  settings: { run: runSettings, usage: SETTINGS_USAGE },
  infer: { run: runInfer, usage: PREPAID_USAGE.split("\n  ")[0]! },
  topup: { run: runTopUp, usage: PREPAID_USAGE.split("\n  ")[1]! },
  balance: { run: runBalance, usage: PREPAID_USAGE.split("\n  ")[2]! },
  grant: { run: runGrant, usage: PREPAID_USAGE.split("\n  ")[3]! },
  operator: { run: runOperator, usage: OPERATOR_USAGE },
  reconcile: { run: runReconcile, usage: RECONCILE_USAGE },
  log: { run: runLog, usage: LOG_USAGE },
};

function usage(): string {
  return ["usage:", ...Object.values(COMMANDS).map((c) => `  ${c.usage}`)].join("\n");
}

const [name, ...rest] = process.argv.slice(2);
const command = name ? COMMANDS[name] : undefined;
if (!command) {
  process.stderr.write(`${name ? `signet: unknown command ${name}\n` : ""}${usage()}\n`);
  process.exit(2);
}
try {
  process.exitCode = await command.run(rest);
} catch (err) {
  if (err instanceof UsageError || (err as { code?: string }).code?.startsWith("ERR_PARSE_ARGS")) failUsage((err as Error).message);
  failUsage(`unexpected error: ${(err as Error).message}`);
}
