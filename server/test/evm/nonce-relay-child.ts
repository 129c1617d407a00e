// One relaying instance for the cross-process nonce test: builds its own relayer signer (the facilitator's, or with
// NONCE_MODE=per-process the old in-process nonce manager) over its own viem client, relays the EIP-3009 transfers it
// is given all at once, and prints the transaction hashes (or errors) as one JSON line. With SWEEP_UNTIL_MINED=true it
// first sweeps its relay ledger (as the app's sweeper does) until every hash it got is mined, or for at most a minute.
import { randomBytes } from "node:crypto";
import {
  createPublicClient,
  createWalletClient,
  defineChain,
  http,
  parseSignature,
  publicActions,
  type Hex,
} from "viem";
import { nonceManager, privateKeyToAccount } from "viem/accounts";
import { authorizationTypes, eip3009ABI } from "@x402/evm";
import { createEvmRelaySigner } from "../../facilitator/create-evm-facilitator";
import { createPgNonceLock } from "../../facilitator/evm-nonce-lock";
import { createBackoffHttpTransport } from "../../facilitator/rpc-backoff";
import { openPostgres } from "../../db";
import { testSetting } from "../support/env";

const env = (name: string) => {
  const value = testSetting(name);
  if (!value) throw new Error(`${name} is required`);
  return value;
};
const url = env("RPC_URL");
const chainId = Number(env("CHAIN_ID"));
const usdc = env("USDC") as `0x${string}`;
const payer = privateKeyToAccount(env("PAYER_KEY") as `0x${string}`);
const count = Number(env("COUNT"));
const perProcess = testSetting("NONCE_MODE") === "per-process";

const chain = defineChain({
  id: chainId,
  name: "local",
  nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
  rpcUrls: { default: { http: [url] } },
});
const database = perProcess ? null : openPostgres(env("DATABASE_URL"), 2);
let sweep: (() => Promise<unknown>) | null = null;
const relay = perProcess
  ? (() => {
      const wallet = createWalletClient({
        account: privateKeyToAccount(env("RELAYER_KEY") as `0x${string}`, { nonceManager }),
        chain,
        transport: http(url),
      }).extend(publicActions);
      return (args: Parameters<typeof wallet.writeContract>[0]) => wallet.writeContract(args);
    })()
  : (() => {
      const signer = createEvmRelaySigner({
        account: privateKeyToAccount(env("RELAYER_KEY") as `0x${string}`),
        chain,
        transport: createBackoffHttpTransport(url, { network: `eip155:${chainId}` }),
        nonceLock: createPgNonceLock(async () => (await database!).prisma),
      });
      sweep = (signer as { sweep?: () => Promise<unknown> }).sweep ?? null;
      return (args: {
        address: `0x${string}`;
        abi: readonly unknown[];
        functionName: string;
        args: readonly unknown[];
      }) => signer.writeContract(args);
    })();

const now = BigInt(Math.floor(Date.now() / 1000));
const transfers = await Promise.all(
  Array.from({ length: count }, async (_, i) => {
    const message = {
      from: payer.address,
      to: env("PAY_TO") as `0x${string}`,
      value: BigInt(i + 1),
      validAfter: now - 600n,
      validBefore: now + 600n,
      nonce: `0x${randomBytes(32).toString("hex")}` as `0x${string}`,
    };
    const signature = await payer.signTypedData({
      domain: { name: env("TOKEN_NAME"), version: env("TOKEN_VERSION"), chainId, verifyingContract: usdc },
      types: authorizationTypes,
      primaryType: "TransferWithAuthorization",
      message,
    });
    const { v, r, s, yParity } = parseSignature(signature);
    return [
      message.from,
      message.to,
      message.value,
      message.validAfter,
      message.validBefore,
      message.nonce,
      Number(v ?? BigInt(yParity + 27)),
      r,
      s,
    ] as const;
  }),
);
const results = await Promise.all(
  transfers.map((args) =>
    relay({ address: usdc, abi: eip3009ABI, functionName: "transferWithAuthorization", args } as never).then(
      (hash) => ({ hash }),
      (err: unknown) => ({ error: String((err as { shortMessage?: string }).shortMessage ?? err).slice(0, 200) }),
    ),
  ),
);
if (testSetting("SWEEP_UNTIL_MINED") === "true") {
  const reader = createPublicClient({ chain, transport: http(url) });
  const unmined = new Set(results.flatMap((r) => ("hash" in r ? [r.hash as Hex] : [])));
  const end = Date.now() + 60_000;
  while (unmined.size > 0 && Date.now() < end) {
    await sweep?.().catch(() => undefined);
    for (const hash of [...unmined])
      if (await reader.getTransactionReceipt({ hash }).catch(() => null)) unmined.delete(hash);
    await new Promise((r) => setTimeout(r, 1_000));
  }
}
process.stdout.write(`${JSON.stringify(results)}\n`);
if (database) await (await database).close();
