// `signet verify`: runs the verifier library on files and prints its result as JSON.
// Exit codes: 0 ok, 1 not ok, 2 usage or fetch error.
import { parseArgs } from "node:util";
import { serverVerifier } from "../../server/keys/server-verifier";
import { parseReceiptText, VerifierFetchError, VerifyInputError, verifyReceiptInclusion } from "../../server/verify";
import { verifyEd25519Node } from "../../server/keys/node-ed25519";
import { fetchLogKey, fetchReceiptProof, logPrefixOf, LogFetchError } from "../../server/transparency/log-client";
import { jsonOrText, readTextFile, UsageError } from "../cli-support";

export const VERIFY_USAGE =
  "signet verify --receipt FILE --prompt FILE --response FILE [--operator-key BASE58] [--endpoint URL] [--rpc URL] [--offline] [--signature-only]\n" +
  "    [--log [--log-key VKEY] [--witness VKEY]… [--quorum N] [--log-wait SEC]]\n" +
  "  --response: the chat-completion JSON, a streamed answer's JSON array of chunks, or its concatenated text.\n" +
  "  --log: also check that the receipt is in the service's receipt log, under a checkpoint signed by the log key.";

const DEFAULT_ENDPOINT = "http://localhost:3000";

/** Runs the command; returns the exit code. */
export async function runVerify(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      receipt: { type: "string" },
      prompt: { type: "string" },
      response: { type: "string" },
      "operator-key": { type: "string" },
      endpoint: { type: "string" },
      rpc: { type: "string" },
      offline: { type: "boolean", default: false },
      "signature-only": { type: "boolean", default: false },
      log: { type: "boolean", default: false },
      "log-key": { type: "string" },
      witness: { type: "string", multiple: true },
      quorum: { type: "string" },
      "log-wait": { type: "string" },
    },
    strict: true,
  });
  if (!values.receipt) throw new UsageError(`--receipt is required\nusage: ${VERIFY_USAGE}`);
  const parsed = parseReceiptText(readTextFile(values.receipt, "receipt"));
  if (!parsed.ok) throw new UsageError(`receipt file is not receipt JSON or a base64 X-Service-Receipt value (${parsed.reason})`);

  const keySource = {
    ...(values["operator-key"] ? { operatorKey: values["operator-key"] } : { endpoint: values.endpoint ?? DEFAULT_ENDPOINT }),
  };
  try {
    const logCheck = values.log ? () => checkReceiptLog(parsed.receipt, values.endpoint ?? DEFAULT_ENDPOINT, values) : async () => undefined;
    if (values["signature-only"]) {
      const result = await serverVerifier.verifySignatureOnly({ receipt: parsed.receipt, ...keySource });
      const log = await logCheck();
      process.stdout.write(`${JSON.stringify(log ? { ...result, log } : result, null, 2)}\n`);
      return result.ok && (log?.ok ?? true) ? 0 : 1;
    }
    if (!values.prompt || !values.response) {
      throw new UsageError(`--prompt and --response are required (or use --signature-only)\nusage: ${VERIFY_USAGE}`);
    }
    const result = await serverVerifier.verifyReceipt({
      receipt: parsed.receipt,
      prompt: jsonOrText(readTextFile(values.prompt, "prompt")),
      response: jsonOrText(readTextFile(values.response, "response")),
      ...keySource,
      ...(values.rpc ? { rpc: values.rpc } : {}),
      offline: values.offline,
    });
    const log = await logCheck();
    process.stdout.write(`${JSON.stringify(log ? { ...result, log } : result, null, 2)}\n`);
    return result.ok && (log?.ok ?? true) ? 0 : 1;
  } catch (err) {
    if (err instanceof VerifierFetchError || err instanceof VerifyInputError || err instanceof LogFetchError) throw new UsageError(err.message);
    throw err;
  }
}

type LogVerdict = { ok: true; log_index: number; tree_size: number; log_key: string; cosigned_by: string[] } | { ok: false; reason: string };

/** Fetches the receipt's inclusion proof (waiting out `log_pending` up to --log-wait seconds) and verifies it. */
async function checkReceiptLog(
  receipt: Record<string, unknown>,
  endpoint: string,
  opts: { "log-key"?: string; witness?: string[]; quorum?: string; "log-wait"?: string },
): Promise<LogVerdict> {
  const quorum = opts.quorum === undefined ? 0 : Number(opts.quorum);
  const waitS = opts["log-wait"] === undefined ? 10 : Number(opts["log-wait"]);
  if (!Number.isInteger(quorum) || quorum < 0 || quorum > (opts.witness?.length ?? 0)) throw new UsageError("--quorum is a whole number, at most the number of --witness keys");
  if (!Number.isFinite(waitS) || waitS < 0) throw new UsageError("--log-wait is a number of seconds");
  const prefix = logPrefixOf(endpoint);
  const logKey = opts["log-key"] ?? (await fetchLogKey(prefix));
  const deadline = Date.now() + waitS * 1000;
  for (;;) {
    const fetched = await fetchReceiptProof(endpoint, String(receipt.inference_id), { cosigned: quorum > 0 });
    if (fetched.ok) {
      const result = verifyReceiptInclusion(receipt, fetched.proof, { logKey, witnesses: opts.witness ?? [], quorum, ed25519: verifyEd25519Node });
      if (!result.ok) return { ok: false, reason: result.reason };
      return { ok: true, log_index: result.index, tree_size: result.treeSize, log_key: logKey, cosigned_by: result.cosignedBy.map((c) => c.name) };
    }
    if (fetched.reason !== "log_pending" || Date.now() + (fetched.retryAfterS ?? 2) * 1000 > deadline) return { ok: false, reason: fetched.reason };
    await new Promise((r) => setTimeout(r, (fetched.retryAfterS ?? 2) * 1000));
  }
}
