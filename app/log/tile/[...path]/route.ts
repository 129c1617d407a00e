import { db } from "@/server/db";
import { AppError } from "@/server/errors";
import { corsPreflight, withCors } from "@/server/http/cors";
import { handleRoute } from "@/server/http/handle-route";
import { readEntryBundle, readHashTile } from "@/server/transparency/read-log";
import { parseTilePath, TILE_WIDTH } from "@/server/verify";

export const dynamic = "force-dynamic";

/** Hash tiles `/log/tile/<L>/<N>[.p/<W>]` and entry bundles `/log/tile/entries/<N>[.p/<W>]` (C2SP tlog-tiles). */
export const GET = withCors(
  ["GET"],
  handleRoute<{ params: Promise<{ path: string[] }> }>(async (_req, { params }) => {
    const tile = parseTilePath((await params).path);
    if (!tile) throw new AppError("not_found", "not a tile path: tile/<L>/<N>[.p/<W>] or tile/entries/<N>[.p/<W>]");
    const data = tile.level === "entries" ? await readEntryBundle(await db(), tile.index, tile.width) : await readHashTile(await db(), tile.level, tile.index, tile.width);
    if (!data) throw new AppError("not_found", "no such tile in the published tree");
    // A full tile never changes; a partial one never changes either, but is superseded by its full tile: kept short.
    const cache = tile.width === TILE_WIDTH ? "public, max-age=31536000, immutable" : "public, max-age=10";
    return new Response(Buffer.from(data), { headers: { "content-type": "application/octet-stream", "cache-control": cache } });
  }),
);

export const OPTIONS = corsPreflight(["GET"]);
