// Chain RPC clients against a real local HTTP server that rate-limits: Retry-After is honoured by every request of the
// process (the per-URL gate), 503s and timeouts are retried within bounds, and a JSON-RPC error is never retried.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isSolanaError, SOLANA_ERROR__RPC__TRANSPORT_HTTP_ERROR } from "@solana/kit";
import { createPublicClient } from "viem";
import { toFacilitatorSvmSigner } from "@x402/svm";
import {
  createBackoffHttpTransport,
  createBackoffSolanaRpc,
  RpcUnavailableError,
  type RpcBackoffOptions,
} from "../../facilitator/rpc-backoff";
import { markChainUnavailable } from "../../facilitator/chain-unavailable";
import { CHAIN_UNAVAILABLE } from "../../facilitator/chain-unavailable";
import { createMetrics } from "../../metrics/registry";
import { createEvmRelaySigner } from "../../facilitator/create-evm-facilitator";
import { defineChain } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { systemClock } from "../../clock";

type Answer = { status: number; headers?: Record<string, string>; body?: unknown } | "hang";
interface Hit {
  at: number;
  method: string;
}

/** A JSON-RPC server that answers each request with the next scripted answer, then with `fallback`. */
async function scriptedRpc(
  script: Answer[],
  fallback: Answer = { status: 200 },
): Promise<{ url: string; hits: Hit[]; close(): Promise<void> }> {
  const hits: Hit[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = JSON.parse(Buffer.concat(chunks).toString()) as { id: number; method: string };
      hits.push({ at: Date.now(), method: body.method });
      const answer = script.shift() ?? fallback;
      if (answer === "hang") return;
      const payload =
        answer.body ??
        (answer.status === 200
          ? { jsonrpc: "2.0", id: body.id, result: body.method === "eth_chainId" ? "0x7a69" : 42 }
          : { error: "busy" });
      res
        .writeHead(answer.status, { "content-type": "application/json", ...answer.headers })
        .end(JSON.stringify(payload));
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    hits,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

const servers: { close(): Promise<void> }[] = [];
async function rpcServer(script: Answer[], fallback?: Answer) {
  const s = await scriptedRpc(script, fallback);
  servers.push(s);
  return s;
}
/** Gates that tell when one closes: a test waits for the 429's gate, not for a guess at how long its answer takes. */
class ObservedGates extends Map<string, number> {
  private waiting: (() => void)[] = [];
  override set(url: string, until: number): this {
    super.set(url, until);
    for (const resolve of this.waiting.splice(0)) resolve();
    return this;
  }
  /** Resolves once any gate has been closed (at once if one already is). */
  closed(): Promise<void> {
    return this.size > 0 ? Promise.resolve() : new Promise((resolve) => this.waiting.push(resolve));
  }
}

// Each test's clients share one set of gates and one registry, as a runtime's do.
const metrics = createMetrics(systemClock);
let gates: ObservedGates;
beforeEach(() => {
  gates = new ObservedGates();
  FAST.gates = gates;
});
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

// Short backoff; an attempt's and a request's time limits far past what a local answer takes on a busy machine (a test
// of a limit sets its own).
const FAST: RpcBackoffOptions = {
  metrics,
  network: "test:backoff",
  baseDelayMs: 20,
  capDelayMs: 100,
  attemptTimeoutMs: 10_000,
  maxAttempts: 4,
  maxTotalMs: 30_000,
};
const TOO_MANY = { status: 429, headers: { "retry-after": "1" } };

async function retries(reason: string): Promise<number> {
  const metric = await metrics.rpcRetries.get();
  return metric.values
    .filter((v) => v.labels.network === FAST.network && v.labels.reason === reason)
    .reduce((a, v) => a + v.value, 0);
}

describe("createBackoffSolanaRpc()", () => {
  it("waits at least Retry-After after a 429, then succeeds, and counts the retry", async () => {
    const server = await rpcServer([TOO_MANY]);
    const before = await retries("rate_limited");
    const started = Date.now();
    const slot = await createBackoffSolanaRpc(server.url, FAST).getSlot().send();
    expect(slot).toBe(42n);
    expect(server.hits).toHaveLength(2);
    expect(server.hits[1]!.at - server.hits[0]!.at).toBeGreaterThanOrEqual(1_000);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_000);
    expect(await retries("rate_limited")).toBe(before + 1);
  });

  it("holds every other request of the process to that RPC until Retry-After has passed", async () => {
    const server = await rpcServer([TOO_MANY]);
    // Two clients of one URL (the facilitator's and the reconcile's, say) share the gate.
    const first = createBackoffSolanaRpc(server.url, FAST);
    const second = createBackoffSolanaRpc(server.url, FAST);
    const limited = first.getSlot().send();
    await gates.closed();
    const during = await Promise.all([second.getSlot().send(), second.getBlockHeight().send(), first.getSlot().send()]);
    expect(await limited).toBe(42n);
    expect(during).toEqual([42n, 42n, 42n]);
    const rateLimitedAt = server.hits[0]!.at;
    expect(server.hits).toHaveLength(5);
    for (const hit of server.hits.slice(1)) expect(hit.at - rateLimitedAt).toBeGreaterThanOrEqual(1_000);
  });

  it("counts a request in flight from its first send until its last retry is answered, on its network", async () => {
    const server = await rpcServer([{ status: 503 }]);
    const inFlight = async () =>
      (await metrics.rpcInFlight.get()).values.find((v) => v.labels.network === FAST.network)?.value ?? 0;
    const before = await inFlight();
    const request = createBackoffSolanaRpc(server.url, FAST).getSlot().send();
    expect(await inFlight()).toBe(before + 1);
    expect(await request).toBe(42n);
    expect(server.hits).toHaveLength(2);
    expect(await inFlight()).toBe(before);
  });

  it("retries 503 with backoff and succeeds", async () => {
    const server = await rpcServer([{ status: 503 }, { status: 503 }]);
    const before = await retries("unavailable");
    expect(await createBackoffSolanaRpc(server.url, FAST).getSlot().send()).toBe(42n);
    expect(server.hits).toHaveLength(3);
    expect(await retries("unavailable")).toBe(before + 2);
  });

  it("retries a request that times out", async () => {
    const server = await rpcServer(["hang"]);
    // The cut's timing is the unit test's (rpc-backoff-timing.test.ts); here, that kit's transport is cut and retried.
    expect(
      await createBackoffSolanaRpc(server.url, { ...FAST, attemptTimeoutMs: 2_000 })
        .getSlot()
        .send(),
    ).toBe(42n);
    expect(server.hits).toHaveLength(2);
  });

  it("gives up after the bounded attempts with a chain_unavailable error, which a simulation reports as the chain's failure", async () => {
    const server = await rpcServer([], { status: 503 });
    const rpc = createBackoffSolanaRpc(server.url, FAST);
    const err = await rpc
      .getSlot()
      .send()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RpcUnavailableError);
    expect((err as Error).message.startsWith(CHAIN_UNAVAILABLE)).toBe(true);
    expect(server.hits).toHaveLength(FAST.maxAttempts!);
    // The facilitator's simulation over this RPC: never "Simulation failed" (an invalid payment), always the chain's outage.
    const signer = markChainUnavailable(
      toFacilitatorSvmSigner(
        { address: "11111111111111111111111111111111" } as never,
        { "test:backoff": rpc } as never,
      ),
    );
    const sim = await signer.simulateTransaction("AQ==", "test:backoff" as never).catch((e: unknown) => e);
    expect((sim as Error).message.startsWith(`${CHAIN_UNAVAILABLE}:`)).toBe(true);
  });

  it("gives up when Retry-After reaches past the total time budget instead of waiting it out", async () => {
    const server = await rpcServer([{ status: 429, headers: { "retry-after": "5" } }]);
    const started = Date.now();
    const err = await createBackoffSolanaRpc(server.url, { ...FAST, maxTotalMs: 1_000 })
      .getSlot()
      .send()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RpcUnavailableError);
    expect((err as RpcUnavailableError).reason).toBe("rate_limited");
    // Not waited out (that takes 5 s); that it waits for nothing at all is rpc-backoff-timing.test.ts's moved clock.
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(server.hits).toHaveLength(1);
  });

  it("never retries a JSON-RPC error answer (the chain refusing something) nor another HTTP status", async () => {
    const refused = {
      status: 200,
      body: {
        jsonrpc: "2.0",
        id: 1,
        error: {
          code: -32002,
          message: "Transaction simulation failed: Blockhash not found",
          data: { err: "BlockhashNotFound", logs: [], accounts: null, unitsConsumed: 0 },
        },
      },
    };
    const server = await rpcServer([refused, { status: 400, body: { error: "bad request" } }]);
    const rpc = createBackoffSolanaRpc(server.url, FAST);
    const err = await rpc
      .getSlot()
      .send()
      .catch((e: unknown) => e);
    expect(isSolanaError(err)).toBe(true);
    expect(err).not.toBeInstanceOf(RpcUnavailableError);
    expect(server.hits).toHaveLength(1);
    const http400 = await rpc
      .getSlot()
      .send()
      .catch((e: unknown) => e);
    expect(isSolanaError(http400, SOLANA_ERROR__RPC__TRANSPORT_HTTP_ERROR)).toBe(true);
    expect(server.hits).toHaveLength(2);
  });
});

