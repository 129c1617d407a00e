"use client";
import { useWallet } from "@solana/wallet-adapter-react";
import { WalletMultiButton } from "@solana/wallet-adapter-react-ui";
import { useState } from "react";
import { claimGrantWithWallet, type GrantOutcome } from "@/app/_client/grant-client";

/** `amountUsdc` on `network` (CAIP-2; `networkLabel` by name): what a claim credits, from the operator's settings. */
export function GrantClaim({
  amountUsdc,
  network,
  networkLabel,
}: {
  amountUsdc: string;
  network: string;
  networkLabel: string;
}) {
  const { publicKey, signMessage } = useWallet();
  const [outcome, setOutcome] = useState<GrantOutcome | null>(null);
  const [busy, setBusy] = useState(false);
  const pubkey = publicKey?.toBase58();

  async function claim() {
    if (!pubkey || !signMessage) return;
    setBusy(true);
    setOutcome(await claimGrantWithWallet(pubkey, signMessage));
    setBusy(false);
  }

  return (
    <div className="space-y-4 rounded-xl border border-slate-200 bg-white p-5 shadow-sm">
      <WalletMultiButton />
      {pubkey && (
        <div className="space-y-3">
          <p className="text-sm">
            Connected:{" "}
            <code data-testid="grant-wallet" className="break-all">
              {pubkey}
            </code>
          </p>
          <button
            data-testid="claim-button"
            className="rounded-lg bg-violet-700 px-4 py-2 font-semibold text-white hover:bg-violet-800 disabled:opacity-50"
            disabled={busy || !signMessage}
            onClick={() => void claim()}
          >
            {busy ? "Waiting for your wallet…" : `Sign and claim ${amountUsdc} USDC`}
          </button>
        </div>
      )}
      {outcome?.ok === true && (
        <section
          data-testid="grant-success"
          role="status"
          className="space-y-2 rounded-lg border border-green-200 bg-green-50 p-4 text-sm"
        >
          <p className="font-semibold text-green-900">
            Granted {outcome.grantedUsdc} USDC. Your balance is{" "}
            <span data-testid="grant-balance">{outcome.balanceUsdc}</span> USDC on{" "}
            {outcome.network === network ? networkLabel : outcome.network}.
          </p>
          <p>Next, spend it with a signed prepaid call:</p>
          <pre
            tabIndex={0}
            aria-label="The CLI command"
            className="overflow-x-auto rounded bg-slate-900 p-2 text-xs text-slate-100"
          >
            npm run -s signet -- infer &quot;hello&quot; --keypair your-key.json
          </pre>
          <pre
            tabIndex={0}
            aria-label="The same call with curl"
            className="overflow-x-auto rounded bg-slate-900 p-2 text-xs text-slate-100"
          >{`body='{"model":"local/echo-1","prompt":"hello","nonce":"<16+ chars>","timestamp":<unix ms>}'
# sign "signet-prepaid-v1\\nPOST ${typeof window === "undefined" ? "<origin>" : window.location.origin}/api/v1/inference\\n$body" with your key (base58 Ed25519), then:
curl -X POST ${typeof window === "undefined" ? "" : window.location.origin}/api/v1/inference \\
  -H "X-Agent-Pubkey: ${pubkey}" -H "X-Agent-Signature: <signature>" --data "$body"`}</pre>
        </section>
      )}
      {outcome?.ok === false && (
        <p
          role="alert"
          data-testid="grant-error"
          data-code={outcome.code}
          className="rounded-lg border border-red-200 bg-red-50 p-3 text-red-900"
        >
          {outcome.sentence}
        </p>
      )}
    </div>
  );
}
