// The text of a one-time operator login link and how long it (and a sign-in challenge) stays valid: shared by the
// sign-in that redeems a link and the dev operator that signs one.
import "server-only";

/** How long a sign-in challenge or login link may be used. */
export const SIGN_IN_TTL_MS = 5 * 60_000;

/** The text an operator key signs for a one-time login link. */
export function loginLinkMessage(serviceUrl: string, pubkey: string, nonce: string, expiresAt: Date): string {
  return [
    "Signet operator login link.",
    "",
    `Service: ${serviceUrl}`,
    `Operator: ${pubkey}`,
    `Nonce: ${nonce}`,
    `Expires: ${expiresAt.toISOString()}`,
  ].join("\n");
}
