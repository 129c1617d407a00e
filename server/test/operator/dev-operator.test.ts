// The operator's first minute in dev: outside production the service makes a dashboard sign-in key in its data
// directory and lets it in, and `signet operator login-link` signs with it when no --key is given. Production never
// makes or allows it.
import { existsSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET as loginLinkRoute } from "@/app/api/operator/login-link/route";
import { GET as trpcGet } from "@/app/api/trpc/[trpc]/route";
import { testConfig as config } from "../support/env";
import { DEV_OPERATOR_SIGN_IN_KEY_FILE, devOperatorSignInKey, signedLoginLink } from "../../operator-auth/dev-operator";
import { operatorPubkeys } from "../../operator-auth/session";
import { startPaidStack, type PaidStack } from "../support/paid-stack";
import { runSignet } from "../support/signet-cli";

const ORIGIN = "http://localhost:3000";
let stack: PaidStack;
beforeAll(async () => {
  // Nobody is listed: only the dev key can sign in.
  stack = await startPaidStack({ env: { SERVICE_OPERATOR_PUBKEYS: "", SERVICE_BASE_URL: ORIGIN } });
});
afterAll(async () => stack?.close());

const whoami = (cookie: string) =>
  trpcGet(new Request(`${ORIGIN}/api/trpc/dashboard.whoami?input=%7B%7D`, { headers: { cookie } }));

describe("the dev operator sign-in key", () => {
  it("is made in the data directory and allowed, beside the listed keys, outside production", () => {
    const key = devOperatorSignInKey(config())!;
    expect(existsSync(path.join(config().dataDir, DEV_OPERATOR_SIGN_IN_KEY_FILE))).toBe(true);
    expect(operatorPubkeys(config()).has(key.publicKeyBase58)).toBe(true);
    expect(devOperatorSignInKey(config())!.publicKeyBase58).toBe(key.publicKeyBase58);
  });

  it("is never made nor allowed in production", () => {
    expect(devOperatorSignInKey({ isProduction: true, dataDir: config().dataDir })).toBeNull();
  });

  it("signs a one-time link that opens the dashboard once", async () => {
    const link = signedLoginLink(ORIGIN, devOperatorSignInKey(config())!, Date.now());
    const first = await loginLinkRoute(new Request(link), {});
    expect(first.status).toBe(303);
    expect((await whoami(first.headers.get("set-cookie")!.split(";")[0]!)).status).toBe(200);
    expect((await loginLinkRoute(new Request(link), {})).status).toBe(401);
  });

  it("`signet operator login-link` with no --key signs with it", async () => {
    const { code, stdout, stderr } = await runSignet(
      ["operator", "login-link", "--endpoint", ORIGIN],
      config().dataDir,
    );
    expect(code, stderr).toBe(0);
    const res = await loginLinkRoute(new Request(stdout.trim()), {});
    expect(res.status).toBe(303);
  });
});
