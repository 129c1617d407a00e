"use client";
// The credits page's wallet part: connect, see the wallet's USDC on the chosen network, pay a top-up (the wallet signs
// the x402 payment), then see the credit balance and its recent ledger entries (read with a signed message).
import { useWallet } from "@solana/wallet-adapter-react";
import { WalletMultiButton } from "@solana/wallet-adapter-react-ui";
import type { VersionedTransaction } from "@solana/web3.js";
import { useCallback, useEffect, useRef, useState } from "react";
import { browserNow } from "@/app/_client/browser-clock";
import {
  isFresh,
  readCredits,
  signCreditsRead,
  type CreditsOutcome,
  type SignedRead,
} from "@/app/_client/read-credits-with-wallet";
import { readUsdcAccount, type UsdcAccount } from "@/app/_client/read-usdc-account";
import { topUpWithWallet, type PayNetwork, type TopUpOutcome } from "@/app/_client/top-up-with-wallet";
import { CopyButton } from "@/app/_components/copy-button";
import { addressExplorerUrl, formatUnitsAsUsdc, txExplorerUrl } from "@/server/verify";

type UsdcState = { status: "loading" } | { status: "ok"; account: UsdcAccount } | { status: "error" };

interface Props {
  networks: PayNetwork[];
  origin: string;
  minUsdc: string;
  maxUsdc: string;
  defaultNetwork: string;
}

