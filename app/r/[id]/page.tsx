import { notFound } from "next/navigation";
import { db } from "@/server/db";
import { findReceipt } from "@/server/receipts/find-receipt";
import { txExplorerUrl } from "@/server/verify";
import { TrpcReactProvider } from "@/app/_client/trpc-react";
import { ReceiptExplorer } from "../../explorer/receipt-explorer";

export const dynamic = "force-dynamic";

export default async function ReceiptPermalink({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const receipt = (await findReceipt(await db(), id).catch(() => null)) as Record<string, unknown> | null;
  if (!receipt) notFound();
  const payment = receipt.payment as { tx_signature?: string; network?: string } | undefined;
  const txUrl = payment?.tx_signature && payment.network ? txExplorerUrl(payment.network, payment.tx_signature) : null;
  return (
    <main className="mx-auto max-w-5xl space-y-4 px-4 py-10 sm:px-6">
      <h1 className="break-all text-2xl font-bold tracking-tight">Receipt {String(receipt.inference_id)}</h1>
      <dl data-testid="receipt-fields" className="grid grid-cols-1 gap-x-4 gap-y-1 rounded-xl border border-slate-200 bg-white p-4 text-sm shadow-sm sm:grid-cols-[max-content_1fr]">
        {Object.entries(receipt).filter(([k]) => k !== "payment").map(([k, v]) => (
          <div key={k} className="contents">
            <dt className="font-mono text-slate-600">{k}</dt>
            <dd className="break-all font-mono">{String(v)}</dd>
          </div>
        ))}
        {payment?.tx_signature && (
          <div className="contents">
            <dt className="font-mono text-slate-600">transaction</dt>
            <dd className="break-all font-mono">
              {txUrl ? <a className="text-violet-800 underline" href={txUrl}>{payment.tx_signature}</a> : payment.tx_signature} ({payment.network}; a local
              chain's transactions are not on the public explorer)
            </dd>
          </div>
        )}
      </dl>
      <p className="text-sm text-slate-700">Press verify for the signature-only check; add the prompt and response for all five.</p>
      <TrpcReactProvider>
        <ReceiptExplorer initialReceipt={JSON.stringify(receipt)} />
      </TrpcReactProvider>
    </main>
  );
}
