// The baseline of `npm run bench`: the stock x402 v2 reference stack doing the same paid call, with nothing
// of Signet's: x402HTTPResourceServer over x402ResourceServer, an in-process x402Facilitator with @x402/svm's exact
// scheme, its default `authorization` flow (verify, run the handler, settle), a trivial handler and no database.
import "server-only";
import { createKeyPairSignerFromBytes, createSolanaRpc } from "@solana/kit";
import { x402Facilitator } from "@x402/core/facilitator";
import { x402HTTPResourceServer, x402ResourceServer, type FacilitatorClient } from "@x402/core/server";
import { toFacilitatorSvmSigner } from "@x402/svm";
import { ExactSvmScheme as ExactSvmFacilitatorScheme } from "@x402/svm/exact/facilitator";
import { ExactSvmScheme as ExactSvmServerScheme } from "@x402/svm/exact/server";
import type { Ed25519Keypair } from "../../server/keys/parse-secret-key";

export interface StockRouteOptions {
  /** The facilitator's key: fee payer, and payee unless `payTo` names another. */
  keypair: Ed25519Keypair;
  /** The payee (whose token account receives the payment); default: the facilitator's own address. */
  payTo?: string;
  rpcUrl: string;
  caip2: string;
  usdcMint: string;
  amountUnits: bigint;
}

/** A fetch-shaped handler for `POST /paid` protected by the stock stack. */
export async function createStockPaidRoute(opts: StockRouteOptions): Promise<(req: Request) => Promise<Response>> {
  const signer = await createKeyPairSignerFromBytes(new Uint8Array([...opts.keypair.seed, ...opts.keypair.publicKey]));
  const facilitator = new x402Facilitator();
  facilitator.register(
    [opts.caip2] as never,
    new ExactSvmFacilitatorScheme(
      toFacilitatorSvmSigner(signer, { [opts.caip2]: createSolanaRpc(opts.rpcUrl) } as never),
    ),
  );
  const client: FacilitatorClient = {
    verify: (payload, requirements) => facilitator.verify(payload, requirements),
    settle: (payload, requirements) => facilitator.settle(payload, requirements),
    getSupported: async () => facilitator.getSupported() as Awaited<ReturnType<FacilitatorClient["getSupported"]>>,
  };
  const resourceServer = new x402ResourceServer(client);
  resourceServer.register(opts.caip2 as never, new ExactSvmServerScheme({ rpcUrl: opts.rpcUrl }));
  const http = new x402HTTPResourceServer(resourceServer, {
    "POST /paid": {
      accepts: {
        scheme: "exact",
        network: opts.caip2 as never,
        payTo: opts.payTo ?? signer.address,
        price: { amount: opts.amountUnits.toString(), asset: opts.usdcMint },
        maxTimeoutSeconds: 120,
      },
      description: "stock x402 baseline",
    },
  });
  await http.initialize();

  return async (req) => {
    const url = new URL(req.url);
    const adapter = {
      getHeader: (name: string) => req.headers.get(name) ?? undefined,
      getMethod: () => req.method,
      getPath: () => url.pathname,
      getUrl: () => req.url,
      getAcceptHeader: () => req.headers.get("accept") ?? "",
      getUserAgent: () => req.headers.get("user-agent") ?? "",
    };
    const paymentHeader = req.headers.get("payment-signature") ?? req.headers.get("x-payment") ?? undefined;
    const result = await http.processHTTPRequest({
      adapter,
      path: url.pathname,
      method: req.method,
      ...(paymentHeader ? { paymentHeader } : {}),
    });
    if (result.type === "payment-error") {
      const { status, headers, body } = result.response;
      return new Response(typeof body === "string" ? body : JSON.stringify(body ?? {}), { status, headers });
    }
    if (result.type === "no-payment-required") return new Response("free", { status: 200 });
    const answer = JSON.stringify({ ok: true });
    const settled = await http.processSettlement(result.paymentPayload, result.paymentRequirements);
    if (!settled.success) return new Response(JSON.stringify({ error: settled.errorReason }), { status: 402 });
    return new Response(answer, { status: 200, headers: { "content-type": "application/json", ...settled.headers } });
  };
}
