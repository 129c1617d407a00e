import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { cache, type ReactNode } from "react";
import { routeRuntime } from "@/server/runtime/route-edge";
import { findReceipt } from "@/server/receipts/find-receipt";
import { describeReceipt, type PaidCallMoney, type ReceiptField } from "@/server/site/describe-receipt";
import { readNetworkNames } from "@/server/site/read-site-facts";
import { txExplorerUrl, type NetworkRegistry } from "@/server/verify";
import { TrpcReactProvider } from "@/app/_client/trpc-react";
import { LocalTime } from "@/app/_components/local-time";
import { ReceiptExplorer } from "../../explorer/receipt-explorer";

export const dynamic = "force-dynamic";

/**
 * The stored receipt by inference id or transaction, and the networks the service is configured with (which name its
 * network and link its transaction), read once per request (the title and the page share it).
 */
const loadReceipt = cache(
  async (id: string): Promise<{ receipt: Record<string, unknown>; networks: NetworkRegistry } | null> => {
    const ctx = await routeRuntime();
    const receipt = (await findReceipt(ctx.db, id).catch(() => null)) as Record<string, unknown> | null;
    return receipt ? { receipt, networks: ctx.config.networks } : null;
  },
);

/** The tab names the receipt: "Receipt <the first 8 characters of its inference id> · Signet". */
export async function generateMetadata({ params }: { params: Promise<{ id: string }> }): Promise<Metadata> {
  const loaded = await loadReceipt((await params).id);
  return {
    title: loaded
      ? `Receipt ${describeReceipt(loaded.receipt, loaded.networks).inferenceId.slice(0, 8)}`
      : "Receipt not found",
  };
}

