// The local EVM chain on a real anvil: the planted EIP-3009 test USDC under real signatures (what moves, what is
// refused and why), and the stock x402 EVM client, resource server and facilitator paying and settling on it.
import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createPublicClient,
  createWalletClient,
  defineChain,
  hashDomain,
  http,
  numberToHex,
  parseEventLogs,
  parseSignature,
  publicActions,
  serializeSignature,
  toHex,
  type Hex,
  type PrivateKeyAccount,
} from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { x402Client } from "@x402/core/client";
import { x402Facilitator } from "@x402/core/facilitator";
import { x402ResourceServer, type FacilitatorClient } from "@x402/core/server";
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import { toFacilitatorEvmSigner } from "@x402/evm";
import { ExactEvmScheme as ExactEvmClientScheme } from "@x402/evm/exact/client";
import { ExactEvmScheme as ExactEvmFacilitatorScheme } from "@x402/evm/exact/facilitator";
import { ExactEvmScheme as ExactEvmServerScheme } from "@x402/evm/exact/server";
import { EIP3009_USDC_ABI, USDC_BY_EVM_CHAIN, startLocalEvmChain, type LocalEvmChain } from "../../../devtools/anvil";

const SEPOLIA = USDC_BY_EVM_CHAIN[84532]!;
const SEPOLIA_CAIP2 = "eip155:84532";
/** secp256k1's group order: n - s is the high-s twin of a signature (EIP-2). */
const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const ONE_ETH = 10n ** 18n;

const AUTHORIZATION_TYPES = {
  TransferWithAuthorization: [
    { name: "from", type: "address" },
    { name: "to", type: "address" },
    { name: "value", type: "uint256" },
    { name: "validAfter", type: "uint256" },
    { name: "validBefore", type: "uint256" },
    { name: "nonce", type: "bytes32" },
  ],
} as const;
const RECEIVE_TYPES = { ReceiveWithAuthorization: AUTHORIZATION_TYPES.TransferWithAuthorization } as const;

interface Authorization {
  from: `0x${string}`;
  to: `0x${string}`;
  value: bigint;
  validAfter: bigint;
  validBefore: bigint;
  nonce: Hex;
}

let chain: LocalEvmChain;
let client: ReturnType<typeof clientsFor>;

function clientsFor(c: LocalEvmChain) {
  const viemChain = defineChain({
    id: c.chainId,
    name: "local",
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [c.url] } },
  });
  return {
    chain: viemChain,
    public: createPublicClient({ chain: viemChain, transport: http(c.url), pollingInterval: 50 }),
    wallet: (account: PrivateKeyAccount) =>
      createWalletClient({ account, chain: viemChain, transport: http(c.url), pollingInterval: 50 }).extend(
        publicActions,
      ),
  };
}

const newAccount = () => privateKeyToAccount(generatePrivateKey());
const randomNonce = (): Hex => toHex(randomBytes(32));

async function latestTimestamp(): Promise<bigint> {
  return (await client.public.getBlock()).timestamp;
}

/** An authorization valid from now for an hour, with a fresh nonce. */
async function authorization(from: `0x${string}`, to: `0x${string}`, value: bigint): Promise<Authorization> {
  const now = await latestTimestamp();
  return { from, to, value, validAfter: now - 60n, validBefore: now + 3600n, nonce: randomNonce() };
}

function sign(
  signer: PrivateKeyAccount,
  auth: Authorization,
  primaryType: "TransferWithAuthorization" | "ReceiveWithAuthorization" = "TransferWithAuthorization",
): Promise<Hex> {
  const domain = {
    name: SEPOLIA.name,
    version: SEPOLIA.version,
    chainId: chain.chainId,
    verifyingContract: chain.usdc,
  };
  return primaryType === "TransferWithAuthorization"
    ? signer.signTypedData({ domain, types: AUTHORIZATION_TYPES, primaryType, message: auth })
    : signer.signTypedData({ domain, types: RECEIVE_TYPES, primaryType, message: auth });
}

function argsOf(auth: Authorization, signature: Hex, form: "vrs" | "bytes"): readonly unknown[] {
  const head = [auth.from, auth.to, auth.value, auth.validAfter, auth.validBefore, auth.nonce];
  if (form === "bytes") return [...head, signature];
  const { v, r, s } = parseSignature(signature);
  return [...head, Number(v), r, s];
}

