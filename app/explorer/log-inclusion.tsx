"use client";
// The receipt's place in the public receipt log, proven in this browser: the inclusion proof and the signed checkpoint
// come from the service, and server/verify checks the checkpoint's signature under the log key and the proof against
// its root. A receipt not yet in a checkpoint is asked for again after the Retry-After the service gives. A failure
// is said by its code, what it means and what to do.
import { useEffect, useState } from "react";
import { serviceError } from "@/server/errors/error-body";
import { verifyReceiptInclusion, type ReceiptLogProof } from "@/server/verify";
import { LOG_FAILURE_MEANINGS, OTHER_LOG_FAILURE } from "./log-meanings";

type LogState =
  | { status: "checking" }
  | { status: "pending"; attempt: number }
  | { status: "included"; index: number; treeSize: number; logKey: string; cosignedBy: string[] }
  /** `code`: a verifier or service code; `detail`: what the service or the browser said; the proof's place, when known. */
  | { status: "failed"; code: string; detail: string; index?: number; treeSize?: number };

/** At most this many asks while the receipt waits for its checkpoint (the log signs one every second or so). */
const MAX_PENDING_ASKS = 10;

export function LogInclusion({ receipt }: { receipt: Record<string, unknown> }) {
  const [state, setState] = useState<LogState>({ status: "checking" });
  const id = String(receipt.inference_id ?? "");

  useEffect(() => {
    let cancelled = false;
    async function check(attempt: number): Promise<void> {
      const keyRes = await fetch("/log/key");
      const { verifier_key: logKey } = (await keyRes.json()) as { verifier_key: string };
      const res = await fetch(`/api/v1/receipts/${encodeURIComponent(id)}/proof`);
      if (cancelled) return;
      if (res.status === 409 && attempt < MAX_PENDING_ASKS) {
        setState({ status: "pending", attempt });
        const wait = Number(res.headers.get("retry-after") ?? 2) * 1000;
        setTimeout(() => void check(attempt + 1).catch(fail), wait);
        return;
      }
      if (!res.ok) {
        const error = serviceError(await res.json().catch(() => null));
        const code = error.fields.reason === "not_logged" ? "not_logged" : error.code || `http_${res.status}`;
        return setState({ status: "failed", code, detail: error.message || `the service answered HTTP ${res.status}` });
      }
      const proof = (await res.json()) as ReceiptLogProof;
      const verdict = verifyReceiptInclusion(receipt, proof, { logKey });
      if (cancelled) return;
      setState(
        verdict.ok
          ? {
              status: "included",
              index: verdict.index,
              treeSize: verdict.treeSize,
              logKey,
              cosignedBy: verdict.cosignedBy.map((c) => c.name),
            }
          : {
              status: "failed",
              code: verdict.reason,
              detail: "checked in this browser",
              index: proof.log_index,
              treeSize: proof.tree_size,
            },
      );
    }
    const fail = (err: unknown) =>
      !cancelled &&
      setState({
        status: "failed",
        code: "unreachable",
        detail: `could not ask the service: ${(err as Error).message}`,
      });
    if (!/^[0-9a-f-]{36}$/i.test(id))
      setState({ status: "failed", code: "not_found", detail: "the receipt has no inference id the log knows" });
    else void check(0).catch(fail);
    return () => {
      cancelled = true;
    };
  }, [id, receipt]);

  return (
    <section
      data-testid="log-inclusion"
      data-status={state.status}
      data-code={state.status === "failed" ? state.code : undefined}
      aria-label="Public receipt log"
      className="rounded-xl border border-slate-200 bg-white p-4 text-sm shadow-sm"
    >
      <h2 className="mb-2 font-semibold">Public receipt log</h2>
      {state.status === "checking" && <p>Checking the receipt&apos;s inclusion proof…</p>}
      {state.status === "pending" && <p>Not yet in a signed checkpoint; asking again shortly…</p>}
      {state.status === "included" && (
        <p className="text-green-800">
          ✓ Included in the log at index <strong data-testid="log-index">{state.index}</strong> of tree size{" "}
          <strong data-testid="log-size">{state.treeSize}</strong>, checkpoint signed by{" "}
          <code data-testid="log-key" className="break-all">
            {state.logKey}
          </code>
          {state.cosignedBy.length > 0 ? `, cosigned by ${state.cosignedBy.join(", ")}` : ""}. Verified in this browser.
        </p>
      )}
      {state.status === "failed" && <LogFailure state={state} />}
    </section>
  );
}

function LogFailure({ state }: { state: Extract<LogState, { status: "failed" }> }) {
  const meaning = LOG_FAILURE_MEANINGS[state.code] ?? OTHER_LOG_FAILURE;
  return (
    <div className="space-y-1">
      <p className="font-semibold text-red-800">
        ✗ Inclusion not proven: {meaning.title} <code className="text-xs font-normal">{state.code}</code>
      </p>
      <p data-testid="log-meaning" className="text-slate-800">
        {meaning.meaning}
        {state.index !== undefined &&
          state.treeSize !== undefined &&
          ` (The proof was for index ${state.index} of a tree of ${state.treeSize} receipts.)`}
      </p>
      <p data-testid="log-next" className="text-slate-800">
        <span className="font-semibold">What to do:</span> {meaning.next}
      </p>
      <p className="break-words text-xs text-slate-600">Detail: {state.detail}</p>
    </div>
  );
}
