"use client";
// The dashboard's settings: the mainnet kill switch, one typed control per setting (generated from each setting's
// kind: a toggle, an amount in USDC, a whole number, a network, a list of keys, an address, a write-only secret), the
// problems the settings cause now, and the audit log. A change the server finds has consequences for calls comes back
// unsaved with them; the operator reads them and confirms, and only then is it written.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { inferRouterOutputs } from "@trpc/server";
import { useId, useState } from "react";
import { useTRPC } from "@/app/_client/trpc-react";
import type { AppRouter } from "@/server/trpc/root";
import { Section, TableScroll } from "./dashboard-section";

type Outputs = inferRouterOutputs<AppRouter>;
type SettingView = Outputs["settings"]["get"]["settings"][number];
type SettingKey = SettingView["key"];
type Consequence = Extract<Outputs["settings"]["set"], { ok: false }>["consequences"][number];
type SettingValue = boolean | number | string | string[];
type ViewOf<K extends SettingView["kind"]> = Extract<SettingView, { kind: K }>;

/** The kill switch has its own card; the settings list shows every other setting. */
const KILL_SWITCH: SettingKey = "SERVICE_MAINNET_ENABLED";

const GROUPS: { group: SettingView["group"]; title: string }[] = [
  { group: "mainnet", title: "Mainnet" },
  { group: "payments", title: "Payments" },
  { group: "models", title: "Models" },
  { group: "grants", title: "Grants" },
];

function useSettings() {
  const trpc = useTRPC();
  return useQuery(trpc.settings.get.queryOptions());
}

interface SettingChange {
  /** Sends `value`; true once it is saved. */
  save(value: SettingValue): Promise<boolean>;
  /** Sends the change waiting for confirmation again, with its consequences confirmed. */
  confirm(): Promise<boolean>;
  cancel(): void;
  /** A change the server held back, with the consequences to confirm. */
  pending: { value: SettingValue; consequences: Consequence[] } | null;
  error: string | null;
  saving: boolean;
  /** True from the moment the saved value has been read back until the next change is sent. */
  saved: boolean;
}

/** Changes one setting through the server's checks: saved, refused with a message, or held for confirmation. */
function useSettingChange(key: SettingKey): SettingChange {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const set = useMutation(trpc.settings.set.mutationOptions());
  const [pending, setPending] = useState<SettingChange["pending"]>(null);
  const [error, setError] = useState<string | null>(null);
  // Saving lasts until the saved value is read back: the row is then drawn again from it, and an edit made before that
  // would be drawn over.
  const [refreshing, setRefreshing] = useState(false);
  const [saved, setSaved] = useState(false);
  async function send(value: SettingValue, acknowledged: string[]): Promise<boolean> {
    setError(null);
    setSaved(false);
    const outcome = await set.mutateAsync({ key, value, acknowledged }).catch((err: unknown) => ({
      ok: false as const,
      reason: "failed" as const,
      message: err instanceof Error ? err.message : "the change could not be sent",
    }));
    if (outcome.ok) {
      setPending(null);
      setRefreshing(true);
      try {
        await Promise.all([
          queryClient.invalidateQueries({ queryKey: trpc.settings.get.queryKey() }),
          queryClient.invalidateQueries({ queryKey: trpc.settings.audit.queryKey() }),
        ]);
      } finally {
        setRefreshing(false);
      }
      setSaved(true);
      return true;
    }
    if (outcome.reason === "confirmation_required") {
      setPending({ value, consequences: outcome.consequences });
      return false;
    }
    setPending(null);
    setError(outcome.message);
    return false;
  }
  return {
    save: (value) => send(value, []),
    confirm: async () =>
      pending
        ? send(
            pending.value,
            pending.consequences.map((c) => c.id),
          )
        : false,
    cancel: () => setPending(null),
    pending,
    error,
    saving: set.isPending || refreshing,
    saved,
  };
}

