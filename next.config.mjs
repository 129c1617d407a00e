/** @type {import('next').NextConfig} */
const nextConfig = {
  // Native and DB packages must stay out of the bundle (STACK.md): they are loaded by Node at run time.
  serverExternalPackages: [
    "@electric-sql/pglite",
    "pglite-prisma-adapter",
    "@prisma/client",
    "@prisma/adapter-pg",
    "pg",
    "pino",
    "prom-client",
  ],
  // The browser suite builds into its own folder, so it never clobbers a running `npm run dev`.
  distDir: process.env.SIGNET_NEXT_DIST_DIR || ".next",
  poweredByHeader: false,
  // `npm test`'s shared build skips the type check (SIGNET_BUILD_TYPECHECK=false): the run type-checks the whole
  // repository in its own stage. Every other build stops on a type error.
  typescript: { ignoreBuildErrors: process.env.SIGNET_BUILD_TYPECHECK === "false" },
  // `next dev` compiles from scratch at each start: a start restored from Turbopack's on-disk dev cache can answer every
  // page's HMR subscription with a full reload, on every load of every page, until it is restarted
  // (e2e/dev-reload.spec.ts counts a page's loads).
  experimental: { turbopackFileSystemCacheForDev: false },
  reactStrictMode: true,
};

export default nextConfig;
