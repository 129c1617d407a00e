"use client";
// The receipt explorer: verifies in this browser with server/verify (the same library the server uses).
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "@/app/_client/trpc-react";
import { LogInclusion } from "./log-inclusion";
import { CHECK_NAMES, readExplorerInput, readTextOrJson, verifyForExplorer, verifyVerdictSignature, type ExplorerVerdict } from "@/server/verify";

type HostedVerdict = { status: "ok"; verdict: Record<string, unknown>; signatureValid: boolean } | { status: "error"; message: string };

export function ReceiptExplorer({ initialReceipt = "" }: { initialReceipt?: string }) {
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
      return (await queryClient.fetchQuery(trpc.explorer.receipt.queryOptions({ id: input.id }))) as Record<string, unknown>;
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
      const keyRes = await fetch("/api/v1/operator-key");
      const { pubkey } = (await keyRes.json()) as { pubkey: string };
      // The advertised RPCs may still be loading: wait for them rather than fall back to a public endpoint.
      const rpcByNetwork = await queryClient.fetchQuery(trpc.explorer.rpcs.queryOptions());
      setResult(
        await verifyForExplorer({ receipt: loaded, prompt: readTextOrJson(promptText), response: readTextOrJson(responseText), operatorKey: pubkey, rpcByNetwork, rpcOverride }),
      );
    } catch (err) {
      setError(`verification could not finish: ${(err as Error).message}`);
    } finally {
      setBusy(false);
    }
  }

  async function onHostedVerdict() {
    if (!receipt) return;
    setHosted(null);
    const res = await fetch("/api/verify", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ receipt, prompt: readTextOrJson(promptText) ?? "", response: readTextOrJson(responseText) ?? "", ...(rpcOverride ? { rpc: rpcOverride } : {}) }),
    });
    const body = (await res.json()) as Record<string, unknown>;
    if (!res.ok) return setHosted({ status: "error", message: `${String(body.error)}: ${String(body.message)}` });
    const { pubkey } = (await (await fetch("/api/verify/operator-key")).json()) as { pubkey: string };
    setHosted({ status: "ok", verdict: body, signatureValid: verifyVerdictSignature(body, pubkey) });
  }

  return (
    <div className="space-y-4">
      <label className="block text-sm font-medium">
        Receipt (JSON, X-Service-Receipt value, id, or permalink)
        <textarea data-testid="receipt-input" className="mt-1 h-32 w-full rounded border p-2 font-mono text-xs" value={receiptText} onChange={(e) => setReceiptText(e.target.value)} />
      </label>
      <div className="grid gap-4 md:grid-cols-2">
        <label className="block text-sm font-medium">
          Prompt (optional: messages JSON or text)
          <textarea data-testid="prompt-input" className="mt-1 h-24 w-full rounded border p-2 font-mono text-xs" value={promptText} onChange={(e) => setPromptText(e.target.value)} />
        </label>
        <label className="block text-sm font-medium">
          Response (optional: chat-completion JSON, a streamed answer&apos;s array of chunks, or its concatenated text)
          <textarea data-testid="response-input" className="mt-1 h-24 w-full rounded border p-2 font-mono text-xs" value={responseText} onChange={(e) => setResponseText(e.target.value)} />
        </label>
      </div>
      <label className="block text-sm font-medium">
        Chain RPC (optional; default: this service&apos;s RPC for the receipt&apos;s network)
        <input className="mt-1 w-full rounded border p-2 font-mono text-xs" value={rpcOverride} onChange={(e) => setRpcOverride(e.target.value)} placeholder="https://…" />
      </label>
      <button data-testid="verify-button" className="rounded bg-slate-900 px-4 py-2 text-white disabled:opacity-50" disabled={busy} onClick={() => void onVerify()}>
        {busy ? "Verifying…" : "Verify in this browser"}
      </button>
      {error && <p className="text-red-700" data-testid="explorer-error">{error}</p>}
      {result && (
        <section data-testid="result" className="rounded border bg-white p-4">
          {result.mode === "full" ? (
            <p data-testid="overall" className={`mb-3 inline-block rounded px-3 py-1 font-semibold ${result.ok ? "bg-green-100 text-green-800" : "bg-red-100 text-red-800"}`}>
              {result.ok ? "All five checks pass" : "Verification failed"}
            </p>
          ) : (
            <p data-testid="signature-only-note" className="mb-3 rounded bg-amber-50 px-3 py-2 text-amber-900">
              Signature-only check: this proves the operator minted the receipt. The prompt and response hashes were not checked.
            </p>
          )}
          <ul className="space-y-1">
            {CHECK_NAMES.filter((c) => result.checks[c] !== undefined).map((c) => (
              <li key={c} data-testid={`check-${c}`} data-pass={String(result.checks[c])} className="text-sm">
                <span className={result.checks[c] ? "text-green-700" : "text-red-700"}>{result.checks[c] ? "✓ pass" : "✗ fail"}</span>{" "}
                <code>{c}</code>: {result.reasons[c]}
              </li>
            ))}
          </ul>
          <button data-testid="hosted-button" className="mt-4 rounded border px-3 py-1 text-sm" onClick={() => void onHostedVerdict()}>
            Ask the hosted verifier for a signed verdict
          </button>
        </section>
      )}
      {result && receipt && <LogInclusion key={String(receipt.service_signature)} receipt={receipt} />}
      {hosted && (
        <section data-testid="hosted" className="rounded border bg-white p-4 text-sm">
          {hosted.status === "error" ? (
            <p className="text-red-700">{hosted.message}</p>
          ) : (
            <>
              <p data-testid="hosted-signature" data-valid={String(hosted.signatureValid)}>
                {hosted.signatureValid ? "✓ verdict signature valid under the published verifier key" : "✗ verdict signature does NOT match the published verifier key"}
              </p>
              <pre className="mt-2 overflow-x-auto text-xs">{JSON.stringify(hosted.verdict, null, 2)}</pre>
            </>
          )}
        </section>
      )}
    </div>
  );
}
