import { apiReferenceHtml, DOCS_CSP } from "@/server/openapi/api-reference";
import { routeRuntime } from "@/server/runtime/route-edge";
import { NO_PUBLIC_KEYS, readPublicKeys } from "@/server/site/read-site-facts";

// The footer shows the live keys: rendered per request, never at build time.
export const dynamic = "force-dynamic";

export async function GET(): Promise<Response> {
  const keys = await routeRuntime().then((rt) => readPublicKeys(rt), () => NO_PUBLIC_KEYS);
  return new Response(apiReferenceHtml(keys), { headers: { "content-type": "text/html; charset=utf-8", "content-security-policy": DOCS_CSP } });
}
