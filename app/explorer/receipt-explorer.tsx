"use client";
// The receipt explorer: verifies in this browser with server/verify (the same library the server uses). The receipt's
// fields are shown as vouched for only while its signature verifies under the operator key; otherwise they are marked
// as anyone's writing.
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef, useState, type ReactNode } from "react";
import { serviceError } from "@/server/errors/error-body";
import { useTRPC } from "@/app/_client/trpc-react";
import { CopyButton } from "@/app/_components/copy-button";
import { LocalTime } from "@/app/_components/local-time";
import {
  addressExplorerUrl,
  CHECK_NAMES,
  explorerName,
  parseOperatorKeys,
  readExplorerInput,
  readTextOrJson,
  txExplorerUrl,
  verifyForExplorer,
  verifyVerdictSignature,
  type ExplorerVerdict,
} from "@/server/verify";
import { CHECK_MEANINGS } from "./check-meanings";
import { LogInclusion } from "./log-inclusion";
import { networkLabel, type NetworkName } from "./network-label";

type HostedVerdict =
  { status: "ok"; verdict: Record<string, unknown>; signatureValid: boolean } | { status: "error"; message: string };

interface Props {
  initialReceipt?: string;
  /** The networks this deployment knows, by name (from the server's network list). */
  networks: readonly NetworkName[];
  /** Verify `initialReceipt` as soon as the page opens (the receipt's permalink), and show the verdict first. */
  verifyOnLoad?: boolean;
  /** With `verifyOnLoad`: shown between the verdict and the boxes to check the prompt and answer. */
  children?: ReactNode;
}

