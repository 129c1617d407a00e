// `signet verify`: runs the verifier library on files and prints its result: each check with ✓ or ✗ and its reason
// (format-reports.ts), or with --json the library's result as JSON, byte for byte what scripts read. Without --rpc, a
// paid receipt's payment is checked through the RPC the service's /.well-known/x402 names for its network when both
// the service and that RPC are on this machine (the local chain a dev service pays on), else through the network's
// public RPC. Exit codes: 0 ok, 1 not ok, 2 usage or fetch error (a prompt or response in no form the library reads
// included).
import { parseArgs } from "node:util";
import { serverVerifier } from "../../../server/keys/server-verifier";
import {
  parseReceiptText,
  promptHashCandidates,
  RESPONSE_FORMS,
  responseHash,
  VerifierFetchError,
  VerifyInputError,
  verifyReceiptInclusion,
} from "../../../server/verify";
import { verifyEd25519Node } from "../../../server/keys/node-ed25519";
import { fetchLogKey, fetchReceiptProof, logPrefixOf, LogFetchError } from "../../../server/transparency/log-client";
import {
  jsonOrText,
  logFetchFailure,
  readTextFile,
  resolveEndpoint,
  UsageError,
  watchedServiceFetch,
} from "../cli-support";
import { advertisedRpc, isLoopbackService, trustAdvertisedRpc } from "./advertised-rpc";
import { formatVerifyReport, type LogVerdict } from "./format-reports";
import { VERIFY_USAGE } from "./usage";

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
      json: { type: "boolean", default: false },
    },
    strict: true,
  });
  if (!values.receipt) throw new UsageError(`--receipt is required\nusage: ${VERIFY_USAGE}`);
  const parsed = parseReceiptText(readTextFile(values.receipt, "receipt"));
  if (!parsed.ok)
    throw new UsageError(`receipt file is not receipt JSON or a base64 X-Service-Receipt value (${parsed.reason})`);

  const endpoint = resolveEndpoint(values.endpoint);
  const service = watchedServiceFetch(endpoint);
  const keySource = values["operator-key"] ? { operatorKey: values["operator-key"] } : { endpoint };
  const report = (result: Parameters<typeof formatVerifyReport>[0]["result"], log: LogVerdict | undefined) =>
    values.json
      ? `${JSON.stringify(log ? { ...result, log } : result, null, 2)}\n`
      : formatVerifyReport({ inferenceId: String(parsed.receipt.inference_id ?? ""), result, log });
  try {
    const logCheck = values.log ? () => checkReceiptLog(parsed.receipt, endpoint, values) : async () => undefined;
    if (values["signature-only"]) {
      const result = await serverVerifier.verifySignatureOnly({
        receipt: parsed.receipt,
        ...keySource,
        fetch: service.fetch,
      });
      const log = await logCheck();
      process.stdout.write(report(result, log));
      return result.ok && (log?.ok ?? true) ? 0 : 1;
    }
    if (!values.prompt || !values.response) {
      throw new UsageError(`--prompt and --response are required (or use --signature-only)\nusage: ${VERIFY_USAGE}`);
    }
    const prompt = jsonOrText(readTextFile(values.prompt, "prompt"));
    const response = jsonOrText(readTextFile(values.response, "response"));
    // Input in no form the library reads is a usage mistake (exit 2), not a failed check.
    if (promptHashCandidates(prompt).length === 0)
      throw new UsageError(
        `--prompt ${values.prompt}: expected chat messages, a request body (chat, Responses or embeddings), or text`,
      );
    if (responseHash(response) === null)
      throw new UsageError(`--response ${values.response}: expected ${RESPONSE_FORMS}`);
    const rpc =
      values.rpc ??
      (values.offline
        ? undefined
        : await discoveredRpc(parsed.receipt, endpoint, service.fetch, !values["operator-key"]));
    const result = await serverVerifier.verifyReceipt({
      receipt: parsed.receipt,
      prompt,
      response,
      ...keySource,
      ...(rpc ? { rpc } : {}),
      offline: values.offline,
      fetch: service.fetch,
    });
    const log = await logCheck();
    process.stdout.write(report(result, log));
    return result.ok && (log?.ok ?? true) ? 0 : 1;
  } catch (err) {
    if (err instanceof LogFetchError) throw await logFetchFailure(err.message, endpoint);
    if (err instanceof VerifierFetchError) throw service.failure() ?? new UsageError(err.message);
    if (err instanceof VerifyInputError) throw new UsageError(err.message);
    throw err;
  }
}

