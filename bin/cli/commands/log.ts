// `signet log monitor` and `signet log witness`: the receipt log's outside checkers (server/transparency).
// Exit codes: 0 nothing wrong, 1 a finding (monitor) or a refusal to cosign (witness), 2 usage or fetch error.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { parseSecretKey } from "../../../server/keys/parse-secret-key";
import { parseOperatorKeys, type OperatorKeys } from "../../../server/verify";
import { fetchLogKey, logPrefixOf, LogFetchError } from "../../../server/transparency/log-client";
import { monitorLog } from "../../../server/transparency/monitor-log";
import { witnessLog, witnessVerifierKey } from "../../../server/transparency/witness-log";
import { cliConfig, logFetchFailure, readTextFile, resolveEndpoint, serviceFetch, UsageError } from "../cli-support";
import { LOG_USAGE } from "./usage";

/** Runs `signet log <sub>`; returns the exit code. */
export async function runLog(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === "monitor") return runMonitor(rest);
  if (sub === "witness") return runWitness(rest);
  throw new UsageError(`usage: ${LOG_USAGE}`);
}

async function pinnedOrFetchedKey(prefix: string, pinned: string | undefined): Promise<string> {
  if (pinned) return pinned;
  const key = await fetchLogKey(prefix);
  process.stderr.write(`signet: using the log key ${prefix}/key serves (${key}); pin it with --log-key\n`);
  return key;
}

/** The operator keys entries must be signed by: the pinned key alone, or the current and retired keys the service publishes. */
async function operatorKeysOf(endpoint: string, pinned: string | undefined): Promise<OperatorKeys> {
  if (pinned) return { pubkey: pinned, retired: [] };
  const res = await serviceFetch(endpoint, 10_000)(`${endpoint}/api/v1/operator-key`);
  const keys = parseOperatorKeys(await res.json().catch(() => null));
  if (!keys) throw new UsageError(`cannot fetch the operator key from ${endpoint}; pass --operator-key`);
  return keys;
}

/** A view to compare with: a monitor state file (its checkpoint), a checkpoint note file, or a checkpoint URL. */
async function readView(source: string): Promise<{ label: string; checkpoint: string }> {
  if (/^https?:\/\//.test(source)) {
    const res = await fetch(source, { signal: AbortSignal.timeout(10_000) }).catch(() => null);
    if (!res?.ok) throw new UsageError(`cannot fetch the checkpoint at ${source}`);
    return { label: source, checkpoint: await res.text() };
  }
  const text = readTextFile(source, "compare");
  try {
    const state = JSON.parse(text) as { checkpoint?: unknown };
    if (typeof state.checkpoint === "string") return { label: source, checkpoint: state.checkpoint };
  } catch {
    // not JSON: a checkpoint note
  }
  return { label: source, checkpoint: text };
}

async function runMonitor(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      endpoint: { type: "string" },
      // Given twice during a log key rotation: the old key and the new one.
      "log-key": { type: "string", multiple: true },
      "operator-key": { type: "string" },
      state: { type: "string" },
      compare: { type: "string", multiple: true },
      interval: { type: "string" },
    },
    strict: true,
  });
  const endpoint = resolveEndpoint(values.endpoint);
  const prefix = logPrefixOf(endpoint);
  const interval = values.interval === undefined ? 0 : Number(values.interval);
  if (!Number.isFinite(interval) || interval < 0) throw new UsageError("--interval is a number of seconds");
  try {
    const logKey = values["log-key"]?.length ? values["log-key"] : await pinnedOrFetchedKey(prefix, undefined);
    const operatorKeys = await operatorKeysOf(endpoint, values["operator-key"]);
    const signedBy = `${operatorKeys.pubkey}${operatorKeys.retired.length > 0 ? ` (or, before its retirement, by one of ${operatorKeys.retired.length} retired keys)` : ""}`;
    const stateFile = values.state ?? path.join((await cliConfig()).dataDir, "log-monitor.json");
    for (;;) {
      const compareWith = await Promise.all((values.compare ?? []).map(readView));
      const report = await monitorLog({ prefix, logKey, operatorKeys, stateFile, compareWith });
      if (report.ok) {
        process.stdout.write(
          `ok: ${prefix} at size ${report.size} (was ${report.previousSize}); ${report.checked} new entries checked, each receipt signed by ${signedBy}\n`,
        );
      } else {
        process.stdout.write(
          `FAILED: ${prefix}: ${report.findings.length} finding(s) at size ${report.size} (last verified size ${report.previousSize})\n`,
        );
        for (const f of report.findings)
          process.stdout.write(`  ${f.kind}${f.index !== undefined ? ` [entry ${f.index}]` : ""}: ${f.detail}\n`);
        if (report.previousSize > 0)
          process.stdout.write(
            `  the monitor's state (${stateFile}) still holds the last checkpoint it verified: keep it as evidence\n`,
          );
        return 1;
      }
      if (interval === 0) return 0;
      await new Promise((r) => setTimeout(r, interval * 1000));
    }
  } catch (err) {
    if (err instanceof LogFetchError) throw await logFetchFailure(err.message, endpoint);
    throw err;
  }
}

async function runWitness(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      endpoint: { type: "string" },
      "log-key": { type: "string" },
      key: { type: "string" },
      name: { type: "string" },
      state: { type: "string" },
      submit: { type: "boolean", default: false },
      "print-key": { type: "boolean", default: false },
    },
    strict: true,
  });
  if (!values.key || !values.name) throw new UsageError(`--key and --name are required\nusage: ${LOG_USAGE}`);
  if (!existsSync(values.key))
    throw new UsageError(`cannot read key file ${values.key} (make one with: signet keygen --out FILE)`);
  let keypair;
  try {
    keypair = parseSecretKey(readFileSync(values.key, "utf8"));
  } catch {
    throw new UsageError(`${values.key} is not an Ed25519 secret key`);
  }
  if (values["print-key"]) {
    process.stdout.write(`${witnessVerifierKey(values.name, keypair)}\n`);
    return 0;
  }
  const endpoint = resolveEndpoint(values.endpoint);
  const prefix = logPrefixOf(endpoint);
  try {
    const logKey = await pinnedOrFetchedKey(prefix, values["log-key"]);
    const stateFile = values.state ?? path.join((await cliConfig()).dataDir, "log-witness.json");
    const result = await witnessLog({
      prefix,
      logKey,
      name: values.name,
      keypair,
      stateFile,
      submit: values.submit,
      now: Date.now(),
    });
    if (!result.ok) {
      process.stdout.write(`REFUSED: not cosigning (${result.reason}): ${result.detail}\n`);
      return 1;
    }
    process.stdout.write(result.cosigned);
    process.stderr.write(
      `signet: cosigned size ${result.size}${result.published ? `, published at ${prefix}/checkpoints/${result.size}` : " (not submitted: pass --submit)"}\n`,
    );
    return 0;
  } catch (err) {
    if (err instanceof LogFetchError) throw await logFetchFailure(err.message, endpoint);
    throw err;
  }
}