export function ReceiptExplorer({ initialReceipt = "", networks, verifyOnLoad = false, children }: Props) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  // Prefetch the advertised RPCs; onVerify waits for them.
  useQuery(trpc.explorer.rpcs.queryOptions());
  const [receiptText, setReceiptText] = useState(initialReceipt);
  const [promptText, setPromptText] = useState("");
  const [responseText, setResponseText] = useState("");
  const [rpcOverride, setRpcOverride] = useState("");
  const [receipt, setReceipt] = useState<Record<string, unknown> | null>(null);
  const [result, setResult] = useState<ExplorerVerdict | null>(null);
  const [hosted, setHosted] = useState<HostedVerdict | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function loadReceipt(): Promise<Record<string, unknown> | null> {
    const input = readExplorerInput(receiptText);
    if (input.kind === "invalid") {
      setError(input.reason);
      return null;
    }
    if (input.kind === "receipt") return input.receipt;
    try {
      return (await queryClient.fetchQuery(trpc.explorer.receipt.queryOptions({ id: input.id }))) as Record<
        string,
        unknown
      >;
    } catch {
      setError(`no receipt found for ${input.id}`);
      return null;
    }
  }

  async function onVerify() {
    setBusy(true);
    setError(null);
    setResult(null);
    setHosted(null);
    try {
      const loaded = await loadReceipt();
      if (!loaded) return;
      setReceipt(loaded);
      // The current key and the retired ones: a receipt signed before a key rotation verifies under its old key.
      const operatorKeys = parseOperatorKeys(await (await fetch("/api/v1/operator-key")).json());
      if (!operatorKeys) return setError("the service did not publish a well-formed operator key");
      // The advertised RPCs may still be loading: wait for them rather than fall back to a public endpoint.
      const rpcByNetwork = await queryClient.fetchQuery(trpc.explorer.rpcs.queryOptions());
      setResult(
        await verifyForExplorer({
          receipt: loaded,
          prompt: readTextOrJson(promptText),
          response: readTextOrJson(responseText),
          operatorKeys,
          rpcByNetwork,
          rpcOverride,
        }),
      );
    } catch (err) {
      setError(`verification could not finish: ${(err as Error).message}`);
    } finally {
      setBusy(false);
    }
  }

  // Once per page: React's development double-run of effects must not verify twice.
  const verifiedOnLoad = useRef(false);
  useEffect(() => {
    if (!verifyOnLoad || verifiedOnLoad.current) return;
    verifiedOnLoad.current = true;
    void onVerify();
    // onVerify reads the boxes as they are when the page opens: run once, not on every edit.
  }, [verifyOnLoad]);

  async function onHostedVerdict() {
    if (!receipt) return;
    setHosted(null);
    const res = await fetch("/api/verify", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        receipt,
        prompt: readTextOrJson(promptText) ?? "",
        response: readTextOrJson(responseText) ?? "",
        ...(rpcOverride ? { rpc: rpcOverride } : {}),
      }),
    });
    const body = (await res.json()) as Record<string, unknown>;
    if (!res.ok) {
      const error = serviceError(body);
      return setHosted({ status: "error", message: `${error.code || `HTTP ${res.status}`}: ${error.message}` });
    }
    const { pubkey } = (await (await fetch("/api/verify/operator-key")).json()) as { pubkey: string };
    setHosted({ status: "ok", verdict: body, signatureValid: verifyVerdictSignature(body, pubkey) });
  }

  const inputs = (
    <>
      <label className="block text-sm font-medium">
        Receipt (JSON, X-Service-Receipt value, id, or permalink)
        <textarea
          data-testid="receipt-input"
          className="mt-1 h-32 w-full rounded-lg border border-slate-300 bg-white p-2 font-mono text-xs"
          value={receiptText}
          onChange={(e) => setReceiptText(e.target.value)}
        />
      </label>
      <div className="grid gap-4 md:grid-cols-2">
        <label className="block text-sm font-medium">
          Prompt (optional: messages JSON or text)
          <textarea
            data-testid="prompt-input"
            className="mt-1 h-24 w-full rounded-lg border border-slate-300 bg-white p-2 font-mono text-xs"
            value={promptText}
            onChange={(e) => setPromptText(e.target.value)}
          />
        </label>
        <label className="block text-sm font-medium">
          Response (optional: chat-completion JSON, a streamed answer&apos;s array of chunks, or its concatenated text)
          <textarea
            data-testid="response-input"
            className="mt-1 h-24 w-full rounded-lg border border-slate-300 bg-white p-2 font-mono text-xs"
            value={responseText}
            onChange={(e) => setResponseText(e.target.value)}
          />
        </label>
      </div>
      <label className="block text-sm font-medium">
        Chain RPC (optional; default: this service&apos;s RPC for the receipt&apos;s network)
        <input
          className="mt-1 w-full rounded-lg border border-slate-300 bg-white p-2 font-mono text-xs"
          value={rpcOverride}
          onChange={(e) => setRpcOverride(e.target.value)}
          placeholder="https://…"
        />
      </label>
      <button
        data-testid="verify-button"
        className="rounded-lg bg-violet-700 px-4 py-2 font-semibold text-white hover:bg-violet-800 disabled:opacity-50"
        disabled={busy}
        onClick={() => void onVerify()}
      >
        {busy ? "Verifying…" : "Verify in this browser"}
      </button>
    </>
  );
  const signatureOk = result?.checks.service_signature_ok === true;
  const results = (
    <>
      {error && (
        <p role="alert" className="text-red-800" data-testid="explorer-error">
          {error}
        </p>
      )}
      {verifyOnLoad && busy && !result && (
        <p role="status" data-testid="verifying-on-load" className="text-slate-700">
          Verifying this receipt in your browser…
        </p>
      )}
      {receipt && result && (
        <ReceiptSummary receipt={receipt} operatorKey={result.operatorKey} trusted={signatureOk} networks={networks} />
      )}
      {result && (
        <section
          data-testid="result"
          aria-labelledby="result-heading"
          className="rounded-xl border border-slate-200 bg-white p-4 shadow-sm sm:p-5"
        >
          <h2 id="result-heading" className="sr-only">
            Verification result
          </h2>
          {result.mode === "full" ? (
            <p
              data-testid="overall"
              className={`mb-3 inline-block rounded-full px-3 py-1 font-semibold ${result.ok ? "bg-green-100 text-green-900" : "bg-red-100 text-red-900"}`}
            >
              {result.ok ? "All five checks pass" : "Verification failed"}
            </p>
          ) : (
            <p data-testid="signature-only-note" className="mb-3 rounded-lg bg-amber-50 px-3 py-2 text-amber-950">
              {signatureOk
                ? "Signature-only check: this proves the operator minted the receipt. The prompt and response hashes were not checked."
                : "Signature-only check: the signature does not verify, so nothing shows the operator minted this receipt. The prompt and response hashes were not checked."}
            </p>
          )}
          <ul className="space-y-2">
            {CHECK_NAMES.filter((c) => result.checks[c] !== undefined).map((c) => {
              const pass = result.checks[c] === true;
              return (
                <li
                  key={c}
                  data-testid={`check-${c}`}
                  data-pass={String(pass)}
                  className={`rounded-lg border p-3 text-sm ${pass ? "border-green-200 bg-green-50/50" : "border-red-200 bg-red-50/60"}`}
                >
                  <p className="flex flex-wrap items-center gap-x-2 font-semibold">
                    <span
                      className={`rounded-full px-2 py-0.5 text-xs ${pass ? "bg-green-700 text-white" : "bg-red-700 text-white"}`}
                    >
                      {pass ? "✓ pass" : "✗ fail"}
                    </span>
                    {CHECK_MEANINGS[c].title} <code className="text-xs font-normal text-slate-600">{c}</code>
                  </p>
                  <p className="mt-1 text-slate-800">{pass ? CHECK_MEANINGS[c].pass : CHECK_MEANINGS[c].fail}</p>
                  <p className="mt-1 break-words text-xs text-slate-600">Detail: {result.reasons[c]}</p>
                </li>
              );
            })}
          </ul>
          {result.mode === "signature-only" && verifyOnLoad && (
            <p className="mt-3 text-sm text-slate-700">
              The prompt and the answer are never stored, so they are not checked here: paste them below and verify
              again for all five checks, the payment on the chain included.
            </p>
          )}
          <button
            data-testid="hosted-button"
            className="mt-4 rounded-lg border border-slate-300 px-3 py-1.5 text-sm hover:bg-slate-100"
            onClick={() => void onHostedVerdict()}
          >
            Ask the hosted verifier for a signed verdict
          </button>
        </section>
      )}
      {result && receipt && <LogInclusion key={String(receipt.service_signature)} receipt={receipt} />}
      {hosted && (
        <section
          data-testid="hosted"
          aria-label="Hosted verdict"
          className="rounded-xl border border-slate-200 bg-white p-4 text-sm shadow-sm"
        >
          {hosted.status === "error" ? (
            <p role="alert" className="text-red-800">
              {hosted.message}
            </p>
          ) : (
            <>
              <div className="flex flex-wrap items-center justify-between gap-2">
                <p
                  data-testid="hosted-signature"
                  data-valid={String(hosted.signatureValid)}
                  className={hosted.signatureValid ? "text-green-900" : "text-red-900"}
                >
                  {hosted.signatureValid
                    ? "✓ verdict signature valid under the published verifier key"
                    : "✗ verdict signature does NOT match the published verifier key"}
                </p>
                <CopyButton value={JSON.stringify(hosted.verdict, null, 2)} label="signed verdict" />
              </div>
              <pre
                tabIndex={0}
                aria-label="The signed verdict"
                className="mt-2 overflow-x-auto rounded bg-slate-50 p-2 text-xs"
              >
                {JSON.stringify(hosted.verdict, null, 2)}
              </pre>
            </>
          )}
        </section>
      )}
    </>
  );
  return (
    <div className="space-y-4">
      {verifyOnLoad ? (
        <>
          {results}
          {children}
          <section
            aria-labelledby="check-more-heading"
            className="space-y-4 rounded-xl border border-slate-200 bg-white p-4 shadow-sm sm:p-5"
          >
            <h2 id="check-more-heading" className="text-base font-semibold">
              Check the prompt and the answer too
            </h2>
            {inputs}
          </section>
        </>
      ) : (
        <>
          {inputs}
          {results}
        </>
      )}
    </div>
  );
}