/** Sends a token call from `sender` and returns the mined receipt (reverted ones included). */
async function send(sender: PrivateKeyAccount, functionName: string, args: readonly unknown[], gas?: bigint) {
  const wallet = client.wallet(sender);
  const hash = await wallet.writeContract({ address: chain.usdc, abi: EIP3009_USDC_ABI, functionName, args, gas });
  return wallet.waitForTransactionReceipt({ hash });
}

async function read<T>(functionName: string, args: readonly unknown[] = []): Promise<T> {
  return (await client.public.readContract({ address: chain.usdc, abi: EIP3009_USDC_ABI, functionName, args })) as T;
}

/**
 * A refused authorization: the call reverts with `reason`, and when mined anyway (fixed gas skips viem's estimate) it
 * fails on chain and leaves both balances and the nonce untouched.
 */
async function expectRefused(
  sender: PrivateKeyAccount,
  functionName: string,
  auth: Authorization,
  args: readonly unknown[],
  reason: string,
) {
  const state = async () => [
    await chain.usdcBalance(auth.from),
    await chain.usdcBalance(auth.to),
    await read("authorizationState", [auth.from, auth.nonce]),
  ];
  const before = await state();
  await expect(
    client.public.simulateContract({ account: sender, address: chain.usdc, abi: EIP3009_USDC_ABI, functionName, args }),
  ).rejects.toThrow(reason);
  const receipt = await send(sender, functionName, args, 300_000n);
  expect(receipt.status).toBe("reverted");
  expect(await state()).toEqual(before);
}

beforeAll(async () => {
  // Automine, asked for: these pin the token's rules over ~40 transactions one after another (2 s blocks would add a
  // minute and test nothing more); anvil-timing and base-payments run Base's interval.
  chain = await startLocalEvmChain({
    chainId: 84532,
    usdc: SEPOLIA.address,
    name: SEPOLIA.name,
    version: SEPOLIA.version,
    blockTimeSec: 0,
  });
  client = clientsFor(chain);
});
afterAll(async () => chain?.close());

