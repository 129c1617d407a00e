import { WalletProviders } from "../wallet-providers";
import { GrantClaim } from "./grant-claim";

export const metadata = { title: "Claim a grant · Signet" };

export default function GrantsPage() {
  return (
    <main className="mx-auto max-w-2xl space-y-4 p-8">
      <h1 className="text-2xl font-semibold">Claim your first credit</h1>
      <p className="text-slate-600">
        Connect a Solana wallet and sign a message (no transaction, no fee) to receive a small sponsored balance for prepaid
        calls. One grant per key.
      </p>
      <WalletProviders>
        <GrantClaim />
      </WalletProviders>
    </main>
  );
}
