import Link from "next/link";
import { routeRuntime } from "@/server/runtime/route-edge";
import { readLogOverview } from "@/server/transparency/read-log-overview";
import { CodeBlock } from "../_components/code-block";
import { CopyButton } from "../_components/copy-button";
import { LocalTime } from "../_components/local-time";
import { CheckpointSignature } from "./checkpoint-signature";

export const metadata = { title: "Receipt log" };
export const dynamic = "force-dynamic";

export default async function LogPage() {
  const rt = await routeRuntime();
  const log = await readLogOverview(rt.db, rt.keys.log());
  const base = rt.config.baseUrl;
  const vkey = log.key.verifier_key;
  const checkYourself = [
    {
      title: "A receipt's inclusion",
      code: `# the receipt is in the tree a checkpoint signed by the log key commits to
npm run -s signet -- verify --receipt receipt.json --signature-only \\
  --log --endpoint ${base} --log-key '${vkey}'`,
    },
    {
      title: "The log's consistency",
      code: `# every new checkpoint extends the last one seen, every entry re-verified;
# run it again later (or with --interval SEC) to follow the log
npm run -s signet -- log monitor --endpoint ${base} \\
  --log-key '${vkey}' --state monitor.json`,
    },
  ];
  return (
    <main className="mx-auto max-w-5xl space-y-4 px-4 py-10 sm:px-6">
      <h1 className="text-2xl font-bold tracking-tight sm:text-3xl">Public receipt log</h1>
      <p className="text-slate-700">
        Every receipt this service signs is appended to an append-only Merkle tree that anyone can read and check. The
        log signs a checkpoint of the tree with its own key; a receipt holder proves their receipt is in it, and a
        monitor proves each checkpoint extends the last, so the operator cannot quietly drop or rewrite a receipt it
        served.
      </p>

      <section
        aria-labelledby="size-heading"
        className="rounded-xl border border-slate-200 bg-white p-4 shadow-sm sm:p-5"
      >
        <h2 id="size-heading" className="text-base font-semibold">
          Size
        </h2>
        <p className="mt-1">
          <strong data-testid="log-size" data-size={log.size} className="text-2xl">
            {log.size.toLocaleString("en-US")}
          </strong>{" "}
          {log.size === 1 ? "receipt" : "receipts"} in the latest signed checkpoint.
        </p>
      </section>

      <section
        aria-labelledby="checkpoint-heading"
        className="rounded-xl border border-slate-200 bg-white p-4 text-sm shadow-sm sm:p-5"
      >
        <h2 id="checkpoint-heading" className="text-base font-semibold">
          Latest checkpoint
        </h2>
        <dl
          data-testid="log-checkpoint"
          className="mt-3 grid grid-cols-1 gap-x-4 gap-y-1 sm:grid-cols-[max-content_1fr]"
        >
          <dt className="text-slate-600">Origin</dt>
          <dd data-testid="checkpoint-origin" className="break-all font-mono">
            {log.checkpoint.origin}
          </dd>
          <dt className="text-slate-600">Tree size</dt>
          <dd data-testid="checkpoint-size" className="font-mono">
            {log.size}
          </dd>
          <dt className="text-slate-600">Root hash (base64)</dt>
          <dd data-testid="checkpoint-root" className="break-all font-mono">
            {log.checkpoint.root}
          </dd>
          <dt className="text-slate-600">Signature</dt>
          <dd className="min-w-0">
            <CheckpointSignature note={log.checkpoint.note} />
          </dd>
          <dt className="text-slate-600">Witnesses</dt>
          <dd data-testid="checkpoint-witnesses">
            {log.checkpoint.cosignedBy.length > 0
              ? `cosigned by ${log.checkpoint.cosignedBy.join(", ")}`
              : "no witness has cosigned this checkpoint yet"}
          </dd>
        </dl>
        <div className="mt-4">
          <CodeBlock
            title="The signed note, as GET /log/checkpoint serves it"
            code={log.checkpoint.note}
            testId="checkpoint-note"
          />
        </div>
      </section>

      <section
        aria-labelledby="entries-heading"
        className="rounded-xl border border-slate-200 bg-white p-4 text-sm shadow-sm sm:p-5"
      >
        <h2 id="entries-heading" className="text-base font-semibold">
          Recent entries
        </h2>
        {log.recent.length === 0 ? (
          <p data-testid="log-empty" className="mt-2 text-slate-700">
            No receipt is in the log yet: the first paid or prepaid call&apos;s receipt appears here within seconds of
            its answer.
          </p>
        ) : (
          <table data-testid="log-entries" className="mt-3 w-full text-left">
            <caption className="sr-only">The newest receipts in the log, newest first</caption>
            <thead className="text-slate-600">
              <tr>
                <th scope="col" className="py-1 pr-4 font-medium">
                  Index
                </th>
                <th scope="col" className="py-1 pr-4 font-medium">
                  Inference id
                </th>
                <th scope="col" className="py-1 font-medium">
                  Logged
                </th>
              </tr>
            </thead>
            <tbody>
              {log.recent.map((e) => (
                <tr key={e.index} data-testid="log-entry" className="border-t border-slate-100 align-top">
                  <td className="py-1 pr-4 font-mono">{e.index}</td>
                  <td className="py-1 pr-4">
                    <Link className="break-all font-mono text-violet-800 underline" href={`/r/${e.inferenceId}`}>
                      {e.inferenceId}
                    </Link>
                  </td>
                  <td className="py-1 text-xs">
                    <LocalTime ms={e.loggedAtMs} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>

      <section
        aria-labelledby="check-heading"
        className="space-y-3 rounded-xl border border-slate-200 bg-white p-4 text-sm shadow-sm sm:p-5"
      >
        <h2 id="check-heading" className="text-base font-semibold">
          Check it yourself
        </h2>
        <p className="text-slate-800">
          Pin the log key once (it is not the operator key), then check with the{" "}
          <code className="rounded bg-slate-100 px-1 text-xs">signet</code> CLI:
        </p>
        <div className="flex min-w-0 items-center gap-2">
          <code data-testid="log-verifier-key" className="min-w-0 break-all text-xs">
            {vkey}
          </code>
          <CopyButton value={vkey} label="log key" />
        </div>
        <div className="grid gap-3 md:grid-cols-2">
          {checkYourself.map((c) => (
            <CodeBlock key={c.title} title={c.title} code={c.code} />
          ))}
        </div>
        <p className="text-slate-800">
          The log speaks the C2SP formats (signed-note checkpoints, tlog-tiles), so their tools read it too:{" "}
          <a className="text-violet-800 underline" href="/log/checkpoint">
            /log/checkpoint
          </a>
          ,{" "}
          <a className="text-violet-800 underline" href="/log/key">
            /log/key
          </a>
          , the tiles under <code className="text-xs">/log/tile/</code>, and a receipt&apos;s proof at{" "}
          <code className="text-xs">/api/v1/receipts/&lt;id&gt;/proof</code>. A receipt&apos;s page checks its own
          inclusion in your browser. The formats, the witnesses and what the log proves and does not are in the
          repository&apos;s <code className="text-xs">docs/log.md</code>.
        </p>
      </section>
    </main>
  );
}
