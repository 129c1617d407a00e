// `signet verify`: runs the verifier library on files and prints its result as JSON.
// Exit codes: 0 ok, 1 not ok, 2 usage or fetch error.
import { parseArgs } from "node:util";
import { serverVerifier } from "../../server/keys/server-verifier";
import { parseReceiptText, VerifierFetchError, VerifyInputError } from "../../server/verify";
import { jsonOrText, readTextFile, UsageError } from "../cli-support";

export const VERIFY_USAGE =
  "signet verify --receipt FILE --prompt FILE --response FILE [--operator-key BASE58] [--endpoint URL] [--rpc URL] [--offline] [--signature-only]\n" +
  "  --response: the chat-completion JSON, a streamed answer's JSON array of chunks, or its concatenated text.";

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
    if (values["signature-only"]) {
      const result = await serverVerifier.verifySignatureOnly({ receipt: parsed.receipt, ...keySource });
      process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
      return result.ok ? 0 : 1;
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
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    return result.ok ? 0 : 1;
  } catch (err) {
    if (err instanceof VerifierFetchError || err instanceof VerifyInputError) throw new UsageError(err.message);
    throw err;
  }
}
