// `signet operator login-link --key FILE [--endpoint URL]`: a one-time sign-in URL signed with an operator key file,
// for a server reached without a browser wallet. Valid for five minutes, once.
import { randomBytes } from "node:crypto";
import { parseArgs } from "node:util";
import { utf8ToBytes } from "@noble/hashes/utils.js";
import { readKeypairFile } from "../../server/agent/paying-fetch";
import { loginLinkMessage, SIGN_IN_TTL_MS } from "../../server/operator-auth/sign-in";
import { signDetached } from "../../server/receipts/sign-receipt";
import { UsageError } from "../cli-support";

export const OPERATOR_USAGE = "signet operator login-link --key FILE [--endpoint URL]";

/** Prints the link. */
export async function runOperator(argv: string[]): Promise<number> {
  const [action, ...rest] = argv;
  if (action !== "login-link") throw new UsageError(`usage: ${OPERATOR_USAGE}`);
  const { values } = parseArgs({ args: rest, options: { key: { type: "string" }, endpoint: { type: "string", default: "http://localhost:3000" } } });
  if (!values.key) throw new UsageError(`--key is required\nusage: ${OPERATOR_USAGE}`);
  let keypair;
  try {
    keypair = readKeypairFile(values.key);
  } catch {
    throw new UsageError(`cannot read the operator key ${values.key}`);
  }
  const endpoint = values.endpoint.replace(/\/+$/, "");
  const message = loginLinkMessage(endpoint, keypair.publicKeyBase58, randomBytes(16).toString("hex"), new Date(Date.now() + SIGN_IN_TTL_MS));
  const signature = signDetached(utf8ToBytes(message), keypair);
  process.stdout.write(`${endpoint}/api/operator/login-link?m=${Buffer.from(message).toString("base64url")}&s=${signature}\n`);
  return 0;
}