/** The mainnet kill switch: one switch, with the consequences of flipping it confirmed first. */
export function KillSwitch() {
  const settings = useSettings();
  const change = useSettingChange(KILL_SWITCH);
  const view = settings.data?.settings.find(
    (s): s is ViewOf<"boolean"> => s.key === KILL_SWITCH && s.kind === "boolean",
  );
  const enabled = view?.value === true;
  return (
    <Section title="Mainnet kill switch" headingId="mainnet-kill-switch-heading">
      <p className="my-2">
        Mainnet is <strong data-testid="mainnet-state">{view ? (enabled ? "ON" : "OFF") : "…"}</strong>.
      </p>
      {view && <p className="mb-2 text-sm text-slate-600">{view.help}</p>}
      <button
        data-testid="kill-switch"
        disabled={!view || change.saving || change.pending !== null}
        className={`rounded-lg px-4 py-2 font-semibold text-white disabled:opacity-50 ${enabled ? "bg-red-700" : "bg-green-700"}`}
        onClick={() => void change.save(!enabled)}
      >
        {enabled ? "Turn mainnet off" : "Turn mainnet on"}
      </button>
      {view && <SourceLine setting={view} />}
      <ChangeFeedback settingKey={KILL_SWITCH} change={change} />
    </Section>
  );
}

/** Every other setting, grouped, each with the control its kind calls for. */
export function SettingsEditor() {
  const settings = useSettings();
  const data = settings.data;
  return (
    <Section title="Settings" headingId="settings-heading">
      <p className="text-sm text-slate-600">
        Changes take effect from the next request, on every instance. Each is checked by the server, and audited.
      </p>
      {settings.error && (
        <p role="alert" className="text-red-800">
          {settings.error.message}
        </p>
      )}
      {data && data.problems.length > 0 && (
        <div
          role="status"
          data-testid="settings-problems"
          className="mt-3 rounded-lg border border-red-200 bg-red-50 p-3 text-sm text-red-900"
        >
          <p className="font-semibold">What the settings break now</p>
          <ul className="list-disc pl-5">
            {data.problems.map((p) => (
              <li key={p.id} data-testid="settings-problem" data-code={p.code}>
                {p.message}
              </li>
            ))}
          </ul>
        </div>
      )}
      {data &&
        GROUPS.map(({ group, title }) => {
          const rows = data.settings.filter((s) => s.group === group && s.key !== KILL_SWITCH);
          if (rows.length === 0) return null;
          return (
            <fieldset key={group} className="mt-4 border-t border-slate-100 pt-3">
              <legend className="pr-2 text-sm font-semibold uppercase tracking-wide text-slate-600">{title}</legend>
              <div className="space-y-4">
                {rows.map((s) => (
                  <SettingRow key={s.key} setting={s} />
                ))}
              </div>
            </fieldset>
          );
        })}
    </Section>
  );
}

function savedValue(setting: SettingView): unknown {
  return setting.kind === "secret" ? [setting.set, setting.origin] : setting.value;
}

function SettingRow({ setting }: { setting: SettingView }) {
  const change = useSettingChange(setting.key);
  const id = `setting-${setting.key}`;
  return (
    <div
      data-testid={`setting-row-${setting.key}`}
      data-kind={setting.kind}
      className="grid gap-2 text-sm sm:grid-cols-[18rem_1fr]"
    >
      <div className="min-w-0">
        {setting.kind === "boolean" ? (
          <span id={`${id}-label`} className="font-medium">
            {setting.label}
          </span>
        ) : (
          <label htmlFor={id} className="font-medium">
            {setting.label}
          </label>
        )}
        <p id={`${id}-help`} className="text-xs text-slate-600">
          {setting.help}
        </p>
        <SourceLine setting={setting} />
        {setting.problem && (
          <p data-testid={`setting-problem-${setting.key}`} className="text-xs text-red-800">
            The value in effect is invalid ({setting.problem}): calls answer 500 server_misconfigured until it is
            replaced.
          </p>
        )}
      </div>
      <div className="min-w-0">
        {/* Keyed by what is saved: once a change lands, the control starts again from what the server holds (a
            replaced secret's typed value included, which is then gone from the page), while the change's own state
            (that it was saved) stays. */}
        <SettingControl
          key={`${setting.updatedAt ?? ""}:${JSON.stringify(savedValue(setting))}`}
          setting={setting}
          change={change}
          id={id}
        />
        <ChangeFeedback settingKey={setting.key} change={change} />
      </div>
    </div>
  );
}

