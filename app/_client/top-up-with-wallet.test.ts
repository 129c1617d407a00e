// topUpWithWallet() before anything is signed: the chain read (a real local HTTP JSON-RPC answering getAccountInfo)
// and the service's answers (a fetch double for /api/v1/credits) decide, and a wallet that must not be asked throws.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { AccountLayout, TOKEN_PROGRAM_ID } from "@solana/spl-token";
import { Keypair, PublicKey } from "@solana/web3.js";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { SOLANA_DEVNET_CAIP2, USDC_MINT_BY_SOLANA_CLUSTER } from "@/server/verify";
import { topUpWithWallet, type PayNetwork } from "./top-up-with-wallet";

const wallet = Keypair.generate().publicKey.toBase58();
let heldUnits: bigint | null = 50_000n;
let rpc: Server;
let network: PayNetwork;

beforeAll(async () => {
  rpc = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      const { id, method } = JSON.parse(body) as { id: number; method: string };
      if (method !== "getAccountInfo") throw new Error(`unexpected RPC ${method}`);
      res.setHeader("content-type", "application/json");
      res.end(
        JSON.stringify({
          jsonrpc: "2.0",
          id,
          result: { context: { slot: 1 }, value: heldUnits === null ? null : tokenAccount(heldUnits) },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => rpc.listen(0, "127.0.0.1", resolve));
  network = {
    caip2: SOLANA_DEVNET_CAIP2,
    name: "devnet",
    label: "Solana devnet",
    usdcAsset: USDC_MINT_BY_SOLANA_CLUSTER.devnet,
    rpcUrl: `http://127.0.0.1:${(rpc.address() as AddressInfo).port}`,
    enabled: true,
  };
});
afterAll(() => new Promise<void>((resolve) => rpc.close(() => resolve())));
afterEach(() => {
  vi.unstubAllGlobals();
  heldUnits = 50_000n;
});

function tokenAccount(amount: bigint) {
  const data = Buffer.alloc(AccountLayout.span);
  AccountLayout.encode(
    {
      mint: new PublicKey(USDC_MINT_BY_SOLANA_CLUSTER.devnet),
      owner: new PublicKey(wallet),
      amount,
      delegateOption: 0,
      delegate: PublicKey.default,
      state: 1,
      isNativeOption: 0,
      isNative: 0n,
      delegatedAmount: 0n,
      closeAuthorityOption: 0,
      closeAuthority: PublicKey.default,
    },
    data,
  );
  return {
    data: [data.toString("base64"), "base64"],
    executable: false,
    lamports: 2_039_280,
    owner: TOKEN_PROGRAM_ID.toBase58(),
    rentEpoch: 0,
    space: data.length,
  };
}

/** The service: a 402 carrying `accepts` in PAYMENT-REQUIRED, or another answer. Any other URL is a test bug. */
function serviceAnswers(answer: () => Response) {
  const calls: string[] = [];
  const original = fetch;
  vi.stubGlobal("fetch", (input: RequestInfo | URL, init?: RequestInit) => {
    const url = String(input);
    if (!url.startsWith("/api/v1/credits")) return original(input, init);
    calls.push(`${init?.method ?? "GET"} ${url}`);
    return Promise.resolve(answer());
  });
  return calls;
}

function challenge(overrides: Record<string, unknown>): Response {
  const paymentRequired = {
    x402Version: 2,
    resource: { url: "http://localhost/api/v1/credits", description: "credit", mimeType: "application/json" },
    accepts: [
      {
        scheme: "exact",
        network: SOLANA_DEVNET_CAIP2,
        amount: "10000",
        asset: USDC_MINT_BY_SOLANA_CLUSTER.devnet,
        payTo: wallet,
        maxTimeoutSeconds: 60,
        extra: { feePayer: wallet },
        ...overrides,
      },
    ],
  };
  const offered = paymentRequired.accepts[0]!;
  const v1 = {
    scheme: "exact",
    network: "solana-devnet",
    maxAmountRequired: offered.amount,
    resource: paymentRequired.resource.url,
    description: "credit",
    mimeType: "application/json",
    payTo: offered.payTo,
    maxTimeoutSeconds: 60,
    asset: offered.asset,
    extra: offered.extra,
  };
  const body = {
    message: "payment required",
    type: "payment_required_error",
    param: null,
    code: "payment_required",
    request_id: "req-402",
    x402Version: 1,
    accepts: [v1],
  };
  return new Response(JSON.stringify(body), {
    status: 402,
    headers: { "PAYMENT-REQUIRED": Buffer.from(JSON.stringify(paymentRequired)).toString("base64") },
  });
}

const neverSign = async (): Promise<never> => {
  throw new Error("the wallet must not be asked to sign");
};

const pay = (amountUsdc: string, extra: Partial<Parameters<typeof topUpWithWallet>[0]> = {}) =>
  topUpWithWallet({ wallet, signTransaction: neverSign, network, amountUsdc, ...extra });

describe("topUpWithWallet()", () => {
  it("does not ask the wallet when the challenge asks for more than the chosen amount", async () => {
    const calls = serviceAnswers(() => challenge({ amount: "20000" }));
    const outcome = await pay("0.01");
    expect(outcome).toMatchObject({ ok: false, code: "unexpected_challenge" });
    expect(calls).toEqual(["POST /api/v1/credits"]);
  });

  it("does not ask the wallet when the challenge names another token or network", async () => {
    serviceAnswers(() => challenge({ asset: USDC_MINT_BY_SOLANA_CLUSTER.mainnet }));
    expect(await pay("0.01")).toMatchObject({ ok: false, code: "unexpected_challenge" });
    serviceAnswers(() => challenge({ network: "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp" }));
    expect(await pay("0.01")).toMatchObject({ ok: false, code: "unexpected_challenge" });
  });

  it("says the wallet holds too little, from the chain, before asking the service anything", async () => {
    const calls = serviceAnswers(() => challenge({}));
    const outcome = await pay("0.06");
    expect(outcome).toMatchObject({ ok: false, code: "insufficient_usdc" });
    expect(outcome.ok === false && outcome.sentence).toContain(
      "holds 0.05 USDC on Solana devnet, less than the 0.06 USDC",
    );
    expect(calls).toEqual([]);
  });

  it("says there is no USDC account when the chain has none", async () => {
    heldUnits = null;
    const calls = serviceAnswers(() => challenge({}));
    expect(await pay("0.01")).toMatchObject({ ok: false, code: "no_usdc" });
    expect(calls).toEqual([]);
  });

  it("turns the kill switch's 503 into the wrong network, in words", async () => {
    serviceAnswers(() =>
      Response.json(
        {
          error: {
            message: "mainnet is disabled by the operator",
            type: "server_error",
            param: null,
            code: "mainnet_disabled",
          },
          request_id: "req-503",
        },
        { status: 503 },
      ),
    );
    const outcome = await pay("0.01");
    expect(outcome).toMatchObject({ ok: false, code: "wrong_network" });
    expect(outcome.ok === false && outcome.sentence).toContain("switched off on this service");
  });

  it("refuses a network the wallet does not list, and a disabled one, without reading anything", async () => {
    const calls = serviceAnswers(() => challenge({}));
    expect(await pay("0.01", { walletChains: ["solana:mainnet"] })).toMatchObject({ ok: false, code: "wrong_network" });
    expect(await pay("0.01", { network: { ...network, enabled: false } })).toMatchObject({
      ok: false,
      code: "wrong_network",
    });
    expect(calls).toEqual([]);
  });

  it("rejects malformed input: an amount that is not a USDC amount", async () => {
    const calls = serviceAnswers(() => challenge({}));
    for (const amount of ["abc", "0", "0.0000001", "-1", ""])
      expect(await pay(amount)).toMatchObject({ ok: false, code: "invalid_amount" });
    expect(calls).toEqual([]);
  });
});
