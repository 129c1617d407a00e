// `signet operator login-link [--key FILE] [--endpoint URL]`: a one-time sign-in URL signed with an operator key file,
// for a server reached without a browser wallet. Valid for five minutes, once. Without --key it signs with the dev
// sign-in key that a service outside production generates in its data directory and lets in: only for a service on
// this machine, never a remote one (whose operators sign in with keys of their own).
import path from "node:path";
import { parseArgs } from "node:util";
import { readFileSync } from "node:fs";
import { parseSecretKey } from "../../../server/keys/parse-secret-key";
import { DEV_OPERATOR_SIGN_IN_KEY_FILE, signedLoginLink } from "../../../server/operator-auth/dev-operator";
import { cliConfig, resolveEndpoint, UsageError } from "../cli-support";
import { isLoopbackService } from "./advertised-rpc";
import { OPERATOR_USAGE } from "./usage";

/** Prints the link on stdout, and on stderr which key it signs in as and what the service answers a key it does not list. */
export async function runOperator(argv: string[]): Promise<number> {
  const [action, ...rest] = argv;
  if (action !== "login-link") throw new UsageError(`usage: ${OPERATOR_USAGE}`);
  const { values } = parseArgs({ args: rest, options: { key: { type: "string" }, endpoint: { type: "string" } } });
  const endpoint = resolveEndpoint(values.endpoint);
  // SECURITY: the dev sign-in key is a file in a dev data directory; a link it signs is for a dev service on this
  // machine. A remote service lets in only the keys its operator lists, so signing with it there is always a mistake.
  if (values.key === undefined && !isLoopbackService(endpoint)) {
    throw new UsageError(
      `${endpoint} is not on this machine: pass --key FILE, an operator key listed in that service's SERVICE_OPERATOR_PUBKEYS (the dev sign-in key signs for a local service only)\nusage: ${OPERATOR_USAGE}`,
    );
  }
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
  process.stdout.write(`${signedLoginLink(endpoint, keypair, Date.now())}\n`);
  // What the service answers a link whose key it does not let in (server/operator-auth/sign-in.ts redeemLoginLink).
  process.stderr.write(
    `signet: the link signs in as ${keypair.publicKeyBase58}: the service must list it in SERVICE_OPERATOR_PUBKEYS${values.key === undefined ? " (a service outside production also lets in its own dev sign-in key)" : ""}; otherwise opening it answers 403 forbidden: this key is not an operator of this service\n`,
  );
  return 0;
}
