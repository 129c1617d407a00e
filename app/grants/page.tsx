import Link from "next/link";
import { readSiteFacts } from "@/server/site/read-site-facts";
import { routeRuntime } from "@/server/runtime/route-edge";
import { WalletProviders } from "../wallet-providers";
import { GrantClaim } from "./grant-claim";

export const metadata = { title: "Claim a grant" };

export default async function GrantsPage() {
  const { grant } = await readSiteFacts(await routeRuntime());
  return (
    <main className="mx-auto max-w-3xl space-y-4 px-4 py-10 sm:px-6">
      <h1 className="text-2xl font-bold tracking-tight sm:text-3xl">Claim your first credit</h1>
      <p className="text-slate-700">
        Connect a Solana wallet and sign a message (no transaction, no fee) to receive{" "}
        <strong data-testid="grant-amount">{grant.amountUsdc} USDC</strong> of sponsored credit on{" "}
        <span data-testid="grant-network">{grant.networkLabel}</span> for prepaid calls. One grant per key. Want more?{" "}
        <Link className="text-violet-800 underline" href="/credits">
          Buy prepaid credit
        </Link>{" "}
        with USDC from the same wallet.
      </p>
      <WalletProviders>
        <GrantClaim amountUsdc={grant.amountUsdc} network={grant.network} networkLabel={grant.networkLabel} />
      </WalletProviders>
    </main>
  );
}
