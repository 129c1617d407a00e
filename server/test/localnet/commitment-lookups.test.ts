// Every lookup that decides whether a Solana payment happened asks for `confirmed` or stronger: against the local chain
// at real timing, a transaction that is only `processed` is not found at `confirmed`, and neither the receipt
// verifier, the reconcile's inflows nor the settlement recovery accepts it until it is confirmed. The chain's clock is
// the test's: the slot passes when the test moves it, so every look happens in the slot it is meant for.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PaymentPayload } from "@x402/core/types";
import { startLocalnet, type Localnet } from "../../../devtools/localnet";
import { createBackoffSolanaRpc } from "../../facilitator/rpc-backoff";
import type { Facilitator } from "../../facilitator/create-facilitator";
import { solanaInflows } from "../../chain/chain-inflows";
import { checkSolanaPayment } from "../../verify/check-solana-payment";
import { SHIPPED_NETWORKS } from "../../verify/network-registry";
import { findLandedSettlement } from "../../x402/find-landed-settlement";
import { manualClock } from "../support/manual-clock";
import { newSigner, signedTransfer, solanaRpc } from "../support/solana-rpc";

const SLOT_MS = 400;
const clock = manualClock();

let net: Localnet;
beforeAll(async () => {
  net = await startLocalnet({ profile: "devnet", port: 0, dataDir: null, timing: "real", slotMs: SLOT_MS, clock });
});
afterAll(async () => net?.close());

describe("on-chain lookups at real timing", () => {
  it("do not accept a transaction that is only processed, and accept it once confirmed", async () => {
    // The fee payer plays the facilitator: the settlement's id is its signature, as findLandedSettlement expects.
    const feePayer = await newSigner();
    const payTo = await newSigner();
    await net.fundAccount(feePayer.address, { usdcUnits: 5_000_000n, lamports: 1_000_000_000n });
    await net.fundAccount(payTo.address, {});
    const blockhash = (await solanaRpc(net.url, "getLatestBlockhash", [{ commitment: "confirmed" }])).result.value;
    const tx = await signedTransfer(net.usdcMint, feePayer, payTo.address, 4_000n, blockhash);
    const rpc = createBackoffSolanaRpc(net.url, { network: net.caip2 });
    const facilitator = {
      networks: SHIPPED_NETWORKS,
      signer: feePayer,
      address: feePayer.address,
      rpcs: { "solana-devnet": rpc },
    } as unknown as Facilitator;
    const payload = { x402Version: 2, payload: { transaction: tx.wire } } as unknown as PaymentPayload;
    const check = () =>
      checkSolanaPayment(
        {
          txSignature: tx.signature,
          payTo: payTo.address,
          agentPubkey: feePayer.address,
          usdcMint: net.usdcMint,
          amountUnits: 4_000n,
          rpcUrl: net.url,
        },
        { fetch },
      );

    expect((await solanaRpc(net.url, "sendTransaction", [tx.wire, { encoding: "base64" }])).result).toBe(tx.signature);
    const status = (await solanaRpc(net.url, "getSignatureStatuses", [[tx.signature]])).result.value[0];
    expect(status).toMatchObject({ confirmationStatus: "processed", err: null });
    expect(
      (
        await solanaRpc(net.url, "getTransaction", [
          tx.signature,
          { encoding: "json", commitment: "confirmed", maxSupportedTransactionVersion: 0 },
        ])
      ).result,
    ).toBeNull();

    expect(await check()).toMatchObject({
      payment_on_chain_ok: false,
      reasons: { payment_on_chain_ok: expect.stringContaining("not found at confirmed") },
    });
    expect(await solanaInflows(rpc, payTo.address, net.usdcMint, null)).toEqual([]);
    await expect(findLandedSettlement(facilitator, "solana-devnet", payload)).rejects.toThrow(/not yet confirmed/);
    // Still within the slot: what was seen above was the processed state, not a race with confirmation.
    expect(
      (await solanaRpc(net.url, "getSignatureStatuses", [[tx.signature]])).result.value[0].confirmationStatus,
    ).toBe("processed");

    clock.advance(SLOT_MS);
    expect(
      (await solanaRpc(net.url, "getSignatureStatuses", [[tx.signature]])).result.value[0].confirmationStatus,
    ).toBe("confirmed");
    expect(await check()).toMatchObject({ payment_on_chain_ok: true, payer_matches: true });
    expect((await solanaInflows(rpc, payTo.address, net.usdcMint, null)).map((i) => [i.transaction, i.units])).toEqual([
      [tx.signature, 4_000n],
    ]);
    expect(await findLandedSettlement(facilitator, "solana-devnet", payload)).toEqual({
      state: "landed",
      transaction: tx.signature,
    });
  });
});