describe("createBackoffHttpTransport()", () => {
  const client = (url: string, opts: RpcBackoffOptions = FAST) =>
    createPublicClient({ transport: createBackoffHttpTransport(url, opts) });

  it("waits at least Retry-After after a 429 and shares the gate with the Solana clients of the same URL", async () => {
    const server = await rpcServer([TOO_MANY]);
    const limited = client(server.url).getChainId();
    await gates.closed();
    const other = createBackoffSolanaRpc(server.url, FAST).getSlot().send();
    expect(await limited).toBe(31337);
    expect(await other).toBe(42n);
    for (const hit of server.hits.slice(1)) expect(hit.at - server.hits[0]!.at).toBeGreaterThanOrEqual(1_000);
  });

  it("retries 503, gives up after the bounded attempts, and never retries a JSON-RPC error", async () => {
    const server = await rpcServer([{ status: 503 }]);
    expect(await client(server.url).getChainId()).toBe(31337);
    expect(server.hits).toHaveLength(2);

    const down = await rpcServer([], { status: 503 });
    const err = await client(down.url)
      .getChainId()
      .catch((e: unknown) => e);
    expect(String((err as Error & { cause?: Error }).cause?.message ?? err)).toContain(CHAIN_UNAVAILABLE);
    expect(down.hits).toHaveLength(FAST.maxAttempts!);

    const refusing = await rpcServer([], {
      status: 200,
      body: { jsonrpc: "2.0", id: 0, error: { code: -32000, message: "nonce too low" } },
    });
    const refusal = await client(refusing.url)
      .getChainId()
      .catch((e: unknown) => e);
    expect(String(refusal)).toContain("nonce too low");
    expect(refusing.hits).toHaveLength(1);
  });

  it("makes the relayer's reads fail as chain_unavailable when the RPC cannot be reached, never as a bad signature", async () => {
    const down = await rpcServer([], { status: 503 });
    const chain = defineChain({
      id: 84532,
      name: "down",
      nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
      rpcUrls: { default: { http: [down.url] } },
    });
    const mustNotLock = () => {
      throw new Error("nothing is sent, so the nonce lock must not be taken");
    };
    const signer = createEvmRelaySigner({
      account: privateKeyToAccount(generatePrivateKey()),
      chain,
      transport: createBackoffHttpTransport(down.url, FAST),
      nonceLock: mustNotLock,
    });
    const read = await signer
      .readContract({
        address: "0x036CbD53842c5426634e7929541eC2318f3dCF7e",
        abi: [
          { type: "function", name: "decimals", inputs: [], outputs: [{ type: "uint8" }], stateMutability: "view" },
        ],
        functionName: "decimals",
        args: [],
      })
      .catch((e: unknown) => e);
    expect(read).toBeInstanceOf(RpcUnavailableError);
    const typed = {
      domain: {},
      types: { M: [{ name: "a", type: "uint256" }] },
      primaryType: "M",
      message: { a: 1n },
    } as const;
    const verified = await signer
      .verifyTypedData({
        address: "0x0000000000000000000000000000000000000001",
        ...typed,
        signature: `0x${"11".repeat(65)}`,
      })
      .catch((e: unknown) => e);
    expect((verified as Error).message?.startsWith(`${CHAIN_UNAVAILABLE}:`)).toBe(true);
    // A payer's own EOA signature needs no RPC at all.
    const payer = privateKeyToAccount(generatePrivateKey());
    const hits = down.hits.length;
    expect(
      await signer.verifyTypedData({ address: payer.address, ...typed, signature: await payer.signTypedData(typed) }),
    ).toBe(true);
    expect(down.hits.length).toBe(hits);
  });
});