export function CreditsPurchase({ networks, origin, minUsdc, maxUsdc, defaultNetwork }: Props) {
  const { publicKey, signTransaction, signMessage, wallet } = useWallet();
  const pubkey = publicKey?.toBase58() ?? null;
  const firstEnabled =
    networks.find((n) => n.caip2 === defaultNetwork && n.enabled) ?? networks.find((n) => n.enabled) ?? networks[0];
  const [networkId, setNetworkId] = useState(firstEnabled?.caip2 ?? "");
  const network = networks.find((n) => n.caip2 === networkId) ?? firstEnabled;
  const [usdc, setUsdc] = useState<UsdcState>({ status: "loading" });
  const [amount, setAmount] = useState("1");
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<TopUpOutcome | null>(null);
  const [credits, setCredits] = useState<CreditsOutcome | null>(null);
  const [readingCredits, setReadingCredits] = useState(false);
  const signedRead = useRef<SignedRead | null>(null);

  const refreshUsdc = useCallback(async () => {
    if (!pubkey || !network) return;
    setUsdc({ status: "loading" });
    try {
      setUsdc({ status: "ok", account: await readUsdcAccount(network.rpcUrl, pubkey, network.usdcAsset) });
    } catch {
      setUsdc({ status: "error" });
    }
  }, [pubkey, network]);

  useEffect(() => {
    setOutcome(null);
    setCredits(null);
    signedRead.current = null;
    void refreshUsdc();
  }, [refreshUsdc]);

  const showCredits = useCallback(async () => {
    if (!pubkey || !signMessage || !network) return;
    setReadingCredits(true);
    try {
      if (!isFresh(signedRead.current, browserNow()))
        signedRead.current = await signCreditsRead(origin, pubkey, signMessage, browserNow());
      setCredits(await readCredits(pubkey, network.name, signedRead.current));
    } catch {
      setCredits({
        ok: false,
        sentence: "You declined the read-only signature, so your credit was not read. Nothing was paid or changed.",
      });
    } finally {
      setReadingCredits(false);
    }
  }, [pubkey, signMessage, network, origin]);

  async function pay() {
    if (!pubkey || !signTransaction || !network) return;
    setBusy(true);
    setOutcome(null);
    const chains = walletChains(wallet?.adapter, pubkey);
    const result = await topUpWithWallet({
      wallet: pubkey,
      signTransaction: (tx: VersionedTransaction) => signTransaction(tx),
      network,
      amountUsdc: amount,
      ...(chains ? { walletChains: chains } : {}),
    });
    setOutcome(result);
    setBusy(false);
    if (result.ok) {
      void refreshUsdc();
      // A read signed moments ago is reused; otherwise the person asks for it (no second wallet prompt unasked).
      if (isFresh(signedRead.current, browserNow())) void showCredits();
    }
  }

  const explorerTx = outcome?.ok ? txExplorerUrl(outcome.network, outcome.txSignature) : null;

  return (
    <div className="space-y-5">
      <Card step="1" title="Connect your wallet">
        <div className="flex flex-wrap items-center gap-3">
          <WalletMultiButton />
          {pubkey && (
            <span className="flex min-w-0 items-center gap-2 text-sm">
              <code data-testid="credits-wallet" className="min-w-0 break-all">
                {pubkey}
              </code>
              <CopyButton value={pubkey} label="wallet address" />
            </span>
          )}
        </div>
        {!pubkey && (
          <p className="mt-3 text-sm text-slate-600">
            Any Solana wallet that supports Wallet Standard (Phantom, Solflare, Backpack…) works.
          </p>
        )}
      </Card>

      {pubkey && network && (
        <>
          <Card step="2" title="Your USDC">
            <div className="flex flex-wrap items-end gap-4">
              <label className="text-sm font-medium text-slate-800">
                Network
                <select
                  data-testid="network-select"
                  className="mt-1 block rounded-md border border-slate-300 bg-white px-2 py-1.5 text-sm"
                  value={network.caip2}
                  onChange={(e) => setNetworkId(e.target.value)}
                >
                  {networks.map((n) => (
                    <option key={n.caip2} value={n.caip2}>
                      {n.label}
                      {n.enabled ? "" : " (switched off)"}
                    </option>
                  ))}
                </select>
              </label>
              <button
                type="button"
                className="rounded-md border border-slate-300 bg-white px-3 py-1.5 text-sm hover:bg-slate-100"
                onClick={() => void refreshUsdc()}
              >
                Refresh balance
              </button>
            </div>
            <div className="mt-4 text-sm" aria-live="polite">
              {usdc.status === "loading" && <p className="text-slate-600">Reading your USDC on {network.label}…</p>}
              {usdc.status === "error" && (
                <p className="text-red-800">
                  The {network.label} RPC did not answer; your balance could not be read. Try Refresh balance.
                </p>
              )}
              {usdc.status === "ok" && (
                <dl className="grid gap-x-4 gap-y-1 sm:grid-cols-[max-content_1fr]">
                  <dt className="text-slate-600">USDC balance</dt>
                  <dd
                    className="text-lg font-semibold"
                    data-testid="usdc-balance"
                    data-units={usdc.account.units.toString()}
                  >
                    {formatUnitsAsUsdc(usdc.account.units)} USDC
                  </dd>
                  <dt className="text-slate-600">USDC token account</dt>
                  <dd
                    data-testid="token-account-state"
                    data-exists={String(usdc.account.exists)}
                    className="min-w-0 break-all"
                  >
                    {usdc.account.exists
                      ? "exists"
                      : "does not exist yet: this wallet has never held USDC on this network"}{" "}
                    <AccountLink network={network.caip2} address={usdc.account.tokenAccount} />
                  </dd>
                </dl>
              )}
            </div>
          </Card>

          <Card step="3" title="Pay a top-up">
            <form
              className="flex flex-wrap items-end gap-3"
              onSubmit={(e) => {
                e.preventDefault();
                void pay();
              }}
            >
              <label className="text-sm font-medium text-slate-800">
                Amount (USDC)
                <input
                  data-testid="amount-input"
                  inputMode="decimal"
                  className="mt-1 block w-36 rounded-md border border-slate-300 px-2 py-1.5 font-mono text-sm"
                  value={amount}
                  onChange={(e) => setAmount(e.target.value)}
                  aria-describedby="amount-hint"
                />
              </label>
              <button
                data-testid="pay-button"
                type="submit"
                disabled={busy || !signTransaction}
                className="rounded-lg bg-violet-700 px-4 py-2 font-semibold text-white hover:bg-violet-800 disabled:opacity-50"
              >
                {busy ? "Waiting for your wallet…" : `Pay ${amount || "0"} USDC`}
              </button>
            </form>
            <p id="amount-hint" className="mt-2 text-xs text-slate-600">
              From {minUsdc} to {maxUsdc} USDC, on {network.label}. Credited to this wallet&apos;s key once the transfer
              confirms.
            </p>
            {outcome?.ok === true && (
              <div
                role="status"
                data-testid="topup-success"
                className="mt-4 space-y-1 rounded-lg border border-green-200 bg-green-50 p-4 text-sm text-green-950"
              >
                <p className="font-semibold">
                  Paid {outcome.amountUsdc} USDC. Your credit is now{" "}
                  <span data-testid="topup-balance">{outcome.balanceUsdc}</span> USDC on {network.label}.
                </p>
                <p className="break-all">
                  Transaction <code data-testid="topup-tx">{outcome.txSignature}</code>{" "}
                  {explorerTx && (
                    <a className="text-violet-800 underline" href={explorerTx} target="_blank" rel="noreferrer">
                      view on the explorer
                    </a>
                  )}
                </p>
              </div>
            )}
            {outcome?.ok === false && (
              <p
                role="alert"
                data-testid="topup-error"
                data-code={outcome.code}
                className="mt-4 rounded-lg border border-red-200 bg-red-50 p-4 text-sm text-red-900"
              >
                {outcome.sentence}
              </p>
            )}
          </Card>

          <Card step="4" title="Your prepaid credit">
            <p className="text-sm text-slate-700">
              Your wallet signs a read-only request (a message, not a transaction: no fee) so the service shows this
              key&apos;s balance and ledger to you and nobody else.
            </p>
            <button
              data-testid="show-credit-button"
              type="button"
              disabled={readingCredits || !signMessage}
              className="mt-3 rounded-md border border-slate-300 bg-white px-3 py-1.5 text-sm font-medium hover:bg-slate-100 disabled:opacity-50"
              onClick={() => void showCredits()}
            >
              {readingCredits ? "Waiting for your wallet…" : credits?.ok ? "Refresh my credit" : "Show my credit"}
            </button>
            {credits?.ok === false && (
              <p role="alert" data-testid="credit-error" className="mt-3 text-sm text-red-900">
                {credits.sentence}
              </p>
            )}
            {credits?.ok === true && (
              <div className="mt-4 space-y-3">
                <p className="text-sm">
                  Balance on {network.label}:{" "}
                  <strong className="text-lg" data-testid="credit-balance">
                    {credits.balanceUsdc}
                  </strong>{" "}
                  USDC
                </p>
                <div
                  className="overflow-x-auto rounded-lg border border-slate-200"
                  tabIndex={0}
                  role="region"
                  aria-label="Recent ledger entries"
                >
                  <table className="w-full text-left text-sm" data-testid="ledger">
                    <caption className="sr-only">Recent ledger entries, newest first</caption>
                    <thead className="bg-slate-50 text-xs uppercase text-slate-600">
                      <tr>
                        <th scope="col" className="px-3 py-2">
                          When
                        </th>
                        <th scope="col" className="px-3 py-2">
                          Entry
                        </th>
                        <th scope="col" className="px-3 py-2 text-right">
                          USDC
                        </th>
                      </tr>
                    </thead>
                    <tbody>
                      {credits.entries.length === 0 && (
                        <tr>
                          <td colSpan={3} className="px-3 py-3 text-slate-600">
                            No entries yet.
                          </td>
                        </tr>
                      )}
                      {credits.entries.slice(0, 10).map((e) => (
                        <tr
                          key={e.id}
                          data-testid="ledger-entry"
                          data-kind={e.kind}
                          className="border-t border-slate-100"
                        >
                          <td className="whitespace-nowrap px-3 py-2">{new Date(e.created_at).toLocaleString()}</td>
                          <td className="px-3 py-2">{entryLabel(e.kind)}</td>
                          <td className="px-3 py-2 text-right font-mono">{e.amount_usdc}</td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </div>
              </div>
            )}
          </Card>
        </>
      )}
    </div>
  );
}

function Card({ step, title, children }: { step: string; title: string; children: React.ReactNode }) {
  return (
    <section aria-labelledby={`step-${step}`} className="rounded-xl border border-slate-200 bg-white p-5 shadow-sm">
      <h2 id={`step-${step}`} className="mb-3 flex items-center gap-2 text-lg font-semibold">
        <span
          aria-hidden="true"
          className="flex h-6 w-6 items-center justify-center rounded-full bg-violet-100 text-xs font-bold text-violet-900"
        >
          {step}
        </span>
        {title}
      </h2>
      {children}
    </section>
  );
}

function AccountLink({ network, address }: { network: string; address: string }) {
  const href = addressExplorerUrl(network, address);
  if (!href) return null;
  return (
    <a className="text-violet-800 underline" href={href} target="_blank" rel="noreferrer">
      ({address.slice(0, 4)}…{address.slice(-4)} on the explorer)
    </a>
  );
}

/** Ledger kinds, in words. */
function entryLabel(kind: string): string {
  const words: Record<string, string> = {
    topup_credit: "Top-up paid",
    grant_credit: "Grant",
    payment_credit: "Paid call credited",
    test_credit: "Test credit",
    hold: "Held for a call",
    hold_release: "Returned after a call",
  };
  return words[kind] ?? kind;
}

/** The chains the connected Wallet Standard account lists, when the adapter exposes them. */
function walletChains(adapter: unknown, pubkey: string): readonly string[] | undefined {
  const accounts = (
    adapter as { wallet?: { accounts?: readonly { address: string; chains?: readonly string[] }[] } } | undefined
  )?.wallet?.accounts;
  return accounts?.find((a) => a.address === pubkey)?.chains;
}
