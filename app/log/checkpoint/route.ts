import { db } from "@/server/db";
import { AppError } from "@/server/errors";
import { corsPreflight, withCors } from "@/server/http/cors";
import { handleRoute } from "@/server/http/handle-route";
import { readCheckpoint } from "@/server/transparency/read-log";

export const dynamic = "force-dynamic";

/** The latest signed checkpoint (C2SP tlog-checkpoint), with its witness cosignatures. Mutable: cached a few seconds. */
export const GET = withCors(
  ["GET"],
  handleRoute(async () => {
    const checkpoint = await readCheckpoint(await db());
    if (!checkpoint) throw new AppError("not_found", "the log has no checkpoint yet");
    return new Response(checkpoint.note, { headers: { "content-type": "text/plain; charset=utf-8", "cache-control": "public, max-age=2" } });
  }),
);

export const OPTIONS = corsPreflight(["GET"]);
