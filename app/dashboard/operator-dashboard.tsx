"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useWallet } from "@solana/wallet-adapter-react";
import { WalletMultiButton } from "@solana/wallet-adapter-react-ui";
import { useState } from "react";
import { signInWithWallet } from "@/app/_client/sign-in-client";
import { useTRPC } from "@/app/_client/trpc-react";

export function OperatorDashboard() {
  const trpc = useTRPC();
  const whoami = useQuery(trpc.dashboard.whoami.queryOptions());
  if (whoami.isLoading) return <p>Loading…</p>;
  if (!whoami.data) return <SignIn onSignedIn={() => void whoami.refetch()} />;
  return (
    <div className="space-y-8">
      <p className="text-sm text-slate-600">
        Signed in as <code data-testid="operator-pubkey">{whoami.data.pubkey}</code>
      </p>
      <KillSwitch />
      <Health />
      <Figures />
      <FeePayer />
      <SettingsEditor />
      <AuditLog />
      <Reconcile />
      <RecentCalls />
    </div>
  );
}

function SignIn({ onSignedIn }: { onSignedIn: () => void }) {
  const { publicKey, signMessage } = useWallet();
  const [error, setError] = useState<string | null>(null);
  async function signIn() {
    if (!publicKey || !signMessage) return;
    const outcome = await signInWithWallet(publicKey.toBase58(), signMessage);
    if (outcome.ok) onSignedIn();
    else setError(outcome.message);
  }
  return (
    <div className="space-y-3">
      <p>Operators sign in by signing a one-time challenge with their wallet.</p>
      <WalletMultiButton />
      {publicKey && (
        <button data-testid="sign-in-button" className="block rounded bg-slate-900 px-4 py-2 text-white" onClick={() => void signIn()}>
          Sign in with this wallet
        </button>
      )}
      {error && <p data-testid="sign-in-error" className="text-red-700">{error}</p>}
    </div>
  );
}

function useSettings() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const settings = useQuery(trpc.settings.get.queryOptions());
  const set = useMutation(
    trpc.settings.set.mutationOptions({
      onSuccess: () => {
        void queryClient.invalidateQueries({ queryKey: trpc.settings.get.queryKey() });
        void queryClient.invalidateQueries({ queryKey: trpc.settings.audit.queryKey() });
      },
    }),
  );
  return { settings, set };
}

function KillSwitch() {
  const { settings, set } = useSettings();
  const enabled = settings.data?.find((s) => s.key === "SERVICE_MAINNET_ENABLED")?.value === "true";
  function toggle() {
    const next = enabled ? "false" : "true";
    if (!window.confirm(enabled ? "Turn mainnet OFF? Mainnet calls will answer 503 from the next request." : "Turn mainnet ON? Real money will move.")) return;
    set.mutate({ key: "SERVICE_MAINNET_ENABLED", value: next });
  }
  return (
    <section className="rounded border bg-white p-4">
      <h2 className="text-lg font-semibold">Mainnet kill switch</h2>
      <p className="my-2">
        Mainnet is <strong data-testid="mainnet-state">{enabled ? "ON" : "OFF"}</strong>.
      </p>
      <button data-testid="kill-switch" className={`rounded px-4 py-2 text-white ${enabled ? "bg-red-700" : "bg-green-700"}`} onClick={toggle}>
        {enabled ? "Turn mainnet off" : "Turn mainnet on"}
      </button>
    </section>
  );
}

function SettingsEditor() {
  const { settings, set } = useSettings();
  // What the operator typed and has not saved yet; a field without a draft shows the stored value.
  const [drafts, setDrafts] = useState<Record<string, string>>({});
  const [errors, setErrors] = useState<Record<string, string>>({});
  async function save(key: string, secret: boolean) {
    const draft = drafts[key];
    // A secret is never sent back to the page, so saving needs a new value typed in.
    if (secret && !draft) return setErrors((e) => ({ ...e, [key]: "type a new value to replace the stored one" }));
    const value = draft ?? settings.data?.find((s) => s.key === key)?.value ?? "";
    const outcome = await set.mutateAsync({ key, value });
    setErrors((e) => ({ ...e, [key]: outcome.ok ? "" : outcome.message }));
    if (outcome.ok) setDrafts(({ [key]: _saved, ...rest }) => rest);
  }
  return (
    <section className="rounded border bg-white p-4">
      <h2 className="text-lg font-semibold">Settings</h2>
      <div className="mt-2 space-y-2">
        {settings.data?.map((s) => (
          <div key={s.key} className="grid grid-cols-[18rem_1fr_auto] items-start gap-2 text-sm">
            <label htmlFor={`setting-${s.key}`} className="pt-1 font-mono">{s.key}</label>
            <div>
              <input
                id={`setting-${s.key}`}
                data-testid={`setting-${s.key}`}
                className="w-full rounded border p-1 font-mono"
                type={s.secret ? "password" : "text"}
                autoComplete="off"
                placeholder={s.secret ? (s.value ? "set (hidden); type a new value to replace it" : "not set") : ""}
                value={drafts[s.key] ?? (s.secret ? "" : s.value)}
                onChange={(e) => setDrafts((d) => ({ ...d, [s.key]: e.target.value }))}
              />
              {errors[s.key] && <p data-testid={`setting-error-${s.key}`} className="text-red-700">{errors[s.key]}</p>}
            </div>
            <button data-testid={`save-${s.key}`} className="rounded border px-2 py-1" onClick={() => void save(s.key, s.secret)}>
              Save
            </button>
          </div>
        ))}
      </div>
    </section>
  );
}

