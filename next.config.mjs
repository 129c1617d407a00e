/** @type {import('next').NextConfig} */
const nextConfig = {
  // Native and DB packages must stay out of the bundle (STACK.md): they are loaded by Node at run time.
  serverExternalPackages: [
    "@electric-sql/pglite",
    "pglite-prisma-adapter",
    "@prisma/client",
    "@prisma/adapter-pg",
    "pg",
    "litesvm",
    "pino",
    "prom-client",
  ],
  // The browser suite builds into its own folder, so it never clobbers a running `npm run dev`.
  distDir: process.env.SIGNET_NEXT_DIST_DIR || ".next",
  poweredByHeader: false,
  reactStrictMode: true,
};

export default nextConfig;
