// `npm start` behind Debian's nginx, with TLS, as docs/deploy.md sets it up: the site file is deploy/nginx-signet.conf
// with only its names, ports and certificate paths replaced (and its IPv6 listen lines dropped, for machines without
// IPv6), inside a main configuration that sets only where nginx writes; every proxy buffer is nginx's default. The
// certificate is made here (openssl), and the clients trust it and nothing else. Through the proxy: every unpaid call
// is the 402 (a head over nginx's 4 KB proxy_buffer_size is a 502), the stock x402 v2 and v1 clients pay, a stream's
// first token arrives while the model is still writing, HTTP/2 works, port 80 redirects, and with
// TRUSTED_PROXY_HOPS=1 the address nginx saw is the client's: a spoofed X-Forwarded-For escapes no per-IP limit.
// A top-up, a signed prepaid call and the largest body a route takes pass too. SIGNET_PROXY_FULL=true pays on every
// network with both clients (devnet only by default).
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import http2 from "node:http2";
import { tmpdir } from "node:os";
import path from "node:path";
import { createKeyPairSignerFromBytes } from "@solana/kit";
import { x402Client } from "@x402/core/client";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { wrapFetchWithPayment } from "@x402/fetch";
import { ExactSvmScheme } from "@x402/svm/exact/client";
import bs58 from "bs58";
import { Agent, fetch as undiciFetch } from "undici";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  wrapFetchWithPayment as wrapFetchWithPaymentV1,
  createSigner as createV1Signer,
  decodeXPaymentResponse,
} from "x402-fetch";
import { loadDevtoolsEnv } from "../../../devtools/devtools-env";
import { freePort, REPO_ROOT, startSoakStack, type SoakStack } from "../../../devtools/soak/soak-stack";
import { signRequestHeaders, newNonce } from "../../agent/sign-request";
import { hashIp } from "../../http/client-ip";
import { generateKeypair, toSolanaCliJson } from "../../keys/parse-secret-key";
import { readStreamedAnswer } from "../../upstream/read-sse";
import { parseReceiptText, verifySignatureOnly } from "../../verify";

const FULL = loadDevtoolsEnv().SIGNET_PROXY_FULL;
/** The built-in model's pause between streamed tokens: long enough that a buffered stream would arrive in one piece. */
const TOKEN_DELAY_MS = 150;
const PRICE_UNITS = 1_000n;

interface Proxy {
  /** https://127.0.0.1:<port>, the service's SERVICE_BASE_URL. */
  origin: string;
  /** The plain-HTTP server block's origin (it only redirects). */
  plainOrigin: string;
  /** The self-signed certificate, PEM: what the clients trust. */
  ca: string;
  /** What nginx wrote to its error log. */
  errors(): string;
  close(): Promise<void>;
}

/** The nginx binary, or a loud failure: CI installs it (.ci/run), as it does chromium. */
function nginxBinary(): string {
  for (const candidate of ["/usr/sbin/nginx", "/usr/bin/nginx"]) if (existsSync(candidate)) return candidate;
  throw new Error("nginx is not installed: `apt-get install nginx` (.ci/run installs it where it is absent)");
}

/** deploy/nginx-signet.conf with its names, ports and paths replaced; every other line as an operator installs it. */
export function siteFile(opts: {
  tlsPort: number;
  plainPort: number;
  upstreamPort: number;
  certificate: string;
  key: string;
}): string {
  const site = readFileSync(path.join(REPO_ROOT, "deploy/nginx-signet.conf"), "utf8");
  const replaced = site
    .replace(/^\s*listen \[::\].*\n/gm, "")
    .replace("listen 443 ssl http2;", `listen 127.0.0.1:${opts.tlsPort} ssl http2;`)
    .replace("listen 80;", `listen 127.0.0.1:${opts.plainPort};`)
    .replaceAll("server_name signet.example.com;", "server_name 127.0.0.1;")
    .replace("/etc/letsencrypt/live/signet.example.com/fullchain.pem", opts.certificate)
    .replace("/etc/letsencrypt/live/signet.example.com/privkey.pem", opts.key)
    .replace("proxy_pass http://127.0.0.1:3000;", `proxy_pass http://127.0.0.1:${opts.upstreamPort};`);
  // Each replacement must have found its line: a site file that changed shape fails here, not silently.
  for (const expected of [
    `127.0.0.1:${opts.tlsPort} ssl http2`,
    `127.0.0.1:${opts.plainPort};`,
    opts.certificate,
    opts.key,
    `127.0.0.1:${opts.upstreamPort};`,
  ]) {
    if (!replaced.includes(expected))
      throw new Error(`deploy/nginx-signet.conf no longer has the line the test replaces with ${expected}`);
  }
  return replaced;
}

