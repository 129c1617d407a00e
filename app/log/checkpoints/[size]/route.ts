import { z } from "zod";
import { routeRuntime } from "@/server/runtime/route-edge";
import { AppError } from "@/server/errors";
import { corsPreflight, withCors } from "@/server/http/cors";
import { handleRoute } from "@/server/runtime/handle-route";
import { parseWith } from "@/server/http/parse-with";
import { readCheckpoint } from "@/server/transparency/read-log";

export const dynamic = "force-dynamic";

const sizeSchema = z.string().regex(/^(0|[1-9][0-9]{0,15})$/, "a tree size in decimal");

/** A past checkpoint by tree size, with the cosignatures witnesses have added since (so cached briefly). */
export const GET = withCors(
  ["GET"],
  handleRoute<{ params: Promise<{ size: string }> }>(async (_req, { params }) => {
    const size = Number(parseWith(sizeSchema, (await params).size));
    const checkpoint = await readCheckpoint((await routeRuntime()).db, size);
    if (!checkpoint) throw new AppError("not_found", "the log signed no checkpoint of that size");
    return new Response(checkpoint.note, {
      headers: { "content-type": "text/plain; charset=utf-8", "cache-control": "public, max-age=10" },
    });
  }),
);

export const OPTIONS = corsPreflight(["GET"]);
