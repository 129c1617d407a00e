// The deposit account check before a Solana challenge: an RPC failure during it is not remembered, so the next request
// on that network checks again and is served, instead of every payment on the network being refused until a restart.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { createSolanaRpc } from "@solana/kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDepositReadiness } from "../../runtime/deposit-ready";
import { startLocalnet, type Localnet } from "../../../devtools/localnet";
import { signerFromKeypair } from "../../agent/paying-fetch";
import { generateKeypair } from "../../keys/parse-secret-key";
import { createLogger } from "../../log";
import { systemClock } from "../../clock";
import { SHIPPED_NETWORKS } from "../../verify/network-registry";
import type { PaymentGateway } from "../../x402/payment-gateway";

let devnet: Localnet;
let proxy: http.Server;
let proxyUrl: string;
/** How many requests the flaky RPC in front of the chain answers 503 before it forwards. */
let failuresLeft = 0;
// As in production, where the failure is logged: logging it must not keep the failure cached.
const log = createLogger("error");

beforeAll(async () => {
  devnet = await startLocalnet({ profile: "devnet", port: 0, dataDir: null });
  proxy = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString()));
    req.on("end", () => {
      if (failuresLeft > 0) {
        failuresLeft--;
        return void res.writeHead(503, { "content-type": "text/plain" }).end("Service Unavailable");
      }
      void fetch(devnet.url, { method: "POST", headers: { "content-type": "application/json" }, body }).then(
        async (r) => res.writeHead(r.status, { "content-type": "application/json" }).end(await r.text()),
      );
    });
  });
  await new Promise<void>((r) => proxy.listen(0, "127.0.0.1", r));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
});
afterAll(async () => {
  proxy?.closeAllConnections();
  await new Promise((r) => proxy?.close(r));
  await devnet?.close();
});

describe("createDepositReadiness()", () => {
  it("checks again after an RPC failure, and then creates the deposit account", async () => {
    const key = generateKeypair();
    const signer = await signerFromKeypair(key);
    await devnet.fundAccount(signer.address, { lamports: 1_000_000_000n });
    const gateway = {
      facilitator: { networks: SHIPPED_NETWORKS, rpcs: { "solana-devnet": createSolanaRpc(proxyUrl) }, signer },
    } as unknown as PaymentGateway;
    const ensureDepositReady = createDepositReadiness(gateway, new Map(), { clock: systemClock, log });
    failuresLeft = 1;
    // The failure is forgotten before the caller sees it: its own handler runs first.
    await expect(ensureDepositReady("solana-devnet", signer.address)).rejects.toThrow();
    const ata = await ensureDepositReady("solana-devnet", signer.address);
    expect(ata).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/);
    expect(await devnet.usdcBalance(signer.address)).toBe(0n);
  });
});
