export default function Home() {
  return (
    <main className="mx-auto max-w-2xl p-8">
      <h1 className="text-2xl font-semibold">Signet</h1>
      <p className="mt-2 text-slate-600">Pay-per-call signed inference. Every answer carries an Ed25519-signed receipt.</p>
      <ul className="mt-6 list-disc pl-6 text-sm">
        <li><code>GET /api/v1/operator-key</code>: the key that signs receipts</li>
        <li><code>POST /api/verify</code>: the hosted verifier (signed verdicts)</li>
        <li><code>GET /api/verify/operator-key</code>: the key that signs verdicts</li>
      </ul>
    </main>
  );
}
