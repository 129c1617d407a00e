// The /docs page: the OpenAPI document rendered by Redoc, served from this service (no CDN): the HTML
// shell, and Redoc's standalone bundle read from node_modules.
import "server-only";
import { readFile } from "node:fs/promises";
import path from "node:path";

const REDOC_BUNDLE = path.join("node_modules", "redoc", "bundles", "redoc.standalone.js");

/** Where Redoc's bundle loads its footer logo from, and where this service serves a copy (public/). */
export const REDOC_LOGO_CDN_URL = "https://cdn.redoc.ly/redoc/logo-mini.svg";
export const REDOC_LOGO_LOCAL_PATH = "/redoc-logo-mini.svg";

/**
 * Nothing leaves the origin: Redoc's footer logo is served from this origin (the bundle is rewritten to ask for it
 * here), and its search runs in a blob worker; styled-components needs inline styles.
 */
export const DOCS_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; worker-src 'self' blob:; connect-src 'self'; font-src 'self' data:";

/** The site's navigation, as the other pages' shared layout draws it (this page is Redoc's document, not a Next page). */
const NAV = [
  ["/", "Home"],
  ["/explorer", "Explorer"],
  ["/log", "Log"],
  ["/credits", "Credits"],
  ["/grants", "Grants"],
  ["/docs", "Docs"],
  ["/dashboard", "Dashboard"],
] as const;

const SHELL_CSS = `body{margin:0;font-family:system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;color:#0f172a}
.site-header{border-bottom:1px solid #e2e8f0;background:#fff}
.site-header .bar{max-width:72rem;margin:0 auto;padding:.75rem 1rem;display:flex;flex-wrap:wrap;gap:.5rem 1.5rem;align-items:center;justify-content:space-between}
.brand{display:flex;align-items:center;gap:.5rem;font-weight:600;font-size:1.125rem;color:#0f172a;text-decoration:none}
.brand img{width:28px;height:28px}
.site-nav ul{display:flex;flex-wrap:wrap;gap:.25rem;list-style:none;margin:0;padding:0;font-size:.875rem}
.site-nav a{display:block;padding:.375rem .625rem;border-radius:.375rem;color:#334155;text-decoration:none;font-weight:500}
.site-nav a:hover{background:#f1f5f9}
.site-nav a[aria-current=page]{background:#ede9fe;color:#4c1d95}
.site-footer{border-top:1px solid #e2e8f0;background:#fff;font-size:.875rem;color:#334155}
.site-footer .bar{max-width:72rem;margin:0 auto;padding:1.5rem 1rem;display:grid;gap:1rem;grid-template-columns:repeat(auto-fit,minmax(18rem,1fr))}
.site-footer code{word-break:break-all;font-size:.75rem;color:#1e293b}
.site-footer a{color:#5b21b6}`;

/** The page: Redoc pointed at our document, between the site's header and its footer with the two public keys. */
export function apiReferenceHtml(keys: { operatorKey: string | null; verifierKey: string | null }): string {
  const nav = NAV.map(
    ([href, label]) => `<li><a href="${href}"${href === "/docs" ? ' aria-current="page"' : ""}>${label}</a></li>`,
  ).join("");
  const key = (title: string, what: string, value: string | null, href: string) =>
    `<div><p><strong>${title}</strong> (${what})</p>${value ? `<p><a href="${href}"><code data-testid="footer-key">${escapeHtml(value)}</code></a></p>` : "<p>not configured on this deployment</p>"}</div>`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>API reference · Signet</title>
<link rel="icon" href="/favicon.ico" sizes="any">
<link rel="icon" href="/icon.svg" type="image/svg+xml">
<style>${SHELL_CSS}</style>
</head>
<body>
<header class="site-header"><div class="bar"><a class="brand" href="/"><img src="/icon.svg" alt="">Signet</a><nav class="site-nav" aria-label="Main"><ul>${nav}</ul></nav></div></header>
<main id="main">
<redoc spec-url="/api/v1/openapi.json" hide-download-button="false" expand-responses="200"></redoc>
</main>
<footer class="site-footer"><div class="bar">${key("Operator key", "signs every receipt", keys.operatorKey, "/api/v1/operator-key")}${key("Verifier key", "signs the hosted verifier's verdicts", keys.verifierKey, "/api/verify/operator-key")}</div></footer>
<script src="/docs/redoc.standalone.js"></script>
</body>
</html>`;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);
}

/** Bounded memo cache: the one Redoc bundle read from disk (bound: one entry). */
let bundle: Promise<Buffer> | null = null;

/** Redoc's standalone bundle (read once), asking this origin for its logo rather than Redocly's CDN. */
export function redocBundle(): Promise<Buffer> {
  bundle ??= readFile(path.resolve(process.cwd(), REDOC_BUNDLE), "utf8")
    .then((text) => Buffer.from(text.replaceAll(REDOC_LOGO_CDN_URL, REDOC_LOGO_LOCAL_PATH), "utf8"))
    .catch((err: unknown) => {
      bundle = null;
      throw err;
    });
  return bundle;
}
