// The browser side of a grant claim: fetch the challenge, have the wallet sign it, claim, and say what happened in a
// sentence a person understands. Browser-safe (fetch + bs58 only).
import bs58 from "bs58";
import { serviceError } from "@/server/errors/error-body";

export type GrantOutcome =
  | { ok: true; grantedUsdc: string; balanceUsdc: string; network: string }
  | { ok: false; code: string; sentence: string };

const SENTENCES: Record<string, string> = {
  grant_already_claimed: "This wallet has already claimed its grant. Each key can claim once.",
  grant_ip_limit:
    "Too many grants have been claimed from your network address. Try again from another connection later.",
  grant_budget_exhausted: "Today's grant budget is used up. Grants reset at midnight UTC; please come back tomorrow.",
  challenge_expired: "The sign-in challenge expired or was already used. Please try again.",
  invalid_signature: "The wallet's signature did not match the challenge. Please try again with the same wallet.",
  invalid_request: "The request was not valid. Please reconnect your wallet and try again.",
};

/** Runs the whole claim with `signMessage` from the connected wallet. */
export async function claimGrantWithWallet(
  agentPubkey: string,
  signMessage: (message: Uint8Array) => Promise<Uint8Array>,
): Promise<GrantOutcome> {
  const challengeRes = await fetch(`/api/v1/grants/challenge?agent_pubkey=${encodeURIComponent(agentPubkey)}`);
  if (!challengeRes.ok) return failure(await challengeRes.json().catch(() => ({})));
  const { challenge } = (await challengeRes.json()) as { challenge: string };
  let signature: Uint8Array;
  try {
    signature = await signMessage(new TextEncoder().encode(challenge));
  } catch {
    return {
      ok: false,
      code: "wallet_refused",
      sentence: "The wallet did not sign the challenge, so nothing was claimed.",
    };
  }
  const res = await fetch("/api/v1/grants", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ agent_pubkey: agentPubkey, challenge, signature: bs58.encode(signature) }),
  });
  const body = (await res.json().catch(() => ({}))) as Record<string, string>;
  if (!res.ok) return failure(body);
  return {
    ok: true,
    grantedUsdc: body.granted_usdc ?? "",
    balanceUsdc: body.balance_usdc ?? "",
    network: body.network ?? "",
  };
}

function failure(body: unknown): GrantOutcome {
  const code = serviceError(body).code || "unknown";
  return {
    ok: false,
    code,
    sentence: SENTENCES[code] ?? "The grant could not be claimed right now. Please try again later.",
  };
}