/**
 * The RPC the service at `endpoint` names in its /.well-known/x402 for the network of the receipt's payment, when
 * trustAdvertisedRpc() takes it; else undefined (a prepaid receipt, a service not on this machine, no such RPC published,
 * an RPC not on this machine, a redirect, or, with a pinned operator key, a service that did not answer): the verifier
 * then uses the network's public RPC. Says on stderr which RPC it chose, or why it did not take the one the service
 * named; --rpc pins another.
 */
async function discoveredRpc(
  receipt: Record<string, unknown>,
  endpoint: string,
  serviceFetch: (input: string, init?: RequestInit) => Promise<Response>,
  serviceNeeded: boolean,
): Promise<string | undefined> {
  const payment = receipt.payment;
  const network =
    typeof payment === "object" && payment !== null ? (payment as { network?: unknown }).network : undefined;
  if (typeof network !== "string") return undefined;
  // SECURITY: a service not on this machine is not even asked (trustAdvertisedRpc would refuse whatever it named).
  if (!isLoopbackService(endpoint)) return undefined;
  let advertised;
  try {
    advertised = await advertisedRpc(endpoint, network, serviceFetch);
  } catch {
    if (serviceNeeded)
      throw new VerifierFetchError("operator_key_unavailable", `${endpoint}/.well-known/x402 could not be reached`);
    return undefined;
  }
  const trust = trustAdvertisedRpc(endpoint, advertised);
  const fallback = `checking the payment through the network's public RPC (pass --rpc to use another)`;
  if (trust.ok) {
    process.stderr.write(
      `signet: checking the payment through ${trust.rpc}, the RPC ${trust.source} names for ${network} (pass --rpc to use another)\n`,
    );
    return trust.rpc;
  }
  if (advertised.ok && trust.reason === "rpc_not_loopback") {
    process.stderr.write(
      `signet: not using ${advertised.rpc}, the RPC ${advertised.source} names for ${network}: an RPC a service names is taken only at a loopback address (127.0.0.0/8 or [::1]); ${fallback}\n`,
    );
  } else if (!advertised.ok && advertised.reason === "redirected") {
    process.stderr.write(
      `signet: ${advertised.source} answered ${advertised.status}, a redirect to ${advertised.location ?? "nowhere"}: not followed (the RPC must be the service's own answer); ${fallback}\n`,
    );
  }
  return undefined;
}

/** Fetches the receipt's inclusion proof (waiting out `log_pending` up to --log-wait seconds) and verifies it. */
async function checkReceiptLog(
  receipt: Record<string, unknown>,
  endpoint: string,
  opts: { "log-key"?: string; witness?: string[]; quorum?: string; "log-wait"?: string },
): Promise<LogVerdict> {
  const quorum = opts.quorum === undefined ? 0 : Number(opts.quorum);
  const waitS = opts["log-wait"] === undefined ? 10 : Number(opts["log-wait"]);
  if (!Number.isInteger(quorum) || quorum < 0 || quorum > (opts.witness?.length ?? 0))
    throw new UsageError("--quorum is a whole number, at most the number of --witness keys");
  if (!Number.isFinite(waitS) || waitS < 0) throw new UsageError("--log-wait is a number of seconds");
  const prefix = logPrefixOf(endpoint);
  const logKey = opts["log-key"] ?? (await fetchLogKey(prefix));
  const deadline = Date.now() + waitS * 1000;
  for (;;) {
    const fetched = await fetchReceiptProof(endpoint, String(receipt.inference_id), { cosigned: quorum > 0 });
    if (fetched.ok) {
      const result = verifyReceiptInclusion(receipt, fetched.proof, {
        logKey,
        witnesses: opts.witness ?? [],
        quorum,
        ed25519: verifyEd25519Node,
      });
      if (!result.ok) return { ok: false, reason: result.reason };
      return {
        ok: true,
        log_index: result.index,
        tree_size: result.treeSize,
        log_key: logKey,
        cosigned_by: result.cosignedBy.map((c) => c.name),
      };
    }
    if (fetched.reason !== "log_pending" || Date.now() + (fetched.retryAfterS ?? 2) * 1000 > deadline)
      return { ok: false, reason: fetched.reason };
    await new Promise((r) => setTimeout(r, (fetched.retryAfterS ?? 2) * 1000));
  }
}