describe("startLocalEvmChain()", () => {
  it("plants a token at Base Sepolia's USDC address that answers the USDC, version 2 domain with 6 decimals", async () => {
    expect(chain.usdc).toBe(SEPOLIA.address);
    expect(await client.public.getChainId()).toBe(84532);
    const [fields, name, version, chainId, verifyingContract] =
      await read<readonly [Hex, string, string, bigint, string]>("eip712Domain");
    expect({ fields, name, version, chainId, verifyingContract }).toEqual({
      fields: "0x0f",
      name: "USDC",
      version: "2",
      chainId: 84532n,
      verifyingContract: SEPOLIA.address,
    });
    expect(await read("name")).toBe("USDC");
    expect(await read("version")).toBe("2");
    expect(await read("symbol")).toBe("USDC");
    expect(await read("decimals")).toBe(6);
  });

  it("computes the domain separator from the stored name and version, the chain id and the token's address", async () => {
    const expected = hashDomain({
      domain: { name: "USDC", version: "2", chainId: 84532n, verifyingContract: SEPOLIA.address },
      types: {
        EIP712Domain: [
          { name: "name", type: "string" },
          { name: "version", type: "string" },
          { name: "chainId", type: "uint256" },
          { name: "verifyingContract", type: "address" },
        ],
      },
    });
    expect(await read("DOMAIN_SEPARATOR")).toBe(expected);
  });

  it("plays Base with the USD Coin domain on a second chain", async () => {
    const base = USDC_BY_EVM_CHAIN[8453]!;
    const mainnet = await startLocalEvmChain({
      chainId: 8453,
      usdc: base.address,
      name: base.name,
      version: base.version,
      blockTimeSec: 0,
    });
    try {
      const c = clientsFor(mainnet);
      expect(await c.public.getChainId()).toBe(8453);
      const [, name, version, chainId, verifyingContract] = (await c.public.readContract({
        address: mainnet.usdc,
        abi: EIP3009_USDC_ABI,
        functionName: "eip712Domain",
      })) as readonly unknown[];
      expect({ name, version, chainId, verifyingContract }).toEqual({
        name: "USD Coin",
        version: "2",
        chainId: 8453n,
        verifyingContract: base.address,
      });
    } finally {
      await mainnet.close();
    }
  });

  it("funds an address with token units and ether", async () => {
    const who = newAccount().address;
    await chain.fund(who, { usdcUnits: 2_500_000n, wei: ONE_ETH });
    await chain.fund(who, { usdcUnits: 500_000n, wei: ONE_ETH });
    expect(await chain.usdcBalance(who)).toBe(3_000_000n);
    expect(await client.public.getBalance({ address: who })).toBe(2n * ONE_ETH);
  });

  it("refuses a second initialize and a mint by anyone but the minter", async () => {
    const stranger = newAccount();
    await expect(
      client.public.simulateContract({
        account: stranger,
        address: chain.usdc,
        abi: EIP3009_USDC_ABI,
        functionName: "initialize",
        args: ["Evil", "9", stranger.address],
      }),
    ).rejects.toThrow("already initialized");
    await expect(
      client.public.simulateContract({
        account: stranger,
        address: chain.usdc,
        abi: EIP3009_USDC_ABI,
        functionName: "mint",
        args: [stranger.address, 1n],
      }),
    ).rejects.toThrow("caller is not a minter");
  });

  it("rejects malformed input", async () => {
    // Any positive chain id is a network a row may describe (the caller names the token to plant); nothing else is.
    for (const chainId of [0, -84532, 84532.5, Number.NaN, 2 ** 53]) {
      await expect(startLocalEvmChain({ chainId, usdc: SEPOLIA.address, name: "USDC", version: "2" })).rejects.toThrow(
        "chainId must be a positive whole number",
      );
    }
    await expect(
      startLocalEvmChain({ chainId: 84532, usdc: "0x1234" as `0x${string}`, name: "USDC", version: "2" }),
    ).rejects.toThrow("not an address");
    await expect(startLocalEvmChain({ chainId: 84532, usdc: SEPOLIA.address, name: "", version: "2" })).rejects.toThrow(
      "name and version",
    );
    await expect(chain.fund(newAccount().address, { usdcUnits: -1n })).rejects.toThrow("negative");
    await expect(chain.fund("0xnope" as `0x${string}`, { wei: 1n })).rejects.toThrow("not an address");
  });

  it("stops anvil on close(), so its port no longer answers, and a second close() is harmless", async () => {
    const other = await startLocalEvmChain({
      chainId: 84532,
      usdc: SEPOLIA.address,
      name: SEPOLIA.name,
      version: SEPOLIA.version,
      blockTimeSec: 0,
    });
    expect(await clientsFor(other).public.getChainId()).toBe(84532);
    await other.close();
    await expect(fetch(other.url, { method: "POST", body: "{}" })).rejects.toThrow();
    await other.close();
  });

  it("with a state file, keeps balances and old transaction receipts across a restart, and does not initialize twice", async () => {
    const stateFile = path.join(mkdtempSync(path.join(os.tmpdir(), "signet-anvil-")), "anvil-84532.json");
    const start = () =>
      startLocalEvmChain({
        chainId: 84532,
        usdc: SEPOLIA.address,
        name: SEPOLIA.name,
        version: SEPOLIA.version,
        stateFile,
        blockTimeSec: 0,
      });
    const holder = privateKeyToAccount(generatePrivateKey()).address;
    const first = await start();
    await first.fund(holder, { usdcUnits: 1_234_567n });
    const firstClients = clientsFor(first);
    const block = await firstClients.public.getBlock({ blockTag: "latest", includeTransactions: true });
    const lastTx = block.transactions[0]!.hash;
    await first.close();

    const second = await start();
    try {
      expect(await second.usdcBalance(holder)).toBe(1_234_567n);
      const receipt = await clientsFor(second).public.getTransactionReceipt({ hash: lastTx });
      expect(receipt.status).toBe("success");
      // The restored token keeps its domain; minting still works after the restart.
      await second.fund(holder, { usdcUnits: 1n });
      expect(await second.usdcBalance(holder)).toBe(1_234_568n);
    } finally {
      await second.close();
    }
  });

  it("runs the token built from the committed Solidity source", () => {
    const dir = path.join(import.meta.dirname, "..", "..", "..", "devtools", "anvil");
    for (const [sol, json] of [
      ["Eip3009Usdc.sol", "eip3009-usdc.artifact.json"],
      ["Multicall3.sol", "multicall3.artifact.json"],
    ] as const) {
      const artifact = JSON.parse(readFileSync(path.join(dir, json), "utf8")) as {
        sourceSha256: string;
        compiler: string;
      };
      const sha = createHash("sha256")
        .update(readFileSync(path.join(dir, "contracts", sol)))
        .digest("hex");
      // A mismatch means the .sol changed without `npm run build:test-token`.
      expect({ sol, sha }).toEqual({ sol, sha: artifact.sourceSha256 });
      expect(artifact.compiler).toBe("solc-js 0.8.37");
    }
  });
});

