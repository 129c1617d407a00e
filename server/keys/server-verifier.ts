// The server's one verifier: server/verify's checks with node:crypto as the Ed25519 backend. Every server path that
// checks a signature (hosted verdicts, signed requests, grants, operator sign-in, the CLI and the bench) uses it.
import "server-only";
import { createHash } from "node:crypto";
import { createVerifier } from "../verify";
import { verifyEd25519Node } from "./node-ed25519";

/** server/verify bound to node:crypto (OpenSSL) for signatures and hashes: exactly noble's answers, faster. */
export const serverVerifier = createVerifier({ ed25519: verifyEd25519Node, sha256: sha256HexNode });

/** SHA-256 of the UTF-8 bytes of `text` as lower-case hex, through OpenSSL: the same digest as noble's, faster. */
export function sha256HexNode(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}