function AuditLog() {
  const trpc = useTRPC();
  const audit = useQuery(trpc.settings.audit.queryOptions({ limit: 50 }));
  return (
    <section className="rounded border bg-white p-4">
      <h2 className="text-lg font-semibold">Audit log</h2>
      <table data-testid="audit-log" className="mt-2 w-full text-left text-xs">
        <thead><tr><th>when</th><th>who</th><th>setting</th><th>old → new</th></tr></thead>
        <tbody>
          {audit.data?.map((a) => (
            <tr key={a.id} data-testid="audit-row">
              <td>{a.at}</td><td className="font-mono">{a.actor.slice(0, 8)}…</td><td className="font-mono">{a.key}</td><td className="font-mono">{a.oldValue ?? "(default)"} → {a.newValue}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

function Figures() {
  const trpc = useTRPC();
  const figures = useQuery(trpc.dashboard.figures.queryOptions(undefined, { refetchInterval: 10_000 }));
  const hourly = figures.data?.hourly ?? [];
  const max = Math.max(1, ...hourly.map((h) => h.calls));
  return (
    <section className="rounded border bg-white p-4">
      <h2 className="text-lg font-semibold">Live figures</h2>
      <table data-testid="figures" className="mt-2 w-full text-left text-sm">
        <thead><tr><th>network</th><th>paid calls</th><th>settle ok</th><th>prepaid</th><th>received</th><th>upstream cost</th><th>margin</th><th>failures</th></tr></thead>
        <tbody>
          {figures.data?.networks.map((n) => (
            <tr key={n.network} data-testid="figures-row" data-network={n.network}>
              <td className="font-mono text-xs">{n.network.slice(0, 20)}…</td><td data-testid="paid-calls">{n.paidCalls}</td><td>{n.settleOk}</td><td>{n.prepaidCalls}</td>
              <td>{n.receivedUsdc}</td><td>{n.upstreamCostUsdc}</td><td>{n.marginUsdc}</td>
              <td className="text-xs">{n.failures.map((f) => `${f.stage}/${f.reason}: ${f.count}`).join(", ") || "none"}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {figures.data && (
        <p className="mt-2 text-sm">Grants today: {figures.data.grantsToday.count} ({figures.data.grantsToday.usdc} of {figures.data.grantsToday.budgetUsdc} USDC budget)</p>
      )}
      <svg role="img" aria-label="calls per hour" className="mt-3 h-24 w-full" viewBox={`0 0 ${Math.max(24, hourly.length) * 10} 100`} preserveAspectRatio="none">
        {hourly.map((h, i) => (
          <rect key={`${h.hour}-${h.network}`} x={i * 10 + 1} width={8} y={100 - (h.calls / max) * 100} height={(h.calls / max) * 100} className="fill-slate-700">
            <title>{`${h.hour} ${h.network}: ${h.calls}`}</title>
          </rect>
        ))}
      </svg>
    </section>
  );
}

function Health() {
  const trpc = useTRPC();
  const health = useQuery(trpc.dashboard.health.queryOptions(undefined, { refetchInterval: 10_000 }));
  const h = health.data;
  if (!h) return null;
  const style = { ok: "bg-green-100 text-green-800", degraded: "bg-amber-100 text-amber-900", unavailable: "bg-red-100 text-red-800" };
  const pending = [...h.pending.broadcast.items, ...h.pending.staleClaims.items, ...h.pending.unserved.items];
  return (
    <section className="rounded border bg-white p-4" aria-labelledby="health-heading">
      <h2 id="health-heading" className="text-lg font-semibold">
        Health <span data-testid="health-status" className={`rounded px-2 text-sm ${style[h.status]}`}>{h.status}</span>
      </h2>
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
        <li>Upstream ({h.upstream.name}): {h.upstream.ok ? "ok" : (h.upstream.error ?? `answered ${h.upstream.status}`)}</li>
      </ul>
      <h3 className="mt-3 font-semibold">Settlements pending</h3>
      <p className="text-sm" data-testid="pending-settlements">
        {h.pending.broadcast.count} broadcast and awaiting confirmation, {h.pending.staleClaims.count} claim(s) past their lease,{" "}
        {h.pending.unserved.count} unserved payment(s)
      </p>
      {pending.length > 0 && (
        <table className="mt-2 w-full text-left text-xs">
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
                <td>
                  {p.status === "pending"
                    ? `broadcast${p.txSignature ? ` (${p.txSignature.slice(0, 12)}…)` : ""}`
                    : p.status === "claimed"
                      ? "claimed, lease ran out"
                      : `unserved${p.failureReason ? ` (${p.failureReason})` : ""}`}
                </td>
                <td>{p.network}</td>
                <td><code>{p.payer}</code></td>
                <td>{p.amountUsdc}</td>
                <td>{new Date(p.updatedAt).toLocaleString()}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function FeePayer() {
  const trpc = useTRPC();
  const health = useQuery(trpc.dashboard.feePayer.queryOptions());
  const style = { ok: "bg-green-100 text-green-800", warn: "bg-amber-100 text-amber-900", alert: "bg-red-100 text-red-800", unreachable: "bg-slate-200" };
  return (
    <section className="rounded border bg-white p-4">
      <h2 className="text-lg font-semibold">Fee payer</h2>
      <ul className="mt-2 space-y-1 text-sm">
        {health.data?.map((h) => (
          <li key={h.network} data-testid="fee-payer">
            <span className={`rounded px-2 ${style[h.level]}`}>{h.level}</span> {h.label}: {h.balance === null ? "unreachable" : `${h.balance} ${h.unit}`} (warn under {h.warnBelow}, alert under {h.alertBelow}) <code className="text-xs">{h.address}</code>
          </li>
        ))}
      </ul>
    </section>
  );
}

function Reconcile() {
  const trpc = useTRPC();
  // Walks the chain: run on demand, not on every page load.
  const report = useQuery({ ...trpc.dashboard.reconcile.queryOptions(), enabled: false });
  return (
    <section className="rounded border bg-white p-4">
      <h2 className="text-lg font-semibold">Reconciliation</h2>
      <p className="text-sm text-slate-600">On-chain deposits against recorded payments and the ledger (read-only, like <code>signet reconcile</code>).</p>
      <button data-testid="reconcile-button" className="mt-2 rounded border px-3 py-1" onClick={() => void report.refetch()} disabled={report.isFetching}>
        {report.isFetching ? "Reading the chain…" : "Run reconciliation"}
      </button>
      {report.error && <p className="text-red-700">{report.error.message}</p>}
      <ul data-testid="reconcile-report" className="mt-2 space-y-1 text-sm">
        {report.data?.map((r) => (
          <li key={r.network} data-testid="reconcile-network" data-drift={r.drift}>
            <span className={`rounded px-2 ${r.drift === 0 ? "bg-green-100 text-green-800" : "bg-red-100 text-red-800"}`}>{r.drift === 0 ? "zero drift" : `${r.drift} mismatches`}</span>{" "}
            {r.label}: {r.onChainTransfers} transfers on chain, {r.recordedPayments} recorded, {r.pendingClaims} pending
            {r.mismatches.map((m) => (
              <div key={`${m.kind}-${m.transaction}`} className="ml-4 font-mono text-xs">{m.kind} {m.transaction}: {m.detail}</div>
            ))}
          </li>
        ))}
      </ul>
    </section>
  );
}

function RecentCalls() {
  const trpc = useTRPC();
  const [cursors, setCursors] = useState<({ createdAt: string; id: string } | null)[]>([null]);
  const cursor = cursors.at(-1) ?? null;
  const page = useQuery(trpc.dashboard.recentCalls.queryOptions({ cursor, limit: 10 }));
  return (
    <section className="rounded border bg-white p-4">
      <h2 className="text-lg font-semibold">Recent calls</h2>
      <table data-testid="recent-calls" className="mt-2 w-full text-left text-xs">
        <thead><tr><th>when</th><th>agent</th><th>network</th><th>model</th><th>price</th><th>cost</th><th>latency</th><th>status</th><th>receipt</th></tr></thead>
        <tbody>
          {page.data?.items.map((c) => (
            <tr key={c.id} data-testid="recent-call">
              <td>{c.createdAt}</td><td className="font-mono">{c.agent.slice(0, 8)}…</td><td className="font-mono">{c.network.slice(0, 14)}…</td><td>{c.model}</td>
              <td>{c.priceUsdc ?? "prepaid"}</td><td>{c.costUsdc}</td><td>{c.latencyMs} ms</td><td>{c.status}</td><td><a className="text-blue-700 underline" href={c.receiptUrl}>receipt</a></td>
            </tr>
          ))}
        </tbody>
      </table>
      <div className="mt-2 flex gap-2 text-sm">
        <button className="rounded border px-2 disabled:opacity-40" disabled={cursors.length < 2} onClick={() => setCursors((c) => c.slice(0, -1))}>Newer</button>
        <button className="rounded border px-2 disabled:opacity-40" disabled={!page.data?.nextCursor} onClick={() => page.data?.nextCursor && setCursors((c) => [...c, page.data!.nextCursor])}>Older</button>
      </div>
    </section>
  );
}