describe("Eip3009Usdc", () => {
  let payer: PrivateKeyAccount;
  let relayer: PrivateKeyAccount;
  let payee: `0x${string}`;

  beforeAll(async () => {
    payer = newAccount();
    relayer = newAccount();
    payee = newAccount().address;
    // The payer holds no ether: the relayer pays the gas, as an x402 facilitator does.
    await chain.fund(payer.address, { usdcUnits: 10_000_000n });
    await chain.fund(relayer.address, { wei: ONE_ETH });
  });

  describe("transferWithAuthorization()", () => {
    for (const form of ["vrs", "bytes"] as const) {
      it(`moves exactly the signed value when a relayer submits the ${form === "vrs" ? "v, r, s" : "bytes signature"} form`, async () => {
        const auth = await authorization(payer.address, payee, 1_234n);
        const signature = await sign(payer, auth);
        const [payerBefore, payeeBefore] = [await chain.usdcBalance(payer.address), await chain.usdcBalance(payee)];
        expect(await read("authorizationState", [payer.address, auth.nonce])).toBe(false);

        const receipt = await send(relayer, "transferWithAuthorization", argsOf(auth, signature, form));

        expect(receipt.status).toBe("success");
        expect(await chain.usdcBalance(payer.address)).toBe(payerBefore - 1_234n);
        expect(await chain.usdcBalance(payee)).toBe(payeeBefore + 1_234n);
        expect(await read("authorizationState", [payer.address, auth.nonce])).toBe(true);
        const logs = parseEventLogs({ abi: EIP3009_USDC_ABI, logs: receipt.logs }) as unknown as {
          eventName: string;
          address: string;
          args: Record<string, unknown>;
        }[];
        expect(logs.map((l) => l.eventName)).toEqual(["AuthorizationUsed", "Transfer"]);
        expect(logs[0]!.args).toEqual({ authorizer: payer.address, nonce: auth.nonce });
        expect(logs[1]!.address.toLowerCase()).toBe(chain.usdc.toLowerCase());
        expect(logs[1]!.args).toEqual({ from: payer.address, to: payee, value: 1_234n });
      });
    }

    it("refuses a nonce that was already used", async () => {
      const auth = await authorization(payer.address, payee, 10n);
      const signature = await sign(payer, auth);
      expect((await send(relayer, "transferWithAuthorization", argsOf(auth, signature, "vrs"))).status).toBe("success");
      await expectRefused(
        relayer,
        "transferWithAuthorization",
        auth,
        argsOf(auth, signature, "bytes"),
        "FiatTokenV2: authorization is used or canceled",
      );
    });

    it("refuses an expired authorization", async () => {
      const auth = { ...(await authorization(payer.address, payee, 10n)), validBefore: await latestTimestamp() };
      await expectRefused(
        relayer,
        "transferWithAuthorization",
        auth,
        argsOf(auth, await sign(payer, auth), "vrs"),
        "FiatTokenV2: authorization is expired",
      );
    });

    it("refuses an authorization that is not yet valid", async () => {
      const auth = {
        ...(await authorization(payer.address, payee, 10n)),
        validAfter: (await latestTimestamp()) + 3600n,
      };
      await expectRefused(
        relayer,
        "transferWithAuthorization",
        auth,
        argsOf(auth, await sign(payer, auth), "vrs"),
        "FiatTokenV2: authorization is not yet valid",
      );
    });

    it("refuses a signature by someone other than the payer", async () => {
      const auth = await authorization(payer.address, payee, 10n);
      await expectRefused(
        relayer,
        "transferWithAuthorization",
        auth,
        argsOf(auth, await sign(newAccount(), auth), "bytes"),
        "FiatTokenV2: invalid signature",
      );
    });

    it("refuses a transfer larger than the payer's balance", async () => {
      const auth = await authorization(payer.address, payee, (await chain.usdcBalance(payer.address)) + 1n);
      await expectRefused(
        relayer,
        "transferWithAuthorization",
        auth,
        argsOf(auth, await sign(payer, auth), "vrs"),
        "ERC20: transfer amount exceeds balance",
      );
    });

    it("refuses an authorization whose value was altered after signing", async () => {
      const auth = await authorization(payer.address, payee, 10n);
      const signature = await sign(payer, auth);
      const altered = { ...auth, value: 10_000n };
      await expectRefused(
        relayer,
        "transferWithAuthorization",
        altered,
        argsOf(altered, signature, "vrs"),
        "FiatTokenV2: invalid signature",
      );
    });

    it("refuses the high-s twin of a valid signature, and a v other than 27 or 28", async () => {
      const auth = await authorization(payer.address, payee, 10n);
      const { r, s, v } = parseSignature(await sign(payer, auth));
      const twin = serializeSignature({
        r,
        s: numberToHex(SECP256K1_N - BigInt(s), { size: 32 }),
        v: v === 27n ? 28n : 27n,
      });
      await expectRefused(
        relayer,
        "transferWithAuthorization",
        auth,
        argsOf(auth, twin, "bytes"),
        "invalid signature 's' value",
      );
      const head = argsOf(auth, twin, "vrs").slice(0, 6);
      await expectRefused(
        relayer,
        "transferWithAuthorization",
        auth,
        [...head, 29, r, s],
        "invalid signature 'v' value",
      );
    });
  });

  describe("receiveWithAuthorization()", () => {
    it("lets only the payee submit it, in both forms", async () => {
      const payeeAccount = newAccount();
      await chain.fund(payeeAccount.address, { wei: ONE_ETH });
      for (const form of ["vrs", "bytes"] as const) {
        const auth = await authorization(payer.address, payeeAccount.address, 77n);
        const signature = await sign(payer, auth, "ReceiveWithAuthorization");
        await expectRefused(
          relayer,
          "receiveWithAuthorization",
          auth,
          argsOf(auth, signature, form),
          "FiatTokenV2: caller must be the payee",
        );
        const before = await chain.usdcBalance(payeeAccount.address);
        expect((await send(payeeAccount, "receiveWithAuthorization", argsOf(auth, signature, form))).status).toBe(
          "success",
        );
        expect(await chain.usdcBalance(payeeAccount.address)).toBe(before + 77n);
      }
    });

    it("does not take a TransferWithAuthorization signature for it", async () => {
      const payeeAccount = newAccount();
      await chain.fund(payeeAccount.address, { wei: ONE_ETH });
      const auth = await authorization(payer.address, payeeAccount.address, 5n);
      await expectRefused(
        payeeAccount,
        "receiveWithAuthorization",
        auth,
        argsOf(auth, await sign(payer, auth), "vrs"),
        "FiatTokenV2: invalid signature",
      );
    });
  });
});

