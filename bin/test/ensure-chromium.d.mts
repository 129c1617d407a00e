// Types for ensure-chromium.mjs (plain JavaScript so `npm test` runs it with node alone).
export declare const CHROMIUM_PATH: string;
export declare const APT_GET_PATH: string;
export declare const MISSING_CHROMIUM: string;
export type EnsureChromiumResult = { ok: true; installed: boolean } | { ok: false; message: string };
export declare function ensureChromium(deps: {
  exists: (path: string) => boolean;
  run: (command: string, args: string[]) => boolean;
  isRoot: boolean;
  log?: (line: string) => void;
}): EnsureChromiumResult;
export declare function ensureChromiumHere(): EnsureChromiumResult;
