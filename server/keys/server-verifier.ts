// The server's one verifier: server/verify's checks with node:crypto as the Ed25519 backend. Every server path that
// checks a signature (hosted verdicts, signed requests, grants, operator sign-in, the CLI and the bench) uses it.
import "server-only";
import { createVerifier } from "../verify";
import { verifyEd25519Node } from "./node-ed25519";

/** server/verify bound to node:crypto (OpenSSL), which accepts exactly the signatures noble accepts, faster. */
export const serverVerifier = createVerifier({ ed25519: verifyEd25519Node });
