// Imported first by `npm start` (bin/start.ts): `npm start` is production, always. Without this, a shell that never
// set NODE_ENV would check the config in development mode, invent dev keys on disk, and serve with them.
Object.assign(process.env, { NODE_ENV: "production" });
