// The browser side of operator sign-in: fetch a challenge, have the wallet sign it, exchange it for the session
// cookie. Browser-safe (fetch + bs58 only).
import bs58 from "bs58";
import { serviceError } from "@/server/errors/error-body";

export type SignInOutcome = { ok: true } | { ok: false; message: string };

/** Signs in with the connected wallet. */
export async function signInWithWallet(
  pubkey: string,
  signMessage: (message: Uint8Array) => Promise<Uint8Array>,
): Promise<SignInOutcome> {
  const { message } = (await (await fetch("/api/operator/challenge")).json()) as { message: string };
  let signature: Uint8Array;
  try {
    signature = await signMessage(new TextEncoder().encode(message));
  } catch {
    return { ok: false, message: "The wallet did not sign the challenge." };
  }
  const res = await fetch("/api/operator/session", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ pubkey, message, signature: bs58.encode(signature) }),
  });
  if (res.ok) return { ok: true };
  const { code } = serviceError(await res.json().catch(() => ({})));
  return {
    ok: false,
    message:
      code === "forbidden" ? "This wallet is not an operator of this service." : "Sign-in failed; please try again.",
  };
}
