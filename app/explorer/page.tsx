import { TrpcReactProvider } from "@/app/_client/trpc-react";
import { ReceiptExplorer } from "./receipt-explorer";

export const metadata = { title: "Receipt explorer · Signet" };

export default function ExplorerPage() {
  return (
    <main className="mx-auto max-w-4xl space-y-4 p-8">
      <h1 className="text-2xl font-semibold">Receipt explorer</h1>
      <p className="text-slate-600">
        Paste a receipt. Verification runs in your browser with the same library the service uses; the on-chain checks ask the
        chain RPC directly.
      </p>
      <TrpcReactProvider>
        <ReceiptExplorer />
      </TrpcReactProvider>
    </main>
  );
}
