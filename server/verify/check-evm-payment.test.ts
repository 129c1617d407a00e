import { describe, expect, it } from "vitest";
import { generateKeypair } from "../keys/parse-secret-key";
import { buildReceipt } from "../receipts/build-receipt";
import { signReceipt } from "../receipts/sign-receipt";
import type { FetchLike } from "./json-rpc";
import { ERC20_TRANSFER_TOPIC } from "./check-evm-payment";
import { BASE_SEPOLIA_CAIP2, USDC_CONTRACT_BY_EVM_NETWORK } from "./networks";
import { verifyReceipt } from "./create-verifier";

const operator = generateKeypair();
const AGENT = "0x5b38da6a701c568545dcfcb03fcb875f56beddc4";
const PAY_TO = "0x70997970c51812dc3a010c7d01b50e0d17dc79c8";
const RELAYER = "0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc";
const TX_HASH = `0x${"ab".repeat(32)}`;
const USDC = USDC_CONTRACT_BY_EVM_NETWORK[BASE_SEPOLIA_CAIP2]!;
const messages = [{ role: "user", content: "hi" }];

function receipt(agent = AGENT) {
  return signReceipt(
    buildReceipt({
      agentPubkey: agent,
      upstream: "local",
      model: "local/echo-1",
      costUnits: 9n,
      prompt: { messages },
      responseText: "Hello!",
      timestampMs: 1_763_000_000_000,
      inferenceId: "3b0c8a5e-2f4e-4a43-9d0e-0a4c2c6f9f11",
      pointsTotal: 1,
      payment: { amountUnits: 1_000n, txSignature: TX_HASH, network: BASE_SEPOLIA_CAIP2, payTo: PAY_TO },
    }),
    operator,
  );
}

const topic = (address: string) => `0x${"0".repeat(24)}${address.slice(2)}`;
const word = (value: bigint) => `0x${value.toString(16).padStart(64, "0")}`;

interface TxShape {
  status?: string;
  contract?: string;
  from?: string;
  to?: string;
  value?: bigint;
}

/** A node answering eth_getTransactionReceipt the way anvil and Base nodes do; any other method is a test bug. */
function node(tx: TxShape | null): FetchLike {
  return async (_url, init) => {
    const body = JSON.parse(String(init?.body)) as { method: string; params: unknown[] };
    if (body.method !== "eth_getTransactionReceipt") throw new Error(`unexpected RPC method ${body.method}`);
    expect(body.params).toEqual([TX_HASH]);
    const result =
      tx === null
        ? null
        : {
            transactionHash: TX_HASH,
            blockNumber: "0x1b",
            from: RELAYER,
            to: (tx.contract ?? USDC).toLowerCase(),
            status: tx.status ?? "0x1",
            logs: [
              {
                address: (tx.contract ?? USDC).toLowerCase(),
                topics: [ERC20_TRANSFER_TOPIC, topic(tx.from ?? AGENT), topic(tx.to ?? PAY_TO)],
                data: word(tx.value ?? 1_000n),
                removed: false,
              },
            ],
          };
    return Response.json({ jsonrpc: "2.0", id: 1, result });
  };
}

const verify = (fetch: FetchLike, agent?: string) =>
  verifyReceipt({
    receipt: receipt(agent),
    prompt: messages,
    response: "Hello!",
    operatorKey: operator.publicKeyBase58,
    rpc: "http://rpc.invalid",
    fetch,
  });

describe("EVM on-chain checks", () => {
  it("pass for a USDC Transfer of exactly the amount from the agent to pay_to, ignoring tx.from (the relayer)", async () => {
    const result = await verify(node({}));
    expect(result.checks).toEqual({
      prompt_hash_ok: true,
      response_hash_ok: true,
      service_signature_ok: true,
      payment_on_chain_ok: true,
      payer_matches: true,
    });
    expect(result.reasons.payment_on_chain_ok).toContain("transfer of 0.001 USDC to");
    expect(result.reasons.payment_on_chain_ok).toContain("in block 27");
  });

  it("compare addresses without regard to checksum case", async () => {
    const checksummed = "0x5B38Da6a701c568545dCfcB03FcB875f56beddC4";
    expect((await verify(node({}), checksummed)).checks.payer_matches).toBe(true);
  });

  it("are false for a transfer of a different token", async () => {
    const result = await verify(node({ contract: "0x1111111111111111111111111111111111111111" }));
    expect(result.checks.payment_on_chain_ok).toBe(false);
    expect(result.checks.payer_matches).toBe(false);
  });

  it.each([
    ["another amount", { value: 999n }],
    ["another recipient", { to: RELAYER }],
    ["a reverted transaction", { status: "0x0" }],
  ])("are false for %s", async (_label, shape) => {
    const result = await verify(node(shape));
    expect(result.checks.payment_on_chain_ok).toBe(false);
    expect(result.ok).toBe(false);
  });

  it("fail payer_matches when the money came from someone else", async () => {
    const result = await verify(node({ from: RELAYER }));
    expect(result.checks.payment_on_chain_ok).toBe(true);
    expect(result.checks.payer_matches).toBe(false);
    expect(result.reasons.payer_matches).toContain(`came from ${RELAYER}`);
  });

  it("are false for a transaction the node does not know", async () => {
    const result = await verify(node(null));
    expect(result.checks.payment_on_chain_ok).toBe(false);
    expect(result.reasons.payment_on_chain_ok).toContain("not found");
  });

  it("refuse a Solana-style signature on an EVM network without calling the node", async () => {
    const unsigned = receipt();
    const bad = { ...unsigned, payment: { ...unsigned.payment!, tx_signature: "5gMv" } };
    const result = await verifyReceipt({
      receipt: bad,
      prompt: messages,
      response: "Hello!",
      operatorKey: operator.publicKeyBase58,
      rpc: "http://rpc.invalid",
      fetch: () => {
        throw new Error("fetch must not be called");
      },
    });
    expect(result.checks.payment_on_chain_ok).toBe(false);
    expect(result.checks.service_signature_ok).toBe(false);
  });
});