/** The environment variable the default comes from, or who stored the value in effect. */
function SourceLine({ setting }: { setting: SettingView }) {
  const who = setting.updatedBy ? `${setting.updatedBy.slice(0, 8)}…` : "someone";
  return (
    <p data-testid={`setting-source-${setting.key}`} className="mt-1 text-[11px] text-slate-500">
      <code>{setting.key}</code>
      {setting.source === "stored" &&
        ` · set by ${who}${setting.updatedAt ? ` at ${setting.updatedAt.replace("T", " ").replace(/\.\d+Z$/, " UTC")}` : ""}`}
      {setting.source === "environment" && " · the environment's default"}
      {setting.source === "unset" && " · not set in the environment"}
    </p>
  );
}

function SettingControl({ setting, change, id }: { setting: SettingView; change: SettingChange; id: string }) {
  switch (setting.kind) {
    case "boolean":
      return <ToggleControl setting={setting} change={change} id={id} />;
    case "usdc":
      return (
        <TextControl
          setting={setting}
          change={change}
          id={id}
          initial={setting.value}
          unit="USDC"
          inputMode="decimal"
          toValue={(text) => text.trim()}
        />
      );
    case "integer":
      return (
        <TextControl
          setting={setting}
          change={change}
          id={id}
          initial={setting.value === null ? "" : String(setting.value)}
          inputMode="numeric"
          toValue={(text) => (/^\d+$/.test(text.trim()) ? Number(text.trim()) : text)}
        />
      );
    case "address":
      return (
        <TextControl
          setting={setting}
          change={change}
          id={id}
          initial={setting.value ?? ""}
          placeholder="none (a base58 public key)"
          mono
          toValue={(text) => text.trim()}
        />
      );
    case "network":
      return <NetworkControl setting={setting} change={change} id={id} />;
    case "keys":
      return <KeysControl setting={setting} change={change} id={id} />;
    case "secret":
      return <SecretControl setting={setting} change={change} id={id} />;
  }
}

function ToggleControl({ setting, change, id }: { setting: ViewOf<"boolean">; change: SettingChange; id: string }) {
  const on = setting.value === true;
  return (
    <button
      id={id}
      type="button"
      role="switch"
      aria-checked={on}
      aria-labelledby={`${id}-label`}
      aria-describedby={`${id}-help`}
      data-testid={id}
      disabled={change.saving || change.pending !== null}
      onClick={() => void change.save(!on)}
      className="inline-flex items-center gap-2 rounded-full focus-visible:outline-2 focus-visible:outline-violet-600 disabled:opacity-50"
    >
      <span
        className={`relative inline-block h-6 w-11 rounded-full transition ${on ? "bg-green-700" : "bg-slate-400"}`}
      >
        <span
          className={`absolute top-0.5 h-5 w-5 rounded-full bg-white shadow transition ${on ? "left-[1.375rem]" : "left-0.5"}`}
        />
      </span>
      <span className="text-sm">{on ? "On" : "Off"}</span>
    </button>
  );
}

interface TextControlProps {
  setting: SettingView;
  change: SettingChange;
  id: string;
  initial: string;
  toValue(text: string): SettingValue;
  unit?: string;
  placeholder?: string;
  inputMode?: "decimal" | "numeric";
  mono?: boolean;
}

/** A typed value written as text (an amount, a number, an address): the server parses and checks it. */
function TextControl({ setting, change, id, initial, toValue, unit, placeholder, inputMode, mono }: TextControlProps) {
  const [text, setText] = useState(initial);
  return (
    <form
      className="flex flex-wrap items-center gap-2"
      onSubmit={(e) => {
        e.preventDefault();
        void change.save(toValue(text));
      }}
    >
      <span className="flex min-w-0 flex-1 items-center rounded border border-slate-300 focus-within:outline-2 focus-within:outline-violet-600">
        <input
          id={id}
          data-testid={id}
          aria-describedby={`${id}-help`}
          className={`w-full min-w-0 rounded p-1 outline-none ${mono ? "font-mono text-xs" : ""}`}
          autoComplete="off"
          spellCheck={false}
          inputMode={inputMode}
          placeholder={placeholder}
          value={text}
          onChange={(e) => setText(e.target.value)}
        />
        {unit && (
          <span data-testid={`${id}-unit`} className="px-2 text-xs font-semibold text-slate-600">
            {unit}
          </span>
        )}
      </span>
      <SaveButton settingKey={setting.key} change={change} />
    </form>
  );
}