export default async function ReceiptPermalink({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const loaded = await loadReceipt(id);
  if (!loaded) notFound();
  const { receipt, networks } = loaded;
  const described = describeReceipt(receipt, networks);
  const money = described.money;
  return (
    <main className="mx-auto max-w-5xl space-y-4 px-4 py-10 sm:px-6">
      <div className="space-y-1">
        <h1 className="break-all text-2xl font-bold tracking-tight">Receipt {described.inferenceId}</h1>
        {described.issuedAtMs !== null && (
          <p className="text-sm text-slate-700">
            Issued <LocalTime ms={described.issuedAtMs} testId="receipt-issued" />
          </p>
        )}
        <p className="text-sm text-slate-700">
          Checked in your browser as this page opened: the operator&apos;s signature, and the receipt&apos;s place in
          the public receipt log.
        </p>
      </div>
      <TrpcReactProvider>
        <ReceiptExplorer initialReceipt={JSON.stringify(receipt)} networks={readNetworkNames(networks)} verifyOnLoad>
          {money?.kind === "paid" && <PaidMoney money={money} />}
          {money?.kind === "prepaid" && (
            <section
              aria-labelledby="money-heading"
              data-testid="receipt-money"
              data-kind="prepaid"
              className="rounded-xl border border-slate-200 bg-white p-4 text-sm shadow-sm sm:p-5"
            >
              <h2 id="money-heading" className="text-base font-semibold">
                What this call cost
              </h2>
              <p className="mt-2">
                A prepaid call: <strong>{money.costUsdc} USDC</strong> came out of the agent&apos;s prepaid credit.
                There is no on-chain payment to check.
              </p>
            </section>
          )}
          <section
            aria-labelledby="fields-heading"
            className="rounded-xl border border-slate-200 bg-white p-4 shadow-sm sm:p-5"
          >
            <h2 id="fields-heading" className="text-base font-semibold">
              Signed fields
            </h2>
            <p className="mt-1 text-xs text-slate-600">
              Each value as signed, with its readable form beside it. The signature covers every one of them.
            </p>
            <dl
              data-testid="receipt-fields"
              className="mt-3 grid grid-cols-1 gap-x-4 gap-y-1 text-sm sm:grid-cols-[max-content_1fr]"
            >
              {described.fields.map((f) => (
                <Field key={f.key} name={f.key} field={f} />
              ))}
              {described.paymentFields.map((f) => (
                <Field
                  key={`payment.${f.key}`}
                  name={`payment.${f.key}`}
                  field={f}
                  value={f.key === "tx_signature" ? <TxLink receipt={receipt} networks={networks} /> : undefined}
                />
              ))}
            </dl>
          </section>
        </ReceiptExplorer>
      </TrpcReactProvider>
    </main>
  );
}

/** A signed field: its value as signed (or `value`, a richer form of it), and its readable form beside it. */
function Field({ name, field, value }: { name: string; field: ReceiptField; value?: ReactNode }) {
  return (
    <div className="contents">
      <dt className="font-mono text-slate-600">{name}</dt>
      <dd data-testid={`field-${name}`} className="min-w-0 break-all">
        {value ?? <span className="font-mono">{field.raw}</span>}
        {field.timeMs !== undefined && (
          <span className="block text-xs sm:ml-2 sm:inline">
            <LocalTime ms={field.timeMs} />
          </span>
        )}
        {field.networkLabel && <span className="ml-2 font-semibold">{field.networkLabel}</span>}
        {field.usdc !== undefined && <span className="ml-2 text-slate-700">= {field.usdc} USDC</span>}
      </dd>
    </div>
  );
}

function TxLink({ receipt, networks }: { receipt: Record<string, unknown>; networks: NetworkRegistry }) {
  const payment = receipt.payment as { tx_signature?: string; network?: string };
  const url =
    payment.tx_signature && payment.network ? txExplorerUrl(payment.network, payment.tx_signature, networks) : null;
  return (
    <span className="font-mono">
      {url ? (
        <a className="text-violet-800 underline" href={url}>
          {payment.tx_signature}
        </a>
      ) : (
        payment.tx_signature
      )}
      <span className="block font-sans text-xs text-slate-600">
        A local test chain&apos;s transactions are not on the public explorer.
      </span>
    </span>
  );
}

/** The paid call's money: the payment, the call's cost, and the remainder kept as the payer's prepaid credit. */
function PaidMoney({ money }: { money: PaidCallMoney }) {
  const where = money.network.label ?? money.network.id;
  const net = money.network.requestName;
  const payerNoun = money.network.payerNoun;
  return (
    <section
      aria-labelledby="money-heading"
      data-testid="receipt-money"
      data-kind="paid"
      className="rounded-xl border border-slate-200 bg-white p-4 text-sm shadow-sm sm:p-5"
    >
      <h2 id="money-heading" className="text-base font-semibold">
        What was paid, and what stayed as credit
      </h2>
      <dl className="mt-3 grid max-w-xl grid-cols-[1fr_auto] gap-x-6 gap-y-1">
        <dt>Paid on {where} (the call&apos;s price)</dt>
        <dd data-testid="money-paid" className="text-right font-mono">
          {money.paidUsdc} USDC
        </dd>
        <dt>This call&apos;s cost</dt>
        <dd data-testid="money-cost" className="text-right font-mono">
          − {money.costUsdc} USDC
        </dd>
        <dt className="border-t border-slate-200 pt-1 font-semibold">Kept as prepaid credit</dt>
        <dd data-testid="money-kept" className="border-t border-slate-200 pt-1 text-right font-mono font-semibold">
          {money.keptUsdc} USDC
        </dd>
      </dl>
      <div data-testid="credit-kept-note" className="mt-3 space-y-2 text-slate-800">
        {money.costExceededPayment ? (
          <p>The call cost more than was paid: it was charged the whole payment, and nothing stayed as credit.</p>
        ) : (
          <p>
            A paid call&apos;s unused price is not lost: the payment was credited to the paying {payerNoun}{" "}
            <code className="break-all text-xs">{money.payer}</code> on {where}, the call&apos;s cost was taken from it,
            and the rest stays as that {payerNoun}&apos;s prepaid credit on {where}.
          </p>
        )}
        {!money.costExceededPayment && money.spending === "prepaid" && (
          <p>
            Spend it with prepaid calls signed by the same key:{" "}
            <code className="rounded bg-slate-100 px-1 text-xs">
              signet infer &quot;…&quot; --keypair &lt;the paying key&gt;{net ? ` --network ${net}` : ""}
            </code>
            , or <code className="rounded bg-slate-100 px-1 text-xs">POST /api/v1/inference</code>
            {net ? (
              <>
                {" "}
                with <code className="rounded bg-slate-100 px-1 text-xs">&quot;network&quot;: &quot;{net}&quot;</code>
              </>
            ) : null}
            . <code className="rounded bg-slate-100 px-1 text-xs">signet balance{net ? ` --network ${net}` : ""}</code>{" "}
            shows the balance.
          </p>
        )}
        {!money.costExceededPayment && money.spending === "not_spendable" && (
          <p>
            On {where} the payer is an address, and prepaid calls are signed with an Ed25519 (Solana) key, so this
            credit cannot be spent yet: it stays on the ledger, recorded for{" "}
            <code className="break-all text-xs">{money.payer}</code>.
          </p>
        )}
      </div>
    </section>
  );
}
