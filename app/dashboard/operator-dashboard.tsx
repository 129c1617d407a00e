"use client";
import { useQuery } from "@tanstack/react-query";
import { useWallet } from "@solana/wallet-adapter-react";
import { WalletMultiButton } from "@solana/wallet-adapter-react-ui";
import { useState } from "react";
import { signInWithWallet } from "@/app/_client/sign-in-client";
import { useTRPC } from "@/app/_client/trpc-react";
import { Section, TableScroll } from "./dashboard-section";
import { CallsChart, FailuresChart, MoneyCharts, networkLabel } from "./figure-charts";
import { AuditLog, KillSwitch, SettingsEditor } from "./operator-settings";

/** `devHints`: the server runs in development, so the page may say what only `npm run dev` does. */
export function OperatorDashboard({ devHints }: { devHints: boolean }) {
  const trpc = useTRPC();
  const whoami = useQuery(trpc.dashboard.whoami.queryOptions());
  if (whoami.isLoading) return <p>Loading…</p>;
  if (!whoami.data) return <SignIn devHints={devHints} onSignedIn={() => void whoami.refetch()} />;
  return (
    <div className="space-y-6">
      <p className="text-sm text-slate-600">
        Signed in as{" "}
        <code data-testid="operator-pubkey" className="break-all">
          {whoami.data.pubkey}
        </code>
      </p>
      <div className="grid gap-6 lg:grid-cols-[1fr_2fr]">
        <KillSwitch />
        <FeePayer />
      </div>
      <Health />
      <Figures />
      <SettingsEditor />
      <AuditLog />
      <Reconcile />
      <RecentCalls />
    </div>
  );
}

function SignIn({ devHints, onSignedIn }: { devHints: boolean; onSignedIn: () => void }) {
  const { publicKey, signMessage } = useWallet();
  const [error, setError] = useState<string | null>(null);
  async function signIn() {
    if (!publicKey || !signMessage) return;
    const outcome = await signInWithWallet(publicKey.toBase58(), signMessage);
    if (outcome.ok) onSignedIn();
    else setError(outcome.message);
  }
  return (
    <div className="space-y-3 rounded-xl border border-slate-200 bg-white p-5 shadow-sm">
      <p>
        Operators sign in by signing a one-time challenge with their wallet (a message, not a transaction). Only the
        keys in SERVICE_OPERATOR_PUBKEYS are let in.
      </p>
      <p data-testid="sign-in-command">
        Without a wallet, open a one-time link:{" "}
        <code className="rounded bg-slate-100 px-1">npm run -s signet -- operator login-link --key FILE</code>.
      </p>
      {devHints && (
        <p data-testid="sign-in-dev-hint">
          Under <code className="rounded bg-slate-100 px-1">npm run dev</code> no key is needed: dev makes one in{" "}
          <code className="rounded bg-slate-100 px-1">.data/</code>, lets it in, and prints the link at start.
        </p>
      )}
      <WalletMultiButton />
      {publicKey && (
        <button
          data-testid="sign-in-button"
          className="block rounded-lg bg-slate-900 px-4 py-2 font-semibold text-white"
          onClick={() => void signIn()}
        >
          Sign in with this wallet
        </button>
      )}
      {error && (
        <p role="alert" data-testid="sign-in-error" className="text-red-800">
          {error}
        </p>
      )}
    </div>
  );
}

