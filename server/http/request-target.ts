// Which request targets the front server serves: origin-form only (a path, as every client sends to an origin
// server). No "server-only" and no config here: bin/start/serve-next.ts loads this outside Next.

/**
 * Whether `target` (the request line's target, Node's `req.url`) is origin-form: it starts with "/".
 * SECURITY: Next answers an absolute-form target (`GET http://evil.example/x`) with a redirect to its host; this server
 * is no proxy, so every other form (absolute, authority, asterisk) is refused before Next sees it, whichever host it
 * names.
 */
export function isOriginForm(target: string | undefined): boolean {
  return typeof target === "string" && target.startsWith("/");
}
