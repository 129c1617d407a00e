// `signet keygen [--evm] [--out FILE]`: a new Ed25519 keypair in the Solana CLI JSON form (64 numbers), or with
// --evm a new EVM private key as hex (the form `signet chat --network base-sepolia --keypair FILE` reads).
import { writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { generatePrivateKey } from "viem/accounts";
import { evmAddressOf } from "../../../server/keys/evm-key";
import { generateKeypair, toSolanaCliJson } from "../../../server/keys/parse-secret-key";
import { UsageError } from "../cli-support";

/** Writes the key to --out (never overwriting) and prints the public key or address; without --out prints the key too. */
export async function runKeygen(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: { out: { type: "string" }, evm: { type: "boolean", default: false } },
    strict: true,
  });
  let secret: string;
  let publicId: string;
  if (values.evm) {
    const key = generatePrivateKey();
    secret = key;
    publicId = evmAddressOf(key);
  } else {
    const keypair = generateKeypair();
    secret = toSolanaCliJson(keypair);
    publicId = keypair.publicKeyBase58;
  }
  if (values.out) {
    try {
      writeFileSync(values.out, `${secret}${values.evm ? "\n" : ""}`, { flag: "wx", mode: 0o600 });
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      throw new UsageError(
        code === "EEXIST" ? `${values.out} exists; refusing to overwrite a key` : `cannot write ${values.out}`,
      );
    }
    process.stdout.write(`${publicId}\n`);
  } else {
    process.stdout.write(`${secret}\n`);
    process.stderr.write(`${values.evm ? "address" : "public key"}: ${publicId}\n`);
  }
  return 0;
}
