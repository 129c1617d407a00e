// The public explorer's server side: fetch a stored receipt by id or tx signature, and the RPC endpoints
// this service advertises per network. Verification itself runs in the browser with server/verify.
import "server-only";
import { z } from "zod";
import { advertisedRpcUrls } from "../../discovery/advertised-rpc-urls";
import { findReceipt } from "../../receipts/find-receipt";
import { publicProcedure, router } from "../init";

export const explorerRouter = router({
  /** The stored receipt as issued: the browser parses and verifies it, so the server vouches for nothing here. */
  receipt: publicProcedure
    .input(z.object({ id: z.string().min(1).max(128) }))
    .output(z.unknown())
    .query(({ ctx, input }) => findReceipt(ctx.db, input.id)),
  /** CAIP-2 network id → RPC URL. */
  rpcs: publicProcedure
    .output(z.record(z.string(), z.string()))
    .query(({ ctx }) => advertisedRpcUrls(ctx.runtime.config)),
});
