import { apiRouteNotFound } from "@/server/runtime/unserved-routes";

export const dynamic = "force-dynamic";

// Matches only the paths under /api that no other route does: each answers 404 not_found in JSON.
export const GET = apiRouteNotFound;
export const HEAD = apiRouteNotFound;
export const POST = apiRouteNotFound;
export const PUT = apiRouteNotFound;
export const PATCH = apiRouteNotFound;
export const DELETE = apiRouteNotFound;
export const OPTIONS = apiRouteNotFound;
