// The front server's (bin/start/serve-next.ts) command line: what its launcher read from the config, passed as arguments,
// since the front server loads nothing server-only and so no config of its own.
import { parseArgs } from "node:util";
import type { Config } from "../../server/env";

export interface FrontServerOptions {
  mode: "dev" | "start";
  port: number;
  hostname: string;
  /** SHUTDOWN_GRACE_MS. */
  graceMs: number;
  /** SIGNET_NEXT_DIST_DIR. */
  distDir: string;
  /** SIGNET_API_DIRECT. */
  direct: boolean;
}

/** The arguments that start the front server in `mode` with `cfg`'s port, host, grace, build folder and direct routes. */
export function frontServerArgs(
  mode: "dev" | "start",
  cfg: Pick<Config, "PORT" | "HOSTNAME" | "SHUTDOWN_GRACE_MS" | "SIGNET_NEXT_DIST_DIR" | "SIGNET_API_DIRECT">,
): string[] {
  return [
    mode,
    "--port",
    String(cfg.PORT),
    "--hostname",
    cfg.HOSTNAME,
    "--grace-ms",
    String(cfg.SHUTDOWN_GRACE_MS),
    "--dist-dir",
    cfg.SIGNET_NEXT_DIST_DIR,
    "--direct",
    String(cfg.SIGNET_API_DIRECT),
  ];
}

/** Reads frontServerArgs' arguments back. */
export function parseFrontServerArgs(argv: string[]): FrontServerOptions {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      port: { type: "string" },
      hostname: { type: "string" },
      "grace-ms": { type: "string" },
      "dist-dir": { type: "string" },
      direct: { type: "string" },
    },
  });
  const mode = positionals[0] === "dev" ? "dev" : "start";
  return {
    mode,
    port: Number(values.port ?? 3000),
    hostname: values.hostname ?? "localhost",
    graceMs: Number(values["grace-ms"] ?? 20_000),
    distDir: values["dist-dir"] ?? ".next",
    direct: values.direct !== "false",
  };
}
