import { appContext } from "@/server/app-context";
import { handleRoute } from "@/server/http/handle-route";
import { readSettings } from "@/server/settings/read-settings";
import { listModels } from "@/server/upstream/list-models";
import { methodsNotAllowed } from "@/server/http/unserved-routes";

export const dynamic = "force-dynamic";

export const GET = handleRoute(async () => {
  const ctx = await appContext();
  const settings = await readSettings(ctx.db);
  return Response.json(listModels(ctx.upstream, settings));
});

export const { POST, PUT, PATCH, DELETE } = methodsNotAllowed(["GET"]);
