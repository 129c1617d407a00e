// The `signet` CLI's own surface, as child processes (`node bin/cli/signet.mjs …`): help at every level (exit 0, on
// stdout), usage mistakes (one line with a suggestion, then the usage; exit 2), which service a command talks to
// (--endpoint, else SIGNET_ENDPOINT, else SERVICE_BASE_URL, else http://localhost:$PORT) and a service that does not
// answer named by its URL.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closedPort, startHangingServer, type LocalServer } from "../verify/local-servers";
import { runSignet, type CliRun } from "../support/signet-cli";
import { readVector } from "../verify/vectors";

const scratch = mkdtempSync(path.join(tmpdir(), "signet-cli-usage-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
const dataDir = path.join(scratch, "data");
const COMMANDS = [
  "chat",
  "verify",
  "infer",
  "topup",
  "balance",
  "grant",
  "keygen",
  "localnet",
  "operator",
  "settings",
  "reconcile",
  "log",
];

/** Runs the CLI with exactly these endpoint variables (the others unset). */
function signet(
  args: string[],
  env: { SIGNET_ENDPOINT?: string; SERVICE_BASE_URL?: string; PORT?: string } = {},
): Promise<CliRun> {
  return runSignet(args, dataDir, undefined, {
    SIGNET_ENDPOINT: env.SIGNET_ENDPOINT,
    SERVICE_BASE_URL: env.SERVICE_BASE_URL,
    PORT: env.PORT,
  });
}

/** A usage mistake: exit 2, nothing on stdout, the reason on the first line, then the usage. */
function expectMistake(r: CliRun, reason: string | RegExp, usage: RegExp): void {
  expect(r.code, r.stderr).toBe(2);
  expect(r.stdout).toBe("");
  const [first, ...rest] = r.stderr.trimEnd().split("\n");
  if (typeof reason === "string") expect(first).toBe(reason);
  else expect(first).toMatch(reason);
  expect(rest.join("\n")).toMatch(usage);
  expect(r.stderr).not.toMatch(/\n\s+at /);
}

describe("signet help", () => {
  it.each([["-h"], ["--help"], ["help"]])(
    "signet %s prints one line per command with its description and exits 0",
    async (flag) => {
      const r = await signet([flag]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toBe("");
      expect(r.stdout).toMatch(/^usage: signet <command>/);
      for (const name of COMMANDS) expect(r.stdout).toMatch(new RegExp(`^  ${name} +\\S.+$`, "m"));
    },
  );

  it.each([
    ["chat", "--help"],
    ["verify", "-h"],
    ["log", "monitor", "--help"],
    ["operator", "login-link", "-h"],
  ])("signet %s … --help prints that command's usage and exits 0", async (...args) => {
    const r = await signet(args);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe("");
    expect(r.stdout).toMatch(new RegExp(`^usage: signet ${args[0]} `, "m"));
  });

  it("signet help <command> prints that command's usage", async () => {
    const r = await signet(["help", "topup"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^usage: signet topup AMOUNT_USDC/m);
  });
});

describe("usage mistakes", () => {
  it("an unknown option: one line naming it with the option it is closest to, then the command's usage; exit 2", async () => {
    expectMistake(
      await signet(["chat", "hi", "--netwrok", "devnet"]),
      "signet: unknown option --netwrok for signet chat; did you mean --network?",
      /^usage: signet chat "prompt"/,
    );
    expectMistake(
      await signet(["verify", "--recipt", "x.json"]),
      "signet: unknown option --recipt for signet verify; did you mean --receipt?",
      /^usage: signet verify /,
    );
    expectMistake(
      await signet(["keygen", "--force"]),
      "signet: unknown option --force for signet keygen",
      /^usage: signet keygen/,
    );
  });

  it("an unknown command: one line with the closest command, then the commands; exit 2", async () => {
    expectMistake(
      await signet(["verfy"]),
      "signet: unknown command verfy; did you mean verify?",
      /^usage: signet <command>/,
    );
    expectMistake(await signet(["frobnicate"]), "signet: unknown command frobnicate", /^usage: signet <command>/);
    expectMistake(await signet(["--netwrok"]), /^signet: unknown option --netwrok/, /^usage: signet <command>/);
    expectMistake(await signet([]), "signet: a command is required", /^usage: signet <command>/);
  });

  it("an option without its value, and a stray argument, are one plain line each", async () => {
    expectMistake(
      await signet(["chat", "hi", "--endpoint"]),
      "signet: --endpoint needs a value",
      /^usage: signet chat/,
    );
    expectMistake(
      await signet(["keygen", "extra"]),
      "signet: unexpected argument extra for signet keygen",
      /^usage: signet keygen/,
    );
  });
});

describe("which service a command talks to", () => {
  let port: number;
  let keyFile: string;
  beforeAll(async () => {
    port = await closedPort();
    keyFile = path.join(scratch, "operator.json");
    expect((await signet(["keygen", "--out", keyFile])).code).toBe(0);
  });
  // A login link names the service it signs in to: the endpoint the command resolved, without any network call.
  const linkOrigin = async (env: Parameters<typeof signet>[1], extra: string[] = []) => {
    const r = await signet(["operator", "login-link", "--key", keyFile, ...extra], env);
    expect(r.code, r.stderr).toBe(0);
    return r.stdout.trim().split("/api/operator/login-link?")[0];
  };

  it("--endpoint, else SIGNET_ENDPOINT, else SERVICE_BASE_URL, else http://localhost:$PORT, else port 3000", async () => {
    const all = {
      SIGNET_ENDPOINT: "http://signet-endpoint.test:1",
      SERVICE_BASE_URL: "http://service-base.test:2",
      PORT: "4321",
    };
    expect(await linkOrigin(all, ["--endpoint", "http://flag.test:3/"])).toBe("http://flag.test:3");
    expect(await linkOrigin(all)).toBe("http://signet-endpoint.test:1");
    expect(await linkOrigin({ SERVICE_BASE_URL: all.SERVICE_BASE_URL, PORT: all.PORT })).toBe(
      "http://service-base.test:2",
    );
    expect(await linkOrigin({ PORT: all.PORT })).toBe("http://localhost:4321");
    expect(await linkOrigin({})).toBe("http://localhost:3000");
  });

  it("a service that does not answer is named by its URL, whichever way it was chosen", async () => {
    const down = `http://127.0.0.1:${port}`;
    const expected = `signet: the service at ${down} did not answer (connection refused): is \`npm run dev\` running?`;
    const kp = ["--keypair", keyFile];
    for (const [args, env] of [
      [["balance", ...kp, "--endpoint", down], {}],
      [["grant", ...kp], { SIGNET_ENDPOINT: down }],
      [["infer", "hi", ...kp], { SERVICE_BASE_URL: down }],
      [["log", "monitor", "--state", path.join(scratch, "monitor.json")], { SIGNET_ENDPOINT: down }],
    ] as const) {
      const r = await signet([...args], env);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr.trim(), args.join(" ")).toBe(expected);
    }
    const localhost = await signet(["balance", ...kp], { PORT: String(port) });
    expect(localhost.stderr.trim()).toBe(
      `signet: the service at http://localhost:${port} did not answer (connection refused): is \`npm run dev\` running?`,
    );
  });

  describe("a service that accepts the connection and never answers", () => {
    let hanging: LocalServer;
    beforeAll(async () => void (hanging = await startHangingServer()));
    afterAll(() => hanging.close());

    it("is named by its URL as timed out", async () => {
      const v = readVector("prepaid-001");
      const r = await signet(["verify", "--receipt", path.join(v.dir, "receipt.json"), "--signature-only"], {
        SIGNET_ENDPOINT: hanging.url,
      });
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr.trim()).toBe(
        `signet: the service at ${hanging.url} did not answer (timed out): is \`npm run dev\` running?`,
      );
    });
  });
});
