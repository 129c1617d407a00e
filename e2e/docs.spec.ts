import { expect, test } from "@playwright/test";
import { BASE } from "./support";

test("/docs renders the API reference from the service's own OpenAPI document, with no request leaving the origin", async ({
  page,
}) => {
  // Redoc's footer logo is served from this origin: no request for anything foreign is even attempted.
  const foreign: string[] = [];
  const logo: number[] = [];
  page.on("request", (req) => {
    if (!req.url().startsWith(BASE) && !req.url().startsWith("data:") && !req.url().startsWith("blob:"))
      foreign.push(req.url());
  });
  page.on("response", (res) => {
    if (res.url() === `${BASE}/redoc-logo-mini.svg`) logo.push(res.status());
  });
  const res = await page.goto("/docs");
  const headers = await res!.allHeaders();
  expect(headers["content-security-policy"]).toContain("default-src 'self'");
  // No site may frame it: the front server merges frame-ancestors into the route's own policy (one policy, not two).
  expect(headers["content-security-policy"]).toMatch(/; frame-ancestors 'none'$/);
  expect(headers["x-frame-options"]).toBe("DENY");
  await expect(page.getByRole("heading", { name: "Signet API (v1)" })).toBeVisible({ timeout: 20_000 });
  await expect(page.getByRole("heading", { name: "Paid chat completion (x402, one payment per call)" })).toBeVisible();
  await expect(
    page.getByRole("heading", { name: "x402 discovery: the paid resources, networks, keys and verifier" }),
  ).toBeVisible();
  await page.getByRole("img", { name: "redocly logo" }).scrollIntoViewIfNeeded();
  await expect(page.getByRole("img", { name: "redocly logo" })).toBeVisible();
  await page.screenshot({ path: "test-results/screenshots/docs.png" });
  expect(foreign).toEqual([]);
  expect(logo).toEqual([200]);
});

test("/.well-known/x402 lists the paid chat resource with its requirements per enabled network", async ({
  request,
}) => {
  const res = await request.get("/.well-known/x402");
  expect(res.status()).toBe(200);
  const body = (await res.json()) as {
    paid_resources: {
      resource: string;
      accepts: { network: string; payTo: string; asset: string; amount: string }[];
    }[];
    networks: { network: string; enabled: boolean }[];
  };
  expect(body.paid_resources[0]!.resource).toBe(`${BASE}/api/v1/chat/completions`);
  const networks = body.paid_resources[0]!.accepts.map((a) => a.network);
  expect(networks).toContain("solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1");
  expect(networks).toContain("eip155:84532");
  for (const n of body.networks.filter((n) => n.enabled)) expect(networks).toContain(n.network);
});