describe("x402 exact EVM scheme on the local chain", () => {
  let facilitator: x402Facilitator;
  let server: x402ResourceServer;
  let agent: PrivateKeyAccount;
  let facilitatorAccount: PrivateKeyAccount;
  let payTo: `0x${string}`;

  beforeAll(async () => {
    agent = newAccount();
    facilitatorAccount = newAccount();
    payTo = newAccount().address;
    await chain.fund(agent.address, { usdcUnits: 5_000n });
    await chain.fund(facilitatorAccount.address, { wei: ONE_ETH });

    // Built as the service builds it (server/facilitator/create-evm-facilitator.ts): a viem wallet client with public
    // actions, default polling, wrapped by toFacilitatorEvmSigner.
    const wallet = createWalletClient({
      account: facilitatorAccount,
      chain: client.chain,
      transport: http(chain.url),
    }).extend(publicActions);
    // The cast bridges viem's overloaded action types and x402's structural signer type, as the service does.
    const signer = toFacilitatorEvmSigner({ ...wallet, address: facilitatorAccount.address } as never);
    facilitator = new x402Facilitator().register(SEPOLIA_CAIP2, new ExactEvmFacilitatorScheme(signer));

    const inProcess: FacilitatorClient = {
      verify: (p, r) => facilitator.verify(p, r),
      settle: (p, r) => facilitator.settle(p, r),
      getSupported: async () => facilitator.getSupported() as Awaited<ReturnType<FacilitatorClient["getSupported"]>>,
    };
    server = new x402ResourceServer(inProcess).register(SEPOLIA_CAIP2, new ExactEvmServerScheme());
    await server.initialize();
  });

  async function requirementsAndPayload(
    amount: string,
  ): Promise<{ requirements: PaymentRequirements; payload: PaymentPayload }> {
    const [requirements] = await server.buildPaymentRequirements({
      scheme: "exact",
      network: SEPOLIA_CAIP2,
      payTo,
      // An explicit asset amount carries no EIP-712 domain of its own: `extra` must name it, or the client cannot sign.
      price: { amount, asset: SEPOLIA.address, extra: { name: SEPOLIA.name, version: SEPOLIA.version } },
      maxTimeoutSeconds: 120,
    });
    const paymentRequired = await server.createPaymentRequiredResponse([requirements!], {
      url: "http://127.0.0.1/paid",
      description: "test",
      mimeType: "application/json",
    });
    const payer = new x402Client().register(SEPOLIA_CAIP2, new ExactEvmClientScheme(agent));
    return { requirements: requirements!, payload: await payer.createPaymentPayload(paymentRequired) };
  }

  it("verifies and settles a 1000-unit payment signed by the stock client", async () => {
    const { requirements, payload } = await requirementsAndPayload("1000");
    expect(requirements).toMatchObject({
      asset: SEPOLIA.address,
      amount: "1000",
      extra: { name: "USDC", version: "2" },
    });
    const [agentBefore, payToBefore] = [await chain.usdcBalance(agent.address), await chain.usdcBalance(payTo)];

    const verified = await facilitator.verify(payload, requirements);
    expect(verified).toMatchObject({ isValid: true, payer: agent.address });

    const settled = await facilitator.settle(payload, requirements);
    expect(settled).toMatchObject({ success: true, network: SEPOLIA_CAIP2, payer: agent.address });
    expect(settled.transaction).toMatch(/^0x[0-9a-f]{64}$/);

    expect(await chain.usdcBalance(agent.address)).toBe(agentBefore - 1000n);
    expect(await chain.usdcBalance(payTo)).toBe(payToBefore + 1000n);
    const receipt = (await fetch(chain.url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "eth_getTransactionReceipt",
        params: [settled.transaction],
      }),
    }).then((r) => r.json())) as { result: { status: string; from: string; to: string } };
    expect(receipt.result).toMatchObject({
      status: "0x1",
      from: facilitatorAccount.address.toLowerCase(),
      to: SEPOLIA.address.toLowerCase(),
    });

    // Settled once: the same payload again is named as a reused nonce (Multicall3 lets the facilitator say why).
    expect(await facilitator.verify(payload, requirements)).toMatchObject({
      isValid: false,
      invalidReason: "invalid_exact_evm_nonce_already_used",
    });
    const again = await facilitator.settle(payload, requirements);
    expect(again).toMatchObject({
      success: false,
      errorReason: "invalid_exact_evm_nonce_already_used",
      transaction: "",
    });
    expect(await chain.usdcBalance(payTo)).toBe(payToBefore + 1000n);
  });

  it("names an unaffordable payment on verify and moves nothing", async () => {
    const { requirements, payload } = await requirementsAndPayload("1000000");
    const verified = await facilitator.verify(payload, requirements);
    expect(verified).toMatchObject({
      isValid: false,
      invalidReason: "invalid_exact_evm_insufficient_balance",
      payer: agent.address,
    });
  });
});