function NetworkControl({ setting, change, id }: { setting: ViewOf<"network">; change: SettingChange; id: string }) {
  const [choice, setChoice] = useState<string>(setting.value ?? "");
  return (
    <form
      className="flex flex-wrap items-center gap-2"
      onSubmit={(e) => {
        e.preventDefault();
        void change.save(choice);
      }}
    >
      <select
        id={id}
        data-testid={id}
        aria-describedby={`${id}-help`}
        className="rounded border border-slate-300 p-1"
        value={choice}
        onChange={(e) => setChoice(e.target.value)}
      >
        {setting.value === null && <option value="">(invalid: choose one)</option>}
        {setting.options.map((o) => (
          <option key={o.id} value={o.id}>
            {o.label}
            {o.mainnet ? " (mainnet)" : ""}
            {o.offered ? "" : " (no RPC configured)"}
          </option>
        ))}
      </select>
      <SaveButton settingKey={setting.key} change={change} />
    </form>
  );
}

/** A list of payer keys: one per entry, added and removed one at a time, saved as a whole. */
function KeysControl({ setting, change, id }: { setting: ViewOf<"keys">; change: SettingChange; id: string }) {
  const [keys, setKeys] = useState<string[]>(setting.value);
  const [next, setNext] = useState("");
  // While a change is sent or waits for its confirmation, the list is what is being saved: not edited.
  const busy = change.saving || change.pending !== null;
  const add = () => {
    const key = next.trim();
    if (key && !keys.includes(key)) setKeys([...keys, key]);
    setNext("");
  };
  return (
    <div className="space-y-2">
      <ul data-testid={`${id}-list`} className="space-y-1">
        {keys.length === 0 && <li className="text-xs text-slate-600">Empty: any agent may pay.</li>}
        {keys.map((k) => (
          <li key={k} data-testid={`${id}-entry`} className="flex items-center gap-2">
            <code className="min-w-0 flex-1 break-all text-xs">{k}</code>
            <button
              type="button"
              aria-label={`Remove ${k}`}
              disabled={busy}
              className="rounded border border-slate-300 px-2 text-xs hover:bg-slate-100 disabled:opacity-50"
              onClick={() => setKeys(keys.filter((x) => x !== k))}
            >
              Remove
            </button>
          </li>
        ))}
      </ul>
      <div className="flex flex-wrap items-center gap-2">
        <input
          id={id}
          data-testid={id}
          aria-describedby={`${id}-help`}
          className="min-w-0 flex-1 rounded border border-slate-300 p-1 font-mono text-xs"
          autoComplete="off"
          spellCheck={false}
          placeholder="a base58 public key or a 0x address"
          value={next}
          disabled={busy}
          onChange={(e) => setNext(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === "Enter") {
              e.preventDefault();
              add();
            }
          }}
        />
        <button
          type="button"
          data-testid={`${id}-add`}
          disabled={busy}
          className="rounded border border-slate-300 px-2 py-1 hover:bg-slate-100 disabled:opacity-50"
          onClick={add}
        >
          Add
        </button>
        <button
          type="button"
          data-testid={`save-${setting.key}`}
          disabled={busy}
          className="rounded border border-slate-300 px-2 py-1 hover:bg-slate-100 disabled:opacity-50"
          onClick={() => void change.save(next.trim() ? [...keys, next.trim()] : keys)}
        >
          Save list
        </button>
      </div>
    </div>
  );
}

/** A secret: whether it is set and by what, and a replacement typed in. Its value is never sent to the page. */
function SecretControl({ setting, change, id }: { setting: ViewOf<"secret">; change: SettingChange; id: string }) {
  const [replacing, setReplacing] = useState(false);
  const [text, setText] = useState("");
  return (
    <div className="space-y-2">
      <p data-testid={`${id}-status`} className={setting.set ? "text-green-800" : "text-amber-800"}>
        {setting.status}
      </p>
      {replacing ? (
        <form
          className="flex flex-wrap items-center gap-2"
          onSubmit={(e) => {
            e.preventDefault();
            void change.save(text);
          }}
        >
          <input
            id={id}
            data-testid={id}
            aria-describedby={`${id}-help`}
            type="password"
            autoComplete="new-password"
            className="min-w-0 flex-1 rounded border border-slate-300 p-1 font-mono"
            placeholder="the new value (at least 16 characters)"
            value={text}
            onChange={(e) => setText(e.target.value)}
          />
          <SaveButton settingKey={setting.key} change={change} label="Replace" />
          <button
            type="button"
            className="rounded border border-slate-300 px-2 py-1 hover:bg-slate-100"
            onClick={() => setReplacing(false)}
          >
            Cancel
          </button>
        </form>
      ) : (
        <button
          type="button"
          data-testid={`replace-${setting.key}`}
          className="rounded border border-slate-300 px-2 py-1 hover:bg-slate-100"
          onClick={() => setReplacing(true)}
        >
          {setting.set ? "Replace…" : "Set…"}
        </button>
      )}
    </div>
  );
}

