// The /docs page: the OpenAPI document rendered by Redoc, served from this service (no CDN): the HTML
// shell, and Redoc's standalone bundle read from node_modules.
import "server-only";
import { readFile } from "node:fs/promises";
import path from "node:path";

const REDOC_BUNDLE = path.join("node_modules", "redoc", "bundles", "redoc.standalone.js");

/**
 * Nothing leaves the origin: Redoc's footer would fetch its logo from cdn.redoc.ly (it hides the image when that
 * fails), and its search runs in a blob worker; styled-components needs inline styles.
 */
export const DOCS_CSP = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; worker-src 'self' blob:; connect-src 'self'; font-src 'self' data:";

/** The page: Redoc pointed at our document. */
export function apiReferenceHtml(): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Signet API reference</title>
<style>body { margin: 0; }</style>
</head>
<body>
<redoc spec-url="/api/v1/openapi.json" hide-download-button="false" expand-responses="200"></redoc>
<script src="/docs/redoc.standalone.js"></script>
</body>
</html>`;
}

let bundle: Promise<Buffer> | null = null;

/** Redoc's standalone bundle (read once). */
export function redocBundle(): Promise<Buffer> {
  bundle ??= readFile(path.resolve(process.cwd(), REDOC_BUNDLE)).catch((err: unknown) => {
    bundle = null;
    throw err;
  });
  return bundle;
}
