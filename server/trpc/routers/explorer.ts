// The public explorer's server side (issue #5): fetch a stored receipt by id or tx signature, and the RPC endpoints
// this service advertises per network. Verification itself runs in the browser with server/verify.
import { z } from "zod";
import { config } from "../../env";
import { NETWORKS } from "../../chain/networks";
import { findReceipt } from "../../receipts/find-receipt";
import { publicAppProcedure, router } from "../init";

export const explorerRouter = router({
  receipt: publicAppProcedure.input(z.object({ id: z.string().min(1).max(128) })).query(({ ctx, input }) => findReceipt(ctx.db, input.id)),
  rpcs: publicAppProcedure.query(() => {
    const { solanaRpcUrl, evmRpcUrl, isProduction, EXPLORER_ADVERTISE_RPC } = config();
    const out: Record<string, string> = {};
    // SECURITY: production RPC URLs often embed a provider API key; publishing them takes the operator's say-so.
    if (!(EXPLORER_ADVERTISE_RPC ?? !isProduction)) return out;
    if (solanaRpcUrl.devnet) out[NETWORKS["solana-devnet"].caip2] = solanaRpcUrl.devnet;
    if (solanaRpcUrl.mainnet) out[NETWORKS["solana-mainnet"].caip2] = solanaRpcUrl.mainnet;
    if (evmRpcUrl.baseSepolia) out[NETWORKS["base-sepolia"].caip2] = evmRpcUrl.baseSepolia;
    if (evmRpcUrl.base) out[NETWORKS.base.caip2] = evmRpcUrl.base;
    return out;
  }),
});
