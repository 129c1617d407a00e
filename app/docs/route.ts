import { apiReferenceHtml, DOCS_CSP } from "@/server/docs/api-reference";
import { readPublicKeys } from "@/server/site/read-site-facts";

// The footer shows the live keys: rendered per request, never at build time.
export const dynamic = "force-dynamic";

export function GET(): Response {
  return new Response(apiReferenceHtml(readPublicKeys()), { headers: { "content-type": "text/html; charset=utf-8", "content-security-policy": DOCS_CSP } });
}
