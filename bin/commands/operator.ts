// `signet operator login-link [--key FILE] [--endpoint URL]`: a one-time sign-in URL signed with an operator key file,
// for a server reached without a browser wallet. Valid for five minutes, once. Without --key it signs with the dev
// sign-in key that a service outside production generates in its data directory and lets in.
import path from "node:path";
import { parseArgs } from "node:util";
import { readKeypairFile } from "../../server/agent/paying-fetch";
import { config } from "../../server/env";
import { DEV_OPERATOR_SIGN_IN_KEY_FILE, signedLoginLink } from "../../server/operator-auth/dev-operator";
import { UsageError } from "../cli-support";

export const OPERATOR_USAGE = "signet operator login-link [--key FILE] [--endpoint URL]";

/** Prints the link. */
export async function runOperator(argv: string[]): Promise<number> {
  const [action, ...rest] = argv;
  if (action !== "login-link") throw new UsageError(`usage: ${OPERATOR_USAGE}`);
  const { values } = parseArgs({ args: rest, options: { key: { type: "string" }, endpoint: { type: "string", default: "http://localhost:3000" } } });
  const keyFile = values.key ?? path.join(config().dataDir, DEV_OPERATOR_SIGN_IN_KEY_FILE);
  let keypair;
  try {
    keypair = readKeypairFile(keyFile);
  } catch {
    throw new UsageError(
      values.key
        ? `cannot read the operator key ${values.key}`
        : `no --key given, and no dev sign-in key at ${keyFile}: start the service with npm run dev (it makes one), or pass --key FILE\nusage: ${OPERATOR_USAGE}`,
    );
  }
  process.stdout.write(`${signedLoginLink(values.endpoint, keypair)}\n`);
  return 0;
}
