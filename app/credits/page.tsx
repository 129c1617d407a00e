import Link from "next/link";
import { readSiteFacts } from "@/server/site/read-site-facts";
import { routeRuntime } from "@/server/runtime/route-edge";
import { WalletProviders } from "../wallet-providers";
import { CreditsPurchase } from "./credits-purchase";

export const metadata = { title: "Buy prepaid credit" };

export default async function CreditsPage() {
  const facts = await readSiteFacts(await routeRuntime());
  const networks = facts.networks
    .filter((n) => n.walletBuysCredit)
    .map((n) => ({
      caip2: n.caip2,
      name: n.name,
      label: n.label,
      usdcAsset: n.usdcAsset,
      rpcUrl: n.browserRpc,
      enabled: n.enabled,
    }));
  return (
    <main className="mx-auto max-w-3xl space-y-6 px-4 py-10 sm:px-6">
      <div className="space-y-2">
        <h1 className="text-2xl font-bold tracking-tight sm:text-3xl">Buy prepaid credit</h1>
        <p className="text-slate-700">
          Pay USDC from your Solana wallet once, then spend the credit with signed prepaid calls (
          <code className="rounded bg-slate-100 px-1 text-sm">signet infer</code> or{" "}
          <code className="rounded bg-slate-100 px-1 text-sm">POST /api/v1/inference</code>) at {facts.priceUsdc} USDC
          or less per call. Your wallet signs one USDC transfer; the service pays the network fee, so you need no SOL.
        </p>
        <p className="text-sm text-slate-600">
          New here?{" "}
          <Link className="text-violet-800 underline" href="/grants">
            Claim a free first credit
          </Link>{" "}
          with a signed message instead.
        </p>
      </div>
      <WalletProviders>
        <CreditsPurchase
          networks={networks}
          origin={facts.baseUrl}
          minUsdc={facts.priceUsdc}
          maxUsdc={facts.maxTopUpUsdc}
          defaultNetwork={facts.defaultNetwork}
        />
      </WalletProviders>
    </main>
  );
}
