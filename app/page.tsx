import Link from "next/link";
import { readSiteFacts } from "@/server/site/read-site-facts";
import { routeRuntime } from "@/server/runtime/route-edge";
import { CodeBlock } from "./_components/code-block";
import { CopyButton } from "./_components/copy-button";

export default async function Home() {
  const facts = await readSiteFacts(await routeRuntime());
  const base = facts.baseUrl;
  const firstCalls = [
    {
      title: "curl: the 402 challenge",
      code: `curl -i ${base}/api/v1/chat/completions \\
  -H 'content-type: application/json' \\
  -d '{"model":"local/echo-1",
       "messages":[{"role":"user","content":"hello"}]}'
# 402 payment_required: the x402 challenge
# is in the PAYMENT-REQUIRED header`,
    },
    {
      title: "TypeScript: @x402/fetch",
      code: `import { x402Client } from "@x402/core/client";
import { wrapFetchWithPayment } from "@x402/fetch";
import { ExactSvmScheme } from "@x402/svm/exact/client";

// signer: a @solana/kit signer that holds USDC
const client = new x402Client();
client.register("solana:*", new ExactSvmScheme(signer, { rpcUrl }));
const pay = wrapFetchWithPayment(fetch, client);

const res = await pay("${base}/api/v1/chat/completions", {
  method: "POST",
  headers: { "content-type": "application/json" },
  body: JSON.stringify({
    model: "local/echo-1",
    messages: [{ role: "user", content: "hello" }],
  }),
});
const receipt = res.headers.get("x-service-receipt");`,
    },
    {
      title: "The openai SDK, unchanged",
      code: `import OpenAI from "openai";

const openai = new OpenAI({
  baseURL: "${base}/api/v1",
  apiKey: "unused: x402 pays per call",
  fetch: wrapFetchWithPayment(fetch, client),
});
const answer = await openai.chat.completions.create({
  model: "local/echo-1",
  messages: [{ role: "user", content: "hello" }],
});`,
    },
    {
      title: "The signet CLI",
      code: `npm run -s signet -- keygen --out my-key.json
npm run -s signet -- chat "hello" \\
  --endpoint ${base} --keypair my-key.json
npm run -s signet -- verify --receipt receipt.json \\
  --prompt prompt.json --response response.json \\
  --endpoint ${base}`,
    },
    {
      title: "An MCP host (Claude Desktop, Cursor)",
      code: `// Remote: paid tools chat and respond over x402's
// MCP transport, at ${base}/mcp (streamable HTTP).
// Local, with a wallet and a budget (stdio):
{ "mcpServers": { "signet": {
  "command": "node",
  "args": ["/path/to/signet/bin/cli/signet.mjs", "mcp",
           "--endpoint", "${base}",
           "--keypair", "/path/to/agent.json",
           "--max-per-call", "0.01", "--max-session", "0.1"]
} } }`,
    },
  ];
  return (
    <main className="mx-auto max-w-6xl space-y-12 px-4 py-10 sm:px-6">
      <section className="grid gap-8 lg:grid-cols-[3fr_2fr] lg:items-start">
        <div className="space-y-5">
          <p className="text-sm font-semibold uppercase tracking-wide text-violet-800">
            Signed inference, paid per call
          </p>
          <h1 className="text-3xl font-bold tracking-tight text-slate-900 sm:text-4xl">
            Pay per call. Verify every answer.
          </h1>
          <p data-testid="home-intro" className="max-w-2xl text-lg text-slate-700">
            Signet is an OpenAI-compatible inference API that agents pay per call with x402 USDC transfers on Solana and
            Base, with no account and no API key. Every answer carries an Ed25519-signed receipt binding the prompt, the
            response and the on-chain payment, which anyone can verify.
          </p>
          <div className="flex flex-wrap gap-3">
            <Link
              href="/explorer"
              className="rounded-lg bg-violet-700 px-4 py-2 font-semibold text-white hover:bg-violet-800 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-violet-600"
            >
              Verify a receipt
            </Link>
            <Link
              href="/credits"
              className="rounded-lg border border-slate-300 bg-white px-4 py-2 font-semibold text-slate-900 hover:bg-slate-100"
            >
              Buy credit with a wallet
            </Link>
            <a
              href="/docs"
              className="rounded-lg border border-slate-300 bg-white px-4 py-2 font-semibold text-slate-900 hover:bg-slate-100"
            >
              API reference
            </a>
          </div>
        </div>
        <section
          aria-labelledby="facts-heading"
          className="rounded-xl border border-slate-200 bg-white p-5 shadow-sm"
          data-testid="live-facts"
        >
          <h2 id="facts-heading" className="text-base font-semibold text-slate-900">
            Live on this deployment
          </h2>
          <dl className="mt-3 divide-y divide-slate-100 text-sm">
            <div className="flex items-baseline justify-between gap-4 py-2">
              <dt className="text-slate-600">Price per call</dt>
              <dd className="font-semibold" data-testid="fact-price">
                {facts.priceUsdc} USDC
              </dd>
            </div>
            <div className="flex items-baseline justify-between gap-4 py-2">
              <dt className="text-slate-600">Mainnet switch</dt>
              <dd data-testid="fact-mainnet">
                <span
                  className={`rounded-full px-2 py-0.5 text-xs font-semibold ${facts.mainnetEnabled ? "bg-green-100 text-green-900" : "bg-slate-200 text-slate-800"}`}
                >
                  {facts.mainnetEnabled ? "ON: real money" : "OFF: testnets only"}
                </span>
              </dd>
            </div>
            <div className="py-2">
              <dt className="text-slate-600">Networks</dt>
              <dd>
                <ul className="mt-1 flex flex-wrap gap-1.5" data-testid="fact-networks">
                  {facts.networks.map((n) => (
                    <li
                      key={n.caip2}
                      data-enabled={String(n.enabled)}
                      className={`rounded-full px-2 py-0.5 text-xs font-medium ${n.enabled ? "bg-violet-100 text-violet-900" : "bg-slate-100 text-slate-600 line-through"}`}
                    >
                      {n.label}
                      <span className="sr-only">{n.enabled ? " (enabled)" : " (not enabled)"}</span>
                    </li>
                  ))}
                </ul>
                {facts.networks.some((n) => !n.enabled) && (
                  <p data-testid="network-legend" className="mt-2 text-xs text-slate-600">
                    <span className="rounded-full bg-slate-100 px-1.5 line-through">Struck through</span>: not served by
                    this deployment now (no RPC for it, or a mainnet while the mainnet switch is off). Payments, top-ups
                    and grants on it are refused.
                  </p>
                )}
              </dd>
            </div>
            <div className="py-2">
              <dt className="text-slate-600">Operator key (signs receipts)</dt>
              <dd className="mt-1 flex items-center gap-2">
                <code className="min-w-0 break-all text-xs" data-testid="fact-operator-key">
                  {facts.operatorKey ?? "not configured"}
                </code>
                {facts.operatorKey && <CopyButton value={facts.operatorKey} label="operator key" />}
              </dd>
            </div>
          </dl>
        </section>
      </section>

      <section aria-labelledby="first-calls-heading" className="space-y-4">
        <div>
          <h2 id="first-calls-heading" className="text-xl font-semibold text-slate-900">
            Your first call
          </h2>
          <p className="mt-1 text-slate-700">
            Ask without paying and you get the 402 challenge; any x402 client pays it and repeats the call. The
            answer&apos;s
            <code className="mx-1 rounded bg-slate-100 px-1">X-Service-Receipt</code>header is the signed receipt.
          </p>
        </div>
        <div className="grid items-start gap-4 lg:grid-cols-2">
          {firstCalls.map((c) => (
            <CodeBlock key={c.title} title={c.title} code={c.code} testId="first-call" />
          ))}
        </div>
        <div
          data-testid="paid-call-credit"
          className="rounded-xl border border-violet-200 bg-violet-50 p-4 text-sm text-slate-800"
        >
          <h3 className="font-semibold text-slate-900">What a paid call leaves behind</h3>
          <p className="mt-1">
            A paid call pays the flat price ({facts.priceUsdc} USDC). The call&apos;s cost (
            <code className="rounded bg-white px-1">cost_usdc</code> in its receipt) is taken from the payment, and the
            unused rest stays as prepaid credit for the paying key, on the network it paid on. The receipt&apos;s page
            shows the three amounts.
          </p>
          <p className="mt-1">
            On Solana, spend it with prepaid calls signed by the same key (
            <code className="rounded bg-white px-1">signet infer &quot;…&quot; --network devnet</code> or{" "}
            <code className="rounded bg-white px-1">mainnet</code>, or{" "}
            <code className="rounded bg-white px-1">POST /api/v1/inference</code> naming that network). On Base the
            payer is an address, and prepaid calls are signed with an Ed25519 key: the remainder is kept on the ledger
            for that address but cannot be spent yet.
          </p>
        </div>
      </section>

      <section aria-labelledby="verify-heading" className="grid gap-4 md:grid-cols-3">
        <h2 id="verify-heading" className="sr-only">
          Where to go next
        </h2>
        <NextStep
          href="/explorer"
          title="Verify a receipt"
          text="Paste a receipt, its prompt and its answer: all five checks run in your browser, the payment against the chain."
        />
        <NextStep
          href="/grants"
          title="Claim a first credit"
          text={`New here with a Solana wallet? Sign one message (no fee) for ${facts.grant.amountUsdc} USDC of sponsored credit on ${facts.grant.networkLabel}.`}
        />
        <NextStep
          href="/credits"
          title="Buy prepaid credit"
          text="Pay a top-up from your wallet, then spend it with signed prepaid calls: one payment, many calls."
        />
      </section>
    </main>
  );
}

function NextStep({ href, title, text }: { href: string; title: string; text: string }) {
  return (
    <Link
      href={href}
      className="group rounded-xl border border-slate-200 bg-white p-5 shadow-sm hover:border-violet-300 focus-visible:outline-2 focus-visible:outline-violet-600"
    >
      <p className="font-semibold text-slate-900 group-hover:text-violet-800">{title} →</p>
      <p className="mt-1 text-sm text-slate-700">{text}</p>
    </Link>
  );
}
