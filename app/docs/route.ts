import { apiReferenceHtml, DOCS_CSP } from "@/server/docs/api-reference";

export const dynamic = "force-static";

export function GET(): Response {
  return new Response(apiReferenceHtml(), { headers: { "content-type": "text/html; charset=utf-8", "content-security-policy": DOCS_CSP } });
}
