// The signet CLI: help, then one command module per verb, loaded only when its command runs (help and usage mistakes
// never load the service's modules). Exit codes: 0 ok, 1 a negative result, 2 a usage error, a refusal or a service
// that did not answer; a reason is one line on stderr, never a stack trace.
import { closestMatch, UsageError } from "./cli-support";
import { COMMAND_NAMES, commandOptions, commandUsage, mainUsage, type CommandName } from "./commands/usage";

type Run = (argv: string[]) => Promise<number>;

const LOAD: Record<CommandName, () => Promise<Run>> = {
  chat: async () => (await import("./commands/chat")).runChat,
  mcp: async () => (await import("./commands/mcp")).runMcp,
  verify: async () => (await import("./commands/verify")).runVerify,
  infer: async () => (await import("./commands/prepaid")).runInfer,
  topup: async () => (await import("./commands/prepaid")).runTopUp,
  balance: async () => (await import("./commands/prepaid")).runBalance,
  grant: async () => (await import("./commands/prepaid")).runGrant,
  sign: async () => (await import("./commands/prepaid")).runSign,
  keygen: async () => (await import("./commands/keygen")).runKeygen,
  localnet: async () => (await import("./commands/localnet")).runLocalnet,
  operator: async () => (await import("./commands/operator")).runOperator,
  settings: async () => (await import("./commands/settings")).runSettings,
  reconcile: async () => (await import("./commands/reconcile")).runReconcile,
  log: async () => (await import("./commands/log")).runLog,
  doctor: async () => (await import("./commands/doctor")).runDoctor,
};

const isCommand = (name: string): name is CommandName => (COMMAND_NAMES as readonly string[]).includes(name);
const wantsHelp = (args: string[]) => {
  const end = args.indexOf("--");
  return (end < 0 ? args : args.slice(0, end)).some((a) => a === "--help" || a === "-h");
};

/** A usage mistake: the reason on one line, then the usage, on stderr; exit 2. */
function mistake(reason: string, usage: string): number {
  process.stderr.write(`signet: ${reason}\n${usage}\n`);
  return 2;
}

/** A parseArgs error (unknown option, missing value, stray argument) as one plain line with a suggestion. */
function parseArgsReason(err: { code: string; message: string }, name: CommandName): string {
  const quoted = /'([^']*)'/.exec(err.message)?.[1] ?? "";
  if (err.code === "ERR_PARSE_ARGS_UNKNOWN_OPTION") {
    const option = quoted.split("=")[0]!;
    const guess = closestMatch(option, commandOptions(name));
    return `unknown option ${option} for signet ${name}${guess ? `; did you mean ${guess}?` : ""}`;
  }
  if (err.code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE")
    return `${quoted.replace(/ <value>$/, "") || "an option"} needs a value`;
  if (err.code === "ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL") return `unexpected argument ${quoted} for signet ${name}`;
  return err.message.split("\n")[0]!;
}

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined) return mistake("a command is required", mainUsage());
  if (name === "--help" || name === "-h" || name === "help") {
    const topic = rest[0];
    if (topic === undefined || name !== "help") return (void process.stdout.write(`${mainUsage()}\n`), 0);
    if (!isCommand(topic)) return unknownCommand(topic);
    process.stdout.write(`${commandUsage(topic)}\n`);
    return 0;
  }
  if (!isCommand(name)) return unknownCommand(name);
  if (wantsHelp(rest)) {
    process.stdout.write(`${commandUsage(name)}\n`);
    return 0;
  }
  try {
    return await (
      await LOAD[name]()
    )(rest);
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    if (typeof code === "string" && code.startsWith("ERR_PARSE_ARGS"))
      return mistake(
        parseArgsReason(err as { code: string; message: string }, name),
        `usage: ${commandUsage(name).split("\nusage: ")[1]}`,
      );
    const message =
      err instanceof UsageError ? err.message : `unexpected error: ${err instanceof Error ? err.message : String(err)}`;
    process.stderr.write(`signet: ${message.split("\n")[0]}\n`);
    return 2;
  }
}

function unknownCommand(name: string): number {
  if (name.startsWith("-")) return mistake(`unknown option ${name}; a command comes first`, mainUsage());
  const guess = closestMatch(name, COMMAND_NAMES);
  return mistake(`unknown command ${name}${guess ? `; did you mean ${guess}?` : ""}`, mainUsage());
}

process.exitCode = await main(process.argv.slice(2));