function Figures() {
  const trpc = useTRPC();
  const figures = useQuery(trpc.dashboard.figures.queryOptions(undefined, { refetchInterval: 10_000 }));
  return (
    <Section title="Live figures" headingId="figures-heading">
      {figures.data && (
        <div className="space-y-4">
          <div className="grid gap-4 lg:grid-cols-2">
            <CallsChart series={figures.data.series} />
            <FailuresChart networks={figures.data.networks} />
          </div>
          <MoneyCharts series={figures.data.series} />
        </div>
      )}
      <TableScroll label="Figures per network">
        <table data-testid="figures" className="w-full min-w-[44rem] text-left text-sm">
          <caption className="sr-only">Totals per network</caption>
          <thead className="text-xs uppercase text-slate-600">
            <tr>
              <th scope="col">network</th>
              <th scope="col">paid calls</th>
              <th scope="col">settle ok</th>
              <th scope="col">prepaid</th>
              <th scope="col">received</th>
              <th scope="col">upstream cost</th>
              <th scope="col">margin</th>
              <th scope="col">failures</th>
            </tr>
          </thead>
          <tbody>
            {figures.data?.networks.map((n) => (
              <tr
                key={n.network}
                data-testid="figures-row"
                data-network={n.network}
                className="border-t border-slate-100"
              >
                <td className="text-xs">{networkLabel(n.network)}</td>
                <td data-testid="paid-calls">{n.paidCalls}</td>
                <td>{n.settleOk}</td>
                <td>{n.prepaidCalls}</td>
                <td>{n.receivedUsdc}</td>
                <td>{n.upstreamCostUsdc}</td>
                <td>{n.marginUsdc}</td>
                <td className="text-xs">
                  {n.failures.map((f) => `${f.stage}/${f.reason}: ${f.count}`).join(", ") || "none"}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableScroll>
      {figures.data && (
        <p className="mt-2 text-sm">
          Grants today: {figures.data.grantsToday.count} ({figures.data.grantsToday.usdc} of{" "}
          {figures.data.grantsToday.budgetUsdc} USDC budget)
        </p>
      )}
    </Section>
  );
}

function Health() {
  const trpc = useTRPC();
  const health = useQuery(trpc.dashboard.health.queryOptions(undefined, { refetchInterval: 10_000 }));
  const h = health.data;
  if (!h) return null;
  const style = {
    ok: "bg-green-100 text-green-800",
    degraded: "bg-amber-100 text-amber-900",
    unavailable: "bg-red-100 text-red-800",
  };
  const pending = [...h.pending.broadcast.items, ...h.pending.staleClaims.items, ...h.pending.unserved.items];
  return (
    <Section
      title="Health"
      headingId="health-heading"
      extra={
        <span data-testid="health-status" className={`rounded px-2 text-sm ${style[h.status]}`}>
          {h.status}
        </span>
      }
    >
      {[...h.reasons, ...h.warnings].length > 0 && (
        <ul className="mt-2 list-disc pl-5 text-sm" role="status">
          {[...h.reasons, ...h.warnings].map((r) => (
            <li key={r}>{r}</li>
          ))}
        </ul>
      )}
      <ul className="mt-2 space-y-1 text-sm">
        <li>Database: {h.database.ok ? `ok, ${h.database.latencyMs} ms` : (h.database.error ?? "down")}</li>
        {h.chains.map((c) => (
          <li key={c.network}>
            {c.label}: {c.ok ? `ok, ${c.latencyMs} ms` : c.error}
            {c.slotLag !== undefined && `, ${c.slotLag} slots behind processed`}
            {c.latestBlockAgeSeconds !== undefined && `, latest block ${c.latestBlockAgeSeconds} s ago`}
          </li>
        ))}
        <li>
          Upstream ({h.upstream.name}): {h.upstream.ok ? "ok" : (h.upstream.error ?? `answered ${h.upstream.status}`)}
        </li>
      </ul>
      <h3 className="mt-3 font-semibold">Settlements pending</h3>
      <p className="text-sm" data-testid="pending-settlements">
        {h.pending.broadcast.count} broadcast and awaiting confirmation, {h.pending.staleClaims.count} claim(s) past
        their lease, {h.pending.unserved.count} unserved payment(s)
      </p>
      {pending.length > 0 && (
        <TableScroll label="Payments waiting on a retry">
          <table className="w-full min-w-[36rem] text-left text-xs">
            <caption className="sr-only">Payments waiting on a retry</caption>
            <thead>
              <tr>
                <th scope="col">Status</th>
                <th scope="col">Network</th>
                <th scope="col">Payer</th>
                <th scope="col">USDC</th>
                <th scope="col">Since</th>
              </tr>
            </thead>
            <tbody>
              {pending.map((p) => (
                <tr key={p.id}>
                  <td>{p.label}</td>
                  <td>{p.network}</td>
                  <td>
                    <code>{p.payer}</code>
                  </td>
                  <td>{p.amountUsdc}</td>
                  <td>{new Date(p.updatedAt).toLocaleString()}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      )}
    </Section>
  );
}

function FeePayer() {
  const trpc = useTRPC();
  const health = useQuery(trpc.dashboard.feePayer.queryOptions());
  const style = {
    ok: "bg-green-100 text-green-800",
    warn: "bg-amber-100 text-amber-900",
    alert: "bg-red-100 text-red-800",
    unreachable: "bg-slate-200",
  };
  return (
    <Section title="Fee payer" headingId="fee-payer-heading">
      <ul className="mt-2 space-y-1 text-sm">
        {health.data?.map((h) => (
          <li key={h.network} data-testid="fee-payer">
            <span className={`rounded px-2 ${style[h.level]}`}>{h.level}</span> {h.label}:{" "}
            {h.balance === null ? "unreachable" : `${h.balance} ${h.unit}`} (warn under {h.warnBelow}, alert under{" "}
            {h.alertBelow}) <code className="break-all text-xs">{h.address}</code>
          </li>
        ))}
      </ul>
    </Section>
  );
}

function Reconcile() {
  const trpc = useTRPC();
  // Walks the chain: run on demand, not on every page load.
  const report = useQuery({ ...trpc.dashboard.reconcile.queryOptions(), enabled: false });
  return (
    <Section title="Reconciliation" headingId="reconciliation-heading">
      <p className="text-sm text-slate-600">
        On-chain deposits against recorded payments and the ledger (read-only, like <code>signet reconcile</code>).
      </p>
      <button
        data-testid="reconcile-button"
        className="mt-2 rounded-lg border border-slate-300 px-3 py-1 hover:bg-slate-100"
        onClick={() => void report.refetch()}
        disabled={report.isFetching}
      >
        {report.isFetching ? "Reading the chain…" : "Run reconciliation"}
      </button>
      {report.error && (
        <p role="alert" className="text-red-800">
          {report.error.message}
        </p>
      )}
      <ul data-testid="reconcile-report" className="mt-2 space-y-1 text-sm">
        {report.data?.map((r) => (
          <li key={r.network} data-testid="reconcile-network" data-drift={r.drift}>
            <span
              className={`rounded px-2 ${r.drift === 0 ? "bg-green-100 text-green-800" : "bg-red-100 text-red-800"}`}
            >
              {r.drift === 0 ? "zero drift" : `${r.drift} mismatches`}
            </span>{" "}
            {r.label}: {r.onChainTransfers} transfers on chain, {r.recordedPayments} recorded, {r.pendingClaims} pending
            {r.mismatches.map((m) => (
              <div key={`${m.kind}-${m.transaction}`} className="ml-4 break-all font-mono text-xs">
                {m.kind} {m.transaction}: {m.detail}
              </div>
            ))}
          </li>
        ))}
      </ul>
    </Section>
  );
}

function RecentCalls() {
  const trpc = useTRPC();
  const [cursors, setCursors] = useState<({ createdAt: string; id: string } | null)[]>([null]);
  const cursor = cursors.at(-1) ?? null;
  const page = useQuery(trpc.dashboard.recentCalls.queryOptions({ cursor, limit: 10 }));
  return (
    <Section title="Recent calls" headingId="recent-calls-heading">
      <TableScroll label="Recent calls">
        <table data-testid="recent-calls" className="w-full min-w-[48rem] text-left text-xs">
          <caption className="sr-only">Calls served, newest first</caption>
          <thead className="uppercase text-slate-600">
            <tr>
              <th scope="col">when</th>
              <th scope="col">agent</th>
              <th scope="col">network</th>
              <th scope="col">model</th>
              <th scope="col">price</th>
              <th scope="col">cost</th>
              <th scope="col">latency</th>
              <th scope="col">status</th>
              <th scope="col">receipt</th>
            </tr>
          </thead>
          <tbody>
            {page.data?.items.map((c) => (
              <tr key={c.id} data-testid="recent-call">
                <td>{c.createdAt}</td>
                <td className="font-mono">{c.agent.slice(0, 8)}…</td>
                <td>{networkLabel(c.network)}</td>
                <td>{c.model}</td>
                <td>{c.priceUsdc ?? "prepaid"}</td>
                <td>{c.costUsdc}</td>
                <td>{c.latencyMs} ms</td>
                <td>{c.status}</td>
                <td>
                  <a className="text-violet-800 underline" href={c.receiptUrl}>
                    receipt
                  </a>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableScroll>
      <div className="mt-2 flex gap-2 text-sm">
        <button
          className="rounded border px-2 disabled:opacity-40"
          disabled={cursors.length < 2}
          onClick={() => setCursors((c) => c.slice(0, -1))}
        >
          Newer
        </button>
        <button
          className="rounded border px-2 disabled:opacity-40"
          disabled={!page.data?.nextCursor}
          onClick={() => page.data?.nextCursor && setCursors((c) => [...c, page.data!.nextCursor])}
        >
          Older
        </button>
      </div>
    </Section>
  );
}
