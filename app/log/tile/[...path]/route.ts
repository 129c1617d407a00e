import { routeRuntime } from "@/server/runtime/route-edge";
import { AppError } from "@/server/errors";
import { corsPreflight, withCors } from "@/server/http/cors";
import { bytesResponse } from "@/server/http/encode-bytes-response";
import { handleRoute } from "@/server/runtime/handle-route";
import { readEntryBundle, readHashTile } from "@/server/transparency/read-log";
import { parseTilePath } from "@/server/verify";

export const dynamic = "force-dynamic";

const TILE_CACHE_CONTROL = "public, max-age=31536000, immutable";

/** Hash tiles `/log/tile/<L>/<N>[.p/<W>]` and entry bundles `/log/tile/entries/<N>[.p/<W>]` (C2SP tlog-tiles). */
export const GET = withCors(
  ["GET"],
  handleRoute<{ params: Promise<{ path: string[] }> }>(async (req, { params }) => {
    const tile = parseTilePath((await params).path);
    if (!tile) throw new AppError("not_found", "not a tile path: tile/<L>/<N>[.p/<W>] or tile/entries/<N>[.p/<W>]");
    const { db } = await routeRuntime();
    const data =
      tile.level === "entries"
        ? await readEntryBundle(db, tile.index, tile.width)
        : await readHashTile(db, tile.level, tile.index, tile.width);
    if (!data) throw new AppError("not_found", "no such tile in the published tree");
    // A tile's path names its width, so its bytes never change once served, partial (`.p/<W>`) or full.
    return bytesResponse(req, data, {
      "content-type": "application/octet-stream",
      "cache-control": TILE_CACHE_CONTROL,
    });
  }),
);

export const OPTIONS = corsPreflight(["GET"]);
