#!/usr/bin/env node
// The package's `signet` binary: loads the TypeScript CLI through tsx, so no build step is needed.
import { register } from "tsx/esm/api";

register();
await import("./signet.ts");
