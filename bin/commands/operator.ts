// `signet operator login-link [--key FILE] [--endpoint URL]`: a one-time sign-in URL signed with an operator key file,
// for a server reached without a browser wallet. Valid for five minutes, once. Without --key it signs with the dev
// sign-in key that a service outside production generates in its data directory and lets in.
import path from "node:path";
import { parseArgs } from "node:util";
import { readFileSync } from "node:fs";
import { parseSecretKey } from "../../server/keys/parse-secret-key";
import { DEV_OPERATOR_SIGN_IN_KEY_FILE, signedLoginLink } from "../../server/operator-auth/dev-operator";
import { cliConfig, resolveEndpoint, UsageError } from "../cli-support";
import { OPERATOR_USAGE } from "./usage";

/** Prints the link. */
export async function runOperator(argv: string[]): Promise<number> {
  const [action, ...rest] = argv;
  if (action !== "login-link") throw new UsageError(`usage: ${OPERATOR_USAGE}`);
  const { values } = parseArgs({ args: rest, options: { key: { type: "string" }, endpoint: { type: "string" } } });
  const endpoint = resolveEndpoint(values.endpoint);
  const keyFile = values.key ?? path.join((await cliConfig()).dataDir, DEV_OPERATOR_SIGN_IN_KEY_FILE);
  let keypair;
  try {
    keypair = parseSecretKey(readFileSync(keyFile, "utf8"));
  } catch {
    throw new UsageError(
      values.key
        ? `cannot read the operator key ${values.key}`
        : `no --key given, and no dev sign-in key at ${keyFile}: start the service with npm run dev (it makes one), or pass --key FILE\nusage: ${OPERATOR_USAGE}`,
    );
  }
  process.stdout.write(`${signedLoginLink(endpoint, keypair)}\n`);
  return 0;
}
