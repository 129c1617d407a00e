// `signet keygen [--out FILE]`: a new Ed25519 keypair in the Solana CLI JSON form (64 numbers).
import { writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { generateKeypair, toSolanaCliJson } from "../../server/keys/parse-secret-key";
import { UsageError } from "../cli-support";

/** Writes the keypair to --out (never overwriting) and prints the public key; without --out prints the JSON too. */
export async function runKeygen(argv: string[]): Promise<number> {
  const { values } = parseArgs({ args: argv, options: { out: { type: "string" } }, strict: true });
  const keypair = generateKeypair();
  if (values.out) {
    try {
      writeFileSync(values.out, toSolanaCliJson(keypair), { flag: "wx", mode: 0o600 });
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      throw new UsageError(code === "EEXIST" ? `${values.out} exists; refusing to overwrite a key` : `cannot write ${values.out}`);
    }
    process.stdout.write(`${keypair.publicKeyBase58}\n`);
  } else {
    process.stdout.write(`${toSolanaCliJson(keypair)}\n`);
    process.stderr.write(`public key: ${keypair.publicKeyBase58}\n`);
  }
  return 0;
}
