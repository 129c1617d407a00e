"use client";
// The latest checkpoint's signature, checked in this browser: the log's key is fetched from /log/key (what the CLI and
// the explorer pin), and server/verify opens the note the page shows under it (signature, origin). A failure is said
// by its code and what it means.
import { useEffect, useState } from "react";
import { openCheckpoint } from "@/server/verify";
import { LOG_FAILURE_MEANINGS, type LogFailureMeaning } from "../explorer/log-meanings";

/** A failure the explorer's table does not name: the note or the key unreadable, or the origin not the key's. */
const CHECKPOINT_UNCHECKED: LogFailureMeaning = {
  title: "The checkpoint could not be checked",
  meaning:
    "The checkpoint or the log key could not be read, or the checkpoint names another origin than the key: it cannot be trusted until it checks.",
  next: "Reload the page; if it persists, report it to the operator.",
};

type SignatureState =
  { status: "checking" } | { status: "valid"; logKey: string } | { status: "failed"; code: string; detail: string };

export function CheckpointSignature({ note }: { note: string }) {
  const [state, setState] = useState<SignatureState>({ status: "checking" });

  useEffect(() => {
    let cancelled = false;
    async function check(): Promise<void> {
      const res = await fetch("/log/key");
      if (!res.ok) throw new Error(`/log/key answered HTTP ${res.status}`);
      const { verifier_key: logKey } = (await res.json()) as { verifier_key: string };
      const opened = openCheckpoint(note, { logKey });
      if (cancelled) return;
      setState(
        opened.ok
          ? { status: "valid", logKey }
          : { status: "failed", code: opened.reason, detail: `checked in this browser under ${logKey}` },
      );
    }
    check().catch(
      (err: unknown) =>
        !cancelled &&
        setState({
          status: "failed",
          code: "unreachable",
          detail: `could not read the log key: ${(err as Error).message}`,
        }),
    );
    return () => {
      cancelled = true;
    };
  }, [note]);

  return (
    <div
      data-testid="checkpoint-signature"
      data-status={state.status}
      data-code={state.status === "failed" ? state.code : undefined}
    >
      {state.status === "checking" && <p>Checking the signature against the published log key…</p>}
      {state.status === "valid" && (
        <p className="text-green-800">
          ✓ Signed by the log key published at{" "}
          <a className="underline" href="/log/key">
            /log/key
          </a>
          : <code className="break-all text-xs">{state.logKey}</code>. Verified in this browser.
        </p>
      )}
      {state.status === "failed" && <SignatureFailure code={state.code} detail={state.detail} />}
    </div>
  );
}

function SignatureFailure({ code, detail }: { code: string; detail: string }) {
  const meaning = LOG_FAILURE_MEANINGS[code] ?? CHECKPOINT_UNCHECKED;
  return (
    <div className="space-y-1">
      <p className="font-semibold text-red-800">
        ✗ {meaning.title} <code className="text-xs font-normal">{code}</code>
      </p>
      <p className="text-slate-800">{meaning.meaning}</p>
      <p className="text-slate-800">
        <span className="font-semibold">What to do:</span> {meaning.next}
      </p>
      <p className="break-words text-xs text-slate-600">Detail: {detail}</p>
    </div>
  );
}
