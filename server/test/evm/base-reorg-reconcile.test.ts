// A served Base payment whose transaction a reorg takes away: reconcile names it payment_reorged (and the CLI would
// exit 1), the served call and its payment row stand, the authorization is unspent again on chain while the same
// request with the same payment header gets only the stored answer (never a second call, nothing relayed again), and
// once the same transaction is re-included the drift is gone.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodePaymentResponseHeader } from "@x402/core/http";
import { eip3009ABI } from "@x402/evm";
import { createPublicClient, http as http_, type Hex } from "viem";
import { reconcile } from "../../reconcile/reconcile";
import { findReorgedPayments } from "../../chain/evm-reorgs";
import { routeRuntime } from "../../runtime/route-edge";
import { authorizationHeader } from "../support/eip3009-header";
import { challengeOf, startPaidStack, type PaidStack } from "../support/paid-stack";

let stack: PaidStack;
beforeAll(async () => {
  stack = await startPaidStack({ evm: true, env: { X402_FLAT_PRICE_USDC: "0.001" } });
});
afterAll(async () => stack?.close());

const body = {
  model: "local/echo-1",
  network: "base-sepolia",
  messages: [{ role: "user", content: "pay me, then lose the block" }],
};

async function baseReport() {
  const reports = await reconcile(await routeRuntime(), { networks: ["base-sepolia"] });
  return reports[0]!;
}

async function anvil(method: string, params: unknown[]): Promise<unknown> {
  const res = await fetch(stack.baseSepolia!.faultFreeUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  const answer = (await res.json()) as { result?: unknown; error?: { message: string } };
  if (answer.error) throw new Error(`${method}: ${answer.error.message}`);
  return answer.result;
}

describe("reconcile after a Base reorg", () => {
  it("names a served payment whose transaction was reorged away, and clears it once the transaction is re-included", async () => {
    const agent = await stack.newEvmAgent();
    const header = await authorizationHeader(agent, await challengeOf(await stack.chat({ body })));
    const served = await stack.chat({ body, headers: { "PAYMENT-SIGNATURE": header } });
    expect(served.status).toBe(200);
    const servedId = ((await served.json()) as { id: string }).id;
    const tx = decodePaymentResponseHeader(served.headers.get("payment-response")!).transaction.toLowerCase() as Hex;
    expect((await baseReport()).mismatches).toEqual([]);

    const client = createPublicClient({ transport: http_(stack.baseSepolia!.faultFreeUrl) });
    const receipt = await client.getTransactionReceipt({ hash: tx });
    const raw = (await anvil("eth_getRawTransactionByHash", [tx])) as Hex;
    // The chain holds still while the reorg is made: a block mined between reading the head and the reorg would leave
    // the settlement's block out of the blocks replaced.
    await anvil("evm_setIntervalMining", [0]);
    const head = await client.getBlockNumber({ cacheTime: 0 });
    // Replace every block from the settlement's up with empty ones: the chain is as long, without the transaction.
    await anvil("anvil_reorg", [Number(head - receipt.blockNumber + 1n), []]);
    expect(await client.getBlockNumber({ cacheTime: 0 })).toBe(head);
    expect((await client.getBlock({ blockNumber: receipt.blockNumber })).hash).not.toBe(receipt.blockHash);
    // Blocks again (anvil's interval takes whole seconds).
    await anvil("evm_setIntervalMining", [1]);

    const report = await baseReport();
    expect(report.mismatches).toEqual([
      expect.objectContaining({
        kind: "payment_reorged",
        transaction: tx,
        detail: expect.stringContaining("the chain no longer knows it"),
      }),
    ]);

    // What the service holds: the call was served and its receipt and payment stand; nothing undoes them.
    const payment = await stack.tdb.prisma.payment.findFirst({
      where: { txSignature: { equals: tx, mode: "insensitive" } },
    });
    expect(payment?.status).toBe("served");
    // anvil 1.7.1 does not put a reorged transaction back in its mempool: it is gone, and the authorization is unspent.
    expect(await anvil("txpool_status", [])).toEqual({ pending: "0x0", queued: "0x0" });
    const auth = JSON.parse(Buffer.from(header, "base64").toString()) as {
      payload: { authorization: { from: Hex; nonce: Hex } };
    };
    const usdc = stack.baseSepolia!.usdc;
    const used = () =>
      client.readContract({
        address: usdc,
        abi: eip3009ABI,
        functionName: "authorizationState",
        args: [auth.payload.authorization.from, auth.payload.authorization.nonce],
      });
    expect(await used()).toBe(false);
    // The same request with the same payment header gets the stored answer: it is not served twice, and nothing of the
    // payment is sent to the chain again.
    const payer = agent.address.toLowerCase();
    const moved = async () => ({
      ledger: await stack.tdb.prisma.ledgerEntry.count({ where: { agentPubkey: payer } }),
      calls: await stack.tdb.prisma.inferenceLog.count({ where: { agentPubkey: payer } }),
    });
    const before = await moved();
    const again = await stack.chat({ body, headers: { "PAYMENT-SIGNATURE": header } });
    expect(again.status).toBe(200);
    expect(again.headers.get("x-answer-replayed")).toBe("true");
    expect(((await again.json()) as { id: string }).id).toBe(servedId);
    expect(await moved()).toEqual({ ...before, calls: 1 });
    expect(await anvil("txpool_status", [])).toEqual({ pending: "0x0", queued: "0x0" });
    expect(await used()).toBe(false);

    // The signed transaction is valid until the authorization expires: sent again, it lands in a new block and stands.
    await anvil("eth_sendRawTransaction", [raw]);
    const reincluded = await client.waitForTransactionReceipt({ hash: tx, pollingInterval: 50 });
    expect(reincluded.status).toBe("success");
    expect(await used()).toBe(true);
    expect((await baseReport()).mismatches).toEqual([]);
  });
});

describe("findReorgedPayments()", () => {
  it("names a payment whose receipt (from a node behind a reorg) is in a block that is no longer canonical", async () => {
    const tx = `0x${"ab".repeat(32)}`;
    const canonical = `0x${"cd".repeat(32)}`;
    const orphaned = `0x${"ef".repeat(32)}`;
    // A node that still serves the old receipt, while its block at that height is the new one.
    const server = http.createServer((req, res) => {
      let text = "";
      req.on("data", (c: Buffer) => (text += c.toString()));
      req.on("end", () => {
        const { id, method } = JSON.parse(text) as { id: number; method: string };
        const result =
          method === "eth_getTransactionReceipt"
            ? {
                transactionHash: tx,
                blockHash: orphaned,
                blockNumber: "0x10",
                status: "0x1",
                logs: [],
                from: `0x${"11".repeat(20)}`,
                to: null,
                type: "0x2",
              }
            : method === "eth_getBlockByNumber"
              ? {
                  hash: canonical,
                  number: "0x10",
                  timestamp: "0x1",
                  transactions: [],
                  parentHash: `0x${"00".repeat(32)}`,
                }
              : null;
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", id, result }));
      });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    try {
      const client = createPublicClient({
        transport: http_(`http://127.0.0.1:${(server.address() as AddressInfo).port}`),
      });
      const found = await findReorgedPayments(client, [{ id: "p1", txSignature: tx, units: 1000n }]);
      expect(found).toEqual([
        { transaction: tx, detail: expect.stringContaining(`but the canonical block there is ${canonical}`) },
      ]);
    } finally {
      server.close();
    }
  });
});
