import { TrpcReactProvider } from "@/app/_client/trpc-react";
import { readNetworkNames } from "@/server/site/read-site-facts";
import { SHIPPED_NETWORKS } from "@/server/verify";
import { ReceiptExplorer } from "./receipt-explorer";

export const metadata = { title: "Receipt explorer" };

export default function ExplorerPage() {
  return (
    <main className="mx-auto max-w-5xl space-y-4 px-4 py-10 sm:px-6">
      <h1 className="text-2xl font-bold tracking-tight sm:text-3xl">Receipt explorer</h1>
      <p className="text-slate-700">
        Paste a receipt. Verification runs in your browser with the same library the service uses; the on-chain checks
        ask the chain RPC directly.
      </p>
      <TrpcReactProvider>
        {/* A static page, built before any deployment's config is read: it names this release's networks. */}
        <ReceiptExplorer networks={readNetworkNames(SHIPPED_NETWORKS)} />
      </TrpcReactProvider>
    </main>
  );
}
