import Link from "next/link";
import { WalletProviders } from "../wallet-providers";
import { GrantClaim } from "./grant-claim";

export const metadata = { title: "Claim a grant" };

export default function GrantsPage() {
  return (
    <main className="mx-auto max-w-3xl space-y-4 px-4 py-10 sm:px-6">
      <h1 className="text-2xl font-bold tracking-tight sm:text-3xl">Claim your first credit</h1>
      <p className="text-slate-700">
        Connect a Solana wallet and sign a message (no transaction, no fee) to receive a small sponsored balance for prepaid
        calls. One grant per key. Want more? <Link className="text-violet-800 underline" href="/credits">Buy prepaid credit</Link> with USDC from the same wallet.
      </p>
      <WalletProviders>
        <GrantClaim />
      </WalletProviders>
    </main>
  );
}
