#!/usr/bin/env node
// The package's `signet` binary: loads the TypeScript CLI through tsx, so no build step is needed. Server modules
// `import "server-only"`, so that one package resolves as on the server (bin/resolve-server-only.mjs).
import { register as registerHooks } from "node:module";
import { register } from "tsx/esm/api";

registerHooks("./resolve-server-only.mjs", import.meta.url);
register();
await import("./signet.ts");