async function startNginx(upstreamPort: number, tlsPort: number): Promise<Proxy> {
  const nginx = nginxBinary();
  const dir = mkdtempSync(path.join(tmpdir(), "signet-nginx-"));
  // nginx's workers run as `nobody` when the master is root: they must reach the temp folders.
  chmodSync(dir, 0o755);
  const certificate = path.join(dir, "cert.pem");
  const key = path.join(dir, "key.pem");
  execFileSync(
    "openssl",
    [
      "req",
      "-x509",
      "-newkey",
      "ec",
      "-pkeyopt",
      "ec_paramgen_curve:prime256v1",
      "-nodes",
      "-days",
      "1",
      "-subj",
      "/CN=127.0.0.1",
      "-addext",
      "subjectAltName=IP:127.0.0.1",
      "-keyout",
      key,
      "-out",
      certificate,
    ],
    { stdio: "pipe" },
  );
  const plainPort = await freePort();
  writeFileSync(path.join(dir, "signet.conf"), siteFile({ tlsPort, plainPort, upstreamPort, certificate, key }));
  const errorLog = path.join(dir, "error.log");
  // Only where nginx writes: no proxy_buffer_size, proxy_buffers or proxy_buffering, so nginx's defaults stand.
  writeFileSync(
    path.join(dir, "nginx.conf"),
    [
      "worker_processes 1;",
      `pid ${dir}/nginx.pid;`,
      `error_log ${errorLog} warn;`,
      "events { worker_connections 256; }",
      "http {",
      `  access_log ${dir}/access.log;`,
      ...["client_body", "proxy", "fastcgi", "uwsgi", "scgi"].map((t) => `  ${t}_temp_path ${dir}/${t};`),
      `  include ${dir}/signet.conf;`,
      "}",
      "",
    ].join("\n"),
  );
  execFileSync(nginx, ["-t", "-q", "-p", dir, "-e", errorLog, "-c", path.join(dir, "nginx.conf")], { stdio: "pipe" });
  const child: ChildProcess = spawn(
    nginx,
    ["-p", dir, "-e", errorLog, "-c", path.join(dir, "nginx.conf"), "-g", "daemon off;"],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  let output = "";
  child.stdout!.on("data", (c: Buffer) => (output += c.toString()));
  child.stderr!.on("data", (c: Buffer) => (output += c.toString()));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const ca = readFileSync(certificate, "utf8");
  const agent = new Agent({ connect: { ca } });
  const origin = `https://127.0.0.1:${tlsPort}`;
  const deadline = Date.now() + 15_000;
  for (;;) {
    const up = await undiciFetch(`${origin}/api/health?probe=live`, { dispatcher: agent }).then(
      (r) => r.ok,
      () => false,
    );
    if (up) break;
    if (child.exitCode !== null || Date.now() > deadline)
      throw new Error(
        `nginx did not serve ${origin}:\n${output}\n${existsSync(errorLog) ? readFileSync(errorLog, "utf8") : ""}`,
      );
    await new Promise((r) => setTimeout(r, 100));
  }
  await agent.close();
  return {
    origin,
    plainOrigin: `http://127.0.0.1:${plainPort}`,
    ca,
    errors: () => (existsSync(errorLog) ? readFileSync(errorLog, "utf8") : ""),
    async close() {
      if (child.exitCode === null) child.kill("SIGQUIT");
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A fetch that trusts only the test's certificate: undici's own fetch over an Agent holding it, connecting from
 * `localAddress` when given (any 127.0.0.0/8 address is this machine). The stock clients hand it a Request (the
 * platform's), which it forwards field by field.
 */
function trustingFetch(ca: string, localAddress?: string): { fetch: typeof fetch; close(): Promise<void> } {
  const dispatcher = new Agent({ connect: { ca }, ...(localAddress ? { localAddress } : {}) });
  const tlsFetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    const body = request.body ? await request.arrayBuffer() : undefined;
    const res = await undiciFetch(request.url, {
      method: request.method,
      headers: [...request.headers],
      body,
      redirect: "manual",
      dispatcher,
    });
    return res as unknown as Response;
  };
  return { fetch: tlsFetch as typeof fetch, close: () => dispatcher.close() };
}

const evmKeys = Array.from({ length: 2 }, () => generatePrivateKey());
const agents = {
  solana: Array.from({ length: 4 }, () => generateKeypair()),
  evm: evmKeys.map((k) => privateKeyToAccount(k).address),
  usdcUnits: 50_000_000n,
};
const ipHashSalt = "proxy-test-ip-hash-salt-0123456789";
let stack: SoakStack;
let proxy: Proxy;
let tls: ReturnType<typeof trustingFetch>;

/** The operator key, handed to the service as docs/deploy.md does: a `signet keygen` file named by a _FILE variable. */
const operatorKey = generateKeypair();

beforeAll(async () => {
  const tlsPort = await freePort();
  const keyDir = mkdtempSync(path.join(tmpdir(), "signet-proxy-keys-"));
  writeFileSync(path.join(keyDir, "operator-key.json"), `${toSolanaCliJson(operatorKey)}\n`, { mode: 0o600 });
  stack = await startSoakStack({
    instances: 1,
    seed: 33,
    agents,
    faults: false,
    env: {
      SERVICE_BASE_URL: `https://127.0.0.1:${tlsPort}`,
      SERVICE_OPERATOR_SECRET_KEY: "",
      SERVICE_OPERATOR_SECRET_KEY_FILE: path.join(keyDir, "operator-key.json"),
      TRUSTED_PROXY_HOPS: "1",
      IP_HASH_SALT: ipHashSalt,
      LOCAL_MODEL_STREAM_DELAY_MS: String(TOKEN_DELAY_MS),
      PREPAID_IP_RATE_LIMIT_PER_MINUTE: "1200",
    },
  });
  proxy = await startNginx(Number(new URL(stack.instances[0]!.url).port), tlsPort);
  tls = trustingFetch(proxy.ca);
}, 600_000);
afterAll(async () => {
  await tls?.close();
  await proxy?.close();
  await stack?.close();
});

const chatBody = (network: string, content: string, extra: object = {}) => ({
  model: "local/echo-1",
  network,
  messages: [{ role: "user", content }],
  ...extra,
});
const postJson = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  tls.fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });

/** The stock @x402/fetch client of Solana agent `i` on both Solana networks, and EVM agent `j` on both Base networks. */
async function v2Client(i: number, j = 0): Promise<typeof fetch> {
  const kp = agents.solana[i]!;
  const signer = await createKeyPairSignerFromBytes(new Uint8Array([...kp.seed, ...kp.publicKey]));
  const client = new x402Client();
  client.register(
    "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1" as never,
    new ExactSvmScheme(signer, { rpcUrl: stack.devnet.url }),
  );
  client.register(
    "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp" as never,
    new ExactSvmScheme(signer, { rpcUrl: stack.mainnet.url }),
  );
  client.register("eip155:*", new ExactEvmScheme(privateKeyToAccount(evmKeys[j]!)));
  return wrapFetchWithPayment(tls.fetch, client);
}

const NETWORKS = FULL ? (["devnet", "mainnet", "base-sepolia", "base"] as const) : (["devnet"] as const);

describe("npm start behind Debian's nginx with TLS and its default proxy buffers", () => {
  it("answers every unpaid call with the 402, never nginx's 502, on every network and the top-up", async () => {
    for (const network of ["devnet", "mainnet", "base-sepolia", "base"]) {
      for (const stream of [false, true]) {
        const res = await postJson(
          `${proxy.origin}/api/v1/chat/completions`,
          chatBody(network, `unpaid on ${network}`, { stream }),
        );
        expect(res.status, `${network} stream=${stream}: ${await res.clone().text()}`).toBe(402);
        expect(res.headers.get("payment-required")).toBeTruthy();
        expect(((await res.json()) as { code: string }).code).toBe("payment_required");
      }
      const topUp = await postJson(`${proxy.origin}/api/v1/credits`, {
        amount_usdc: "0.01",
        network,
        agent_pubkey: agents.solana[3]!.publicKeyBase58,
      });
      expect(topUp.status, network).toBe(402);
    }
    expect(proxy.errors()).not.toMatch(/too big header/);
  });

  it("lets the stock x402 v2 client pay the chat route: one payment, a receipt naming its transaction", async () => {
    const pay = await v2Client(0);
    for (const network of NETWORKS) {
      const res = await pay(`${proxy.origin}/api/v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(chatBody(network, `v2 through nginx on ${network}`)),
      });
      expect(res.status, `${network}: ${await res.clone().text()}`).toBe(200);
      expect(res.headers.get("payment-response")).toBeTruthy();
      const receipt = parseReceiptText(res.headers.get("x-service-receipt")!);
      if (!receipt.ok) throw new Error(`${network}: the answer's receipt does not parse`);
      const settlement = JSON.parse(Buffer.from(res.headers.get("payment-response")!, "base64").toString("utf8")) as {
        transaction: string;
      };
      expect(receipt.receipt.payment).toMatchObject({ scheme: "x402", tx_signature: settlement.transaction });
      expect(
        await verifySignatureOnly({ receipt: receipt.receipt, operatorKey: operatorKey.publicKeyBase58 }),
      ).toMatchObject({ ok: true });
    }
    const paid = await stack.db.prisma.payment.count({ where: { status: "served" } });
    expect(paid).toBe(NETWORKS.length);
  });

  it("lets the stock x402 v1 client (x402-fetch 1.2.0) pay from the 402's body", async () => {
    const kp = agents.solana[1]!;
    const networks = FULL
      ? ([
          ["solana-devnet", stack.devnet.url],
          ["solana", stack.mainnet.url],
        ] as const)
      : ([["solana-devnet", stack.devnet.url]] as const);
    for (const [v1Network, rpcUrl] of networks) {
      const signer = await createV1Signer(v1Network, bs58.encode(new Uint8Array([...kp.seed, ...kp.publicKey])));
      const pay = wrapFetchWithPaymentV1(tls.fetch, signer, PRICE_UNITS, undefined, { svmConfig: { rpcUrl } });
      const network = v1Network === "solana" ? "mainnet" : "devnet";
      const res = await pay(`${proxy.origin}/api/v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(chatBody(network, `v1 through nginx on ${network}`)),
      });
      expect(res.status, `${v1Network}: ${await res.clone().text()}`).toBe(200);
      expect(decodeXPaymentResponse(res.headers.get("x-payment-response")!)).toMatchObject({
        success: true,
        payer: kp.publicKeyBase58,
      });
    }
    if (FULL) {
      for (const [v1Network, j] of [
        ["base-sepolia", 1],
        ["base", 1],
      ] as const) {
        const signer = await createV1Signer(v1Network, evmKeys[j]!);
        const pay = wrapFetchWithPaymentV1(tls.fetch, signer, PRICE_UNITS);
        const res = await pay(`${proxy.origin}/api/v1/chat/completions`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(chatBody(v1Network, `v1 through nginx on ${v1Network}`)),
        });
        expect(res.status, `${v1Network}: ${await res.clone().text()}`).toBe(200);
      }
    }
  });

  it("passes a paid stream's tokens as the model writes them, not in one piece at its end", async () => {
    const pay = await v2Client(2);
    const res = await pay(`${proxy.origin}/api/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(chatBody("devnet", "one two three four five six seven eight", { stream: true })),
    });
    expect(res.status).toBe(200);
    // Each chunk's arrival, as read from the socket: tee the body and time every piece.
    const [timed, whole] = res.body!.tee();
    const arrivals: number[] = [];
    const timing = (async () => {
      const reader = timed.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        if (new TextDecoder().decode(value).includes('"delta":{"content"')) arrivals.push(Date.now());
      }
    })();
    const answer = await readStreamedAnswer(whole);
    await timing;
    expect(answer.done).toBe(true);
    expect(answer.receipt).not.toBeNull();
    const tokens = answer.text.split(/\s+/).filter(Boolean).length;
    expect(tokens).toBeGreaterThan(15);
    // The model pauses TOKEN_DELAY_MS between tokens: unbuffered, the pieces arrive over about tokens × delay; a
    // buffering proxy hands them over at once, at the end.
    expect(arrivals.length).toBeGreaterThan(tokens / 2);
    expect(arrivals.at(-1)! - arrivals[0]!).toBeGreaterThan(((tokens - 1) * TOKEN_DELAY_MS) / 2);
  });

  it("counts a client's per-IP limit under the address nginx saw, whatever X-Forwarded-For the client sends", async () => {
    // Two clients on addresses other than nginx's own (127.0.0.1, from which it reaches the service): with
    // TRUSTED_PROXY_HOPS=0 both would count as 127.0.0.1; with 1, each counts as itself.
    const [first, second] = [trustingFetch(proxy.ca, "127.0.0.2"), trustingFetch(proxy.ca, "127.0.0.3")];
    try {
      const challenge = (client: typeof first, spoofed: string) =>
        client.fetch(`${proxy.origin}/api/v1/grants/challenge?agent_pubkey=${generateKeypair().publicKeyBase58}`, {
          headers: { "x-forwarded-for": spoofed },
        });
      const statuses: number[] = [];
      for (let i = 0; i < 11; i++) {
        const res = await challenge(first, `198.51.100.${i + 1}`);
        statuses.push(res.status);
        if (res.status === 429) expect(res.headers.get("retry-after")).toMatch(/^\d+$/);
      }
      expect(statuses).toEqual([...Array<number>(10).fill(200), 429]);
      // The second client has its own allowance, even naming the first client's address.
      expect((await challenge(second, "127.0.0.2")).status).toBe(200);
      const windows = await stack.db.prisma.$queryRaw<
        { ip_hash: string; count: number }[]
      >`SELECT ip_hash, count FROM ip_rate_limit_windows WHERE bucket = 'grant_challenge' ORDER BY count DESC`;
      expect(windows).toEqual([
        { ip_hash: hashIp("127.0.0.2", ipHashSalt), count: 11 },
        { ip_hash: hashIp("127.0.0.3", ipHashSalt), count: 1 },
      ]);
    } finally {
      await Promise.all([first.close(), second.close()]);
    }
  });

  it("speaks HTTP/2 to a client that asks for it, and redirects plain HTTP to HTTPS", async () => {
    const session = http2.connect(proxy.origin, { ca: proxy.ca });
    try {
      const status = await new Promise<number>((resolve, reject) => {
        const req = session.request({
          ":method": "POST",
          ":path": "/api/v1/chat/completions",
          "content-type": "application/json",
        });
        req.on("response", (headers) => resolve(Number(headers[":status"])));
        req.on("error", reject);
        req.end(JSON.stringify(chatBody("devnet", "over HTTP/2")));
      });
      expect(status).toBe(402);
    } finally {
      session.close();
    }
    const plain = await fetch(`${proxy.plainOrigin}/api/v1/models`, { redirect: "manual" });
    expect(plain.status).toBe(301);
    expect(plain.headers.get("location")).toBe(`https://127.0.0.1/api/v1/models`);
  });

  it("tops up through the proxy and serves a signed prepaid call, and takes a 1 MB body", async () => {
    const prepaidKey = agents.solana[3]!;
    const pay = await v2Client(3);
    const topUp = await pay(`${proxy.origin}/api/v1/credits`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ amount_usdc: "0.01", network: "devnet", agent_pubkey: prepaidKey.publicKeyBase58 }),
    });
    expect(topUp.status, await topUp.clone().text()).toBe(200);
    const url = `${proxy.origin}/api/v1/inference`;
    const text = JSON.stringify({
      model: "local/echo-1",
      prompt: "prepaid through nginx",
      nonce: newNonce(),
      timestamp: Date.now(),
      max_tokens: 32,
    });
    const res = await tls.fetch(url, {
      method: "POST",
      headers: signRequestHeaders(prepaidKey, "POST", url, text),
      body: text,
    });
    expect(res.status, await res.clone().text()).toBe(200);
    // The hosted verifier reads bodies up to 1,000,000 bytes: nginx passes the largest (its own default limit is
    // 1 MiB, headers aside), and the service, not nginx, refuses one byte more.
    const body = (length: number) => JSON.stringify({ receipt: "x".repeat(length - '{"receipt":""}'.length) });
    const largest = await tls.fetch(`${proxy.origin}/api/verify`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: body(1_000_000),
    });
    expect(largest.status, await largest.clone().text()).toBe(400);
    const over = await tls.fetch(`${proxy.origin}/api/verify`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: body(1_000_001),
    });
    expect(over.status).toBe(413);
    expect(((await over.json()) as { error: { code: string } }).error.code).toBe("payload_too_large");
  });
});
