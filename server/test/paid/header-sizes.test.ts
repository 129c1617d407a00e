// Every answer of a paid route fits the head a default reverse proxy reads: nginx takes an answer's status line and
// headers in one memory page (proxy_buffer_size, 4 KB on x86-64) and answers 502 when they do not fit, and takes each
// request header line in 8 KB (large_client_header_buffers), where a stock client's payment echoes the challenge's
// extensions. What the routes write must leave room for what the front server and Next add (the date, the connection,
// the framing policy, the request id), so it stays under ROUTE_HEAD_BUDGET_BYTES. The sizes are printed: docs/deploy.md
// quotes them.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POST as topUpRoute } from "@/app/api/v1/credits/route";
import { generateKeypair } from "../../keys/parse-secret-key";
import { authorizationHeader } from "../support/eip3009-header";
import { buildPaymentHeader, challengeOf, startPaidStack, type PaidStack } from "../support/paid-stack";
import { paidBody, routeFetch, ROUTE_PATHS, SERVICE_ORIGIN } from "../support/route-calls";

/** nginx's default proxy_buffer_size on x86-64: the whole head of an answer. */
const PROXY_HEAD_BYTES = 4096;
/**
 * What the servers in front of a route add to its head: the status line, Date, Connection, Keep-Alive, the transfer
 * encoding and the framing policy (about 220 bytes on the direct routes, 330 through Next), and room for an operator's
 * longer domain, which each challenge names four times.
 */
const ADDED_HEAD_BYTES = 500;
const ROUTE_HEAD_BUDGET_BYTES = PROXY_HEAD_BYTES - ADDED_HEAD_BYTES;
/** nginx's default large_client_header_buffers: 8 KB per request header line. */
const REQUEST_HEADER_LINE_BYTES = 8192;

let stack: PaidStack;
beforeAll(async () => {
  stack = await startPaidStack({
    evm: true,
    mainnet: true,
    env: {
      X402_FLAT_PRICE_USDC: "0.001",
      SERVICE_MAINNET_ENABLED: "true",
      SERVICE_MAINNET_DEPOSIT_ADDRESS: generateKeypair().publicKeyBase58,
      LOCAL_MODEL_STREAM_DELAY_MS: "0",
    },
  });
});
afterAll(async () => stack?.close());

const routes = routeFetch();
/** Bytes of a head's header lines as HTTP/1.1 writes them (`name: value\r\n`). */
const headBytes = (headers: Headers) =>
  [...headers.entries()].reduce((n, [name, value]) => n + name.length + 2 + Buffer.byteLength(value) + 2, 0);
const sizes: string[] = [];
function fits(label: string, headers: Headers): void {
  const bytes = headBytes(headers);
  const largest = [...headers.entries()].sort((a, b) => b[1].length - a[1].length)[0]!;
  sizes.push(`${label}: ${bytes} B (largest ${largest[0]} ${largest[1].length} B)`);
  expect(bytes, label).toBeLessThanOrEqual(ROUTE_HEAD_BUDGET_BYTES);
}
const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  routes.fetch(`${SERVICE_ORIGIN}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });

describe("the heads of paid answers", () => {
  afterAll(() =>
    console.log(
      `head sizes (budget ${ROUTE_HEAD_BUDGET_BYTES} B of a proxy's ${PROXY_HEAD_BYTES}):\n  ${sizes.join("\n  ")}`,
    ),
  );

  for (const network of ["devnet", "mainnet", "base-sepolia"] as const) {
    for (const route of ["chat", "responses"] as const) {
      it(`fit a default proxy on ${network}, ${route}: the 402, the payment, the 200, its stream and its replay`, async () => {
        for (const stream of [false, true]) {
          const body = paidBody(route, `sizes ${network} ${route} ${stream}`, { stream, network });
          const challenge = await post(ROUTE_PATHS[route], body);
          expect(challenge.status).toBe(402);
          fits(`402 ${route} ${network}`, challenge.headers);
          const header =
            network === "base-sepolia"
              ? await authorizationHeader(await stack.newEvmAgent(), await challengeOf(challenge))
              : await buildPaymentHeader(
                  await stack.newAgent(1_000_000n, network === "mainnet" ? stack.mainnet! : stack.devnet),
                  await challengeOf(challenge),
                  network === "mainnet" ? stack.mainnet!.url : stack.devnet.url,
                );
          expect(header.length + "payment-signature: ".length, `payment header ${network}`).toBeLessThan(
            REQUEST_HEADER_LINE_BYTES,
          );
          sizes.push(`PAYMENT-SIGNATURE ${network}: ${header.length} B`);
          const paid = await post(ROUTE_PATHS[route], body, { "PAYMENT-SIGNATURE": header });
          expect(paid.status, await paid.clone().text()).toBe(200);
          fits(`200 ${route} ${network}${stream ? " stream" : ""}`, paid.headers);
          await paid.text();
          const replay = await post(ROUTE_PATHS[route], body, { "PAYMENT-SIGNATURE": header });
          expect(replay.headers.get("x-answer-replayed")).toBe("true");
          fits(`200 replayed ${route} ${network}${stream ? " stream" : ""}`, replay.headers);
          await replay.text();
        }
      });
    }
  }

  it("fit a default proxy for a top-up: the 402 and the 200", async () => {
    const topUp = (headers: Record<string, string> = {}) =>
      topUpRoute(
        new Request(`${SERVICE_ORIGIN}/api/v1/credits`, {
          method: "POST",
          headers: { "content-type": "application/json", ...headers },
          body: JSON.stringify({ amount_usdc: "0.01" }),
        }),
        {},
      );
    const challenge = await topUp();
    fits("402 top-up devnet", challenge.headers);
    const header = await buildPaymentHeader(await stack.newAgent(), await challengeOf(challenge), stack.devnet.url);
    const paid = await topUp({ "PAYMENT-SIGNATURE": header });
    expect(paid.status).toBe(200);
    fits("200 top-up devnet", paid.headers);
  });
});
