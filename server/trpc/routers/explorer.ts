// The public explorer's server side (issue #5): fetch a stored receipt by id or tx signature, and the RPC endpoints
// this service advertises per network. Verification itself runs in the browser with server/verify.
import "server-only";
import { z } from "zod";
import { advertisedRpcUrls } from "../../discovery/advertised-rpc-urls";
import { findReceipt } from "../../receipts/find-receipt";
import { publicAppProcedure, router } from "../init";

export const explorerRouter = router({
  receipt: publicAppProcedure.input(z.object({ id: z.string().min(1).max(128) })).query(({ ctx, input }) => findReceipt(ctx.db, input.id)),
  rpcs: publicAppProcedure.query(() => advertisedRpcUrls()),
});
