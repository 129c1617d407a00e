// agentcash's discovery (`@agentcash/discovery` 1.7.5, what its MCP `discover_api_endpoints` and `check_endpoint_schema`
// call), unchanged, against the service over real HTTP: it reads /openapi.json, finds every paid route as paid with its
// price from `x-payment-info` and the EVM payee's ownership proof, and its probe (a POST without a body) gets the 402
// challenge, from which it reads the networks that take payment. /.well-known/x402 leads with the crawlers' older
// form of the same facts (x402scan's: version, the resource URLs, instructions, ownership proofs).
import { checkEndpointSchema, discoverOriginSchema } from "@agentcash/discovery";
import { recoverMessageAddress } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PAID_ROUTE_REGISTRY, PAID_ROUTES } from "../../x402/paid-routes";
import { startHttpService, type HttpService } from "../support/http-service";
import { startPaidStack, type PaidStack } from "../support/paid-stack";

let stack: PaidStack;
let service: HttpService;
beforeAll(async () => {
  stack = await startPaidStack({ evm: true, env: { X402_FLAT_PRICE_USDC: "0.002" } });
  service = await startHttpService();
});
afterAll(async () => {
  await service?.close();
  await stack?.close();
});

describe("@agentcash/discovery against the service", () => {
  it("discovers every paid route from /openapi.json as paid, a call at the flat price in USD, a top-up priced by its body", async () => {
    const found = await discoverOriginSchema({ target: service.url });
    if (!found.found) throw new Error(`not found: ${found.cause} ${found.message ?? ""}`);
    const paid = found.endpoints.filter((e) => e.authMode === "paid");
    expect(paid.map((e) => `${e.method} ${e.path}`).sort()).toEqual(
      PAID_ROUTES.map((r) => `POST ${PAID_ROUTE_REGISTRY[r].path}`).sort(),
    );
    for (const endpoint of paid) {
      expect(endpoint.protocols, endpoint.path).toEqual(["x402"]);
      if (endpoint.path === PAID_ROUTE_REGISTRY.topup.path) expect(endpoint.pricingMode).toBe("dynamic");
      else expect(endpoint).toMatchObject({ pricingMode: "fixed", price: "0.002 USD", currency: "USD" });
    }
    // Free routes read as free: the models list, the verifier.
    expect(found.endpoints.find((e) => e.path === "/api/v1/models")?.authMode).not.toBe("paid");
  });

  it("reads an ownership proof: the EVM payee's signature of the service's origin, as x402scan checks it", async () => {
    const found = await discoverOriginSchema({ target: service.url });
    if (!found.found) throw new Error(`not found: ${found.cause}`);
    expect(found.trustTier).toBe("ownership_verified");
    expect(found.ownershipProofs).toHaveLength(1);
    const signer = await recoverMessageAddress({
      message: new URL(stack.config.baseUrl).origin,
      signature: found.ownershipProofs![0] as `0x${string}`,
    });
    expect(signer.toLowerCase()).toBe(stack.evmDeposit);
  });

  it("probes a paid route without a body and reads the price and the networks from its 402", async () => {
    const checked = await checkEndpointSchema({ url: `${service.url}/api/v1/chat/completions`, probe: true });
    if (!checked.found) throw new Error(`not found: ${checked.cause} ${checked.message ?? ""}`);
    const post = checked.advisories.find((a) => a.method === "POST");
    expect(post?.authMode).toBe("paid");
    const options = (post?.paymentOptions ?? []) as { network?: string; amount?: string; maxAmountRequired?: string }[];
    expect(options.map((o) => o.network)).toContain(stack.devnet.caip2);
    expect(options.some((o) => o.amount === "2000" || o.maxAmountRequired === "2000")).toBe(true);
  });

  it("reads /.well-known/x402 in the crawlers' form too: version 1, the paid URLs as strings, instructions, the proof", async () => {
    const doc = (await (await fetch(`${service.url}/.well-known/x402`)).json()) as {
      version: number;
      resources: unknown[];
      instructions: string;
      ownershipProofs: string[];
      paid_resources: { resource: string }[];
    };
    const urls = PAID_ROUTES.map((r) => `${stack.config.baseUrl}${PAID_ROUTE_REGISTRY[r].path}`);
    expect(doc.version).toBe(1);
    expect(doc.resources).toEqual(urls);
    expect(doc.instructions).toContain(`${stack.config.baseUrl}/openapi.json`);
    // The facts behind each URL stay, under their own key.
    expect(doc.paid_resources.map((r) => r.resource)).toEqual(urls);
    const signer = await recoverMessageAddress({
      message: new URL(stack.config.baseUrl).origin,
      signature: doc.ownershipProofs[0] as `0x${string}`,
    });
    expect(signer.toLowerCase()).toBe(stack.evmDeposit);
  });
});