/**
 * The receipt's fields that people copy or look up: its id and permalink, when it was issued, the keys, and the
 * payment on its chain. Shown as vouched for only when its signature verifies (`trusted`); otherwise a banner says the
 * operator does not vouch for them and every field is marked unverified.
 */
function ReceiptSummary({
  receipt,
  operatorKey,
  trusted,
  networks,
}: {
  receipt: Record<string, unknown>;
  operatorKey: string;
  trusted: boolean;
  networks: readonly NetworkName[];
}) {
  const payment = (receipt.payment ?? null) as {
    tx_signature?: unknown;
    network?: unknown;
    pay_to?: unknown;
    amount_usdc?: unknown;
  } | null;
  const network = typeof payment?.network === "string" ? payment.network : null;
  const id = String(receipt.inference_id ?? "");
  const permalink = typeof window === "undefined" ? `/r/${id}` : `${window.location.origin}/r/${id}`;
  const issuedMs =
    typeof receipt.timestamp === "number" && Number.isSafeInteger(receipt.timestamp) && receipt.timestamp > 0
      ? receipt.timestamp
      : null;
  // `published`: not a receipt field but what this service publishes (its key), so never marked unverified.
  const rows: {
    label: string;
    value: string;
    href?: string | null;
    testId?: string;
    time?: number;
    copy?: boolean;
    published?: boolean;
  }[] = [
    { label: "Receipt id", value: id, copy: true },
    { label: "Permalink", value: permalink, href: `/r/${id}`, copy: true },
    ...(issuedMs !== null
      ? [{ label: "Issued", value: String(issuedMs), time: issuedMs, testId: "summary-issued" }]
      : []),
    { label: "Model", value: String(receipt.model ?? "") },
    {
      label: "Agent",
      value: String(receipt.agent_pubkey ?? ""),
      href: network ? addressExplorerUrl(network, String(receipt.agent_pubkey ?? "")) : null,
      copy: true,
    },
    { label: "Operator key", value: operatorKey, copy: true, published: true },
  ];
  if (payment && network) {
    const label = networkLabel(networks, network);
    rows.push(
      {
        label: "Paid",
        value: `${String(payment.amount_usdc)} USDC on ${label ? `${label} (${network})` : network}`,
        testId: "summary-paid",
      },
      {
        label: "Transaction",
        value: String(payment.tx_signature ?? ""),
        href: txExplorerUrl(network, String(payment.tx_signature ?? "")),
        testId: "summary-tx",
        copy: true,
      },
      {
        label: "Deposit address",
        value: String(payment.pay_to ?? ""),
        href: addressExplorerUrl(network, String(payment.pay_to ?? "")),
        copy: true,
      },
    );
  } else {
    rows.push({ label: "Paid", value: "from prepaid credit (no on-chain payment)", testId: "summary-paid" });
  }
  return (
    <section
      aria-labelledby="summary-heading"
      data-testid="receipt-summary"
      data-trusted={String(trusted)}
      className={`rounded-xl border p-4 shadow-sm sm:p-5 ${trusted ? "border-slate-200 bg-white" : "border-2 border-dashed border-red-400 bg-red-50"}`}
    >
      <h2 id="summary-heading" className="text-base font-semibold">
        {trusted ? "The receipt" : "The receipt, as pasted (not vouched for)"}
      </h2>
      {!trusted && (
        <p
          role="alert"
          data-testid="untrusted-banner"
          className="mt-2 rounded-lg bg-red-700 px-3 py-2 text-sm font-semibold text-white"
        >
          Signature does not verify: these fields are not vouched for by the operator. Anyone could have written them;
          do not rely on any of them.
        </p>
      )}
      {network && explorerName(network) && (
        <p className={`mt-1 text-xs ${trusted ? "text-slate-600" : "text-red-900"}`}>
          Links open {explorerName(network)}. A local test chain&apos;s transactions are not on the public explorer.
        </p>
      )}
      <dl className="mt-3 space-y-2 text-sm">
        {rows.map((r) => (
          <div key={r.label} className="grid gap-x-3 sm:grid-cols-[9rem_1fr]">
            <dt className={trusted ? "text-slate-600" : "text-red-900"}>
              {r.label}
              {!trusted && !r.published && (
                <span className="ml-1 rounded bg-red-200 px-1 text-xs font-semibold text-red-950">unverified</span>
              )}
            </dt>
            <dd
              data-trusted={String(trusted || r.published === true)}
              className={`flex min-w-0 items-start gap-2 ${trusted || r.published ? "" : "italic text-red-950"}`}
            >
              {r.time !== undefined ? (
                <span className="min-w-0 text-xs">
                  <LocalTime ms={r.time} testId={r.testId} />
                </span>
              ) : r.href ? (
                <a
                  href={r.href}
                  data-testid={r.testId}
                  className={`min-w-0 break-all font-mono text-xs underline ${trusted ? "text-violet-800" : "text-red-950"}`}
                  {...(r.href.startsWith("http") ? { target: "_blank", rel: "noreferrer" } : {})}
                >
                  {r.value}
                </a>
              ) : (
                <span data-testid={r.testId} className="min-w-0 break-all font-mono text-xs">
                  {r.value}
                </span>
              )}
              {r.copy && <CopyButton value={r.value} label={r.label.toLowerCase()} />}
            </dd>
          </div>
        ))}
      </dl>
    </section>
  );
}