function SaveButton({
  settingKey,
  change,
  label = "Save",
}: {
  settingKey: SettingKey;
  change: SettingChange;
  label?: string;
}) {
  return (
    <button
      type="submit"
      data-testid={`save-${settingKey}`}
      disabled={change.saving || change.pending !== null}
      className="rounded border border-slate-300 px-2 py-1 hover:bg-slate-100 disabled:opacity-50"
    >
      {label}
    </button>
  );
}

/** A refusal next to its control, the consequences the server found (to confirm or cancel), or that it was saved. */
function ChangeFeedback({ settingKey, change }: { settingKey: SettingKey; change: SettingChange }) {
  const headingId = useId();
  return (
    <>
      {change.saved && (
        <p role="status" data-testid={`setting-saved-${settingKey}`} className="mt-1 text-xs text-green-800">
          Saved.
        </p>
      )}
      {change.error && (
        <p role="alert" data-testid={`setting-error-${settingKey}`} className="mt-1 text-red-800">
          {change.error}
        </p>
      )}
      {change.pending && (
        <div
          role="alertdialog"
          aria-labelledby={headingId}
          data-testid={`consequences-${settingKey}`}
          className="mt-2 space-y-2 rounded-lg border border-amber-300 bg-amber-50 p-3 text-sm text-amber-950"
        >
          <p id={headingId} className="font-semibold">
            Not saved yet. This change has consequences for calls:
          </p>
          <ul className="list-disc pl-5">
            {change.pending.consequences.map((c) => (
              <li key={c.id} data-testid="consequence" data-code={c.code}>
                {c.message}
              </li>
            ))}
          </ul>
          <div className="flex gap-2">
            <button
              type="button"
              data-testid={`confirm-${settingKey}`}
              disabled={change.saving}
              className="rounded-lg bg-amber-800 px-3 py-1 font-semibold text-white disabled:opacity-50"
              onClick={() => void change.confirm()}
            >
              Save anyway
            </button>
            {/* Focused first: the safe answer is one keypress away. */}
            <button
              type="button"
              data-testid={`cancel-${settingKey}`}
              autoFocus
              className="rounded-lg border border-amber-400 px-3 py-1 hover:bg-amber-100"
              onClick={change.cancel}
            >
              Cancel
            </button>
          </div>
        </div>
      )}
    </>
  );
}

/** Settings changes, newest first; a secret's rows say only that it was replaced. */
export function AuditLog() {
  const trpc = useTRPC();
  const audit = useQuery(trpc.settings.audit.queryOptions({ limit: 50 }));
  const settings = useSettings();
  const labels = new Map(settings.data?.settings.map((s) => [s.key as string, s.label]));
  return (
    <Section title="Audit log" headingId="audit-log-heading">
      <TableScroll label="Audit log">
        <table data-testid="audit-log" className="w-full min-w-[36rem] text-left text-xs">
          <caption className="sr-only">Settings changes, newest first</caption>
          <thead className="uppercase text-slate-600">
            <tr>
              <th scope="col">when</th>
              <th scope="col">who</th>
              <th scope="col">setting</th>
              <th scope="col">old → new</th>
            </tr>
          </thead>
          <tbody>
            {audit.data?.map((a) => (
              <tr key={a.id} data-testid="audit-row">
                <td>{a.at}</td>
                <td className="font-mono">{a.actor.slice(0, 8)}…</td>
                <td>
                  {labels.get(a.key) ?? a.key} <code className="text-[11px] text-slate-500">{a.key}</code>
                </td>
                <td className="font-mono">
                  {a.oldValue ?? "(default)"} → {a.newValue}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableScroll>
    </Section>
  );
}
