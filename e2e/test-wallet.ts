// A Wallet Standard wallet injected into the page: it registers itself the way real wallets do, and its
// `solana:signMessage` and `solana:signTransaction` really sign, with a keypair held by the test process (exposed as a
// page binding). It can be told to decline transactions, as a person pressing Reject does.
import { createHash } from "node:crypto";
import type { Page } from "@playwright/test";
import { ed25519 } from "@noble/curves/ed25519.js";
import { keypairFromBytes, generateKeypair, type Ed25519Keypair } from "../server/keys/parse-secret-key";

/** The e2e operator: a fixed, test-only key (the e2e server lists it in SERVICE_OPERATOR_PUBKEYS). */
export const E2E_OPERATOR: Ed25519Keypair = keypairFromBytes(
  createHash("sha256").update("signet-e2e-operator (test only)").digest(),
);

export function freshKeypair(): Ed25519Keypair {
  return generateKeypair();
}

export interface TestWalletOptions {
  /** Decline every transaction as a person would (the wallet throws "User rejected the request."). */
  rejectTransactions?: boolean;
  /** The chains the account lists (default: devnet and mainnet). */
  chains?: string[];
}

/** Installs the wallet for `keypair` before any page script runs. */
export async function installTestWallet(
  page: Page,
  keypair: Ed25519Keypair,
  options: TestWalletOptions = {},
): Promise<void> {
  await page.exposeFunction("__signetTestSign", (message: number[]) =>
    Array.from(ed25519.sign(Uint8Array.from(message), keypair.seed)),
  );
  await page.addInitScript(
    ({ address, publicKey, rejectTransactions, chains }) => {
      type Listener = (props: unknown) => void;
      const listeners: Record<string, Listener[]> = {};
      const account = {
        address,
        publicKey: new Uint8Array(publicKey),
        chains,
        features: ["solana:signMessage", "solana:signTransaction"],
        label: "Signet test wallet",
      };
      const wallet = {
        version: "1.0.0",
        name: "Signet Test Wallet",
        icon: "data:image/svg+xml;base64,PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciIHdpZHRoPSIxIiBoZWlnaHQ9IjEiLz4=",
        chains,
        accounts: [] as unknown[],
        features: {
          "standard:connect": {
            version: "1.0.0",
            connect: async () => {
              wallet.accounts = [account];
              for (const l of listeners.change ?? []) l({ accounts: wallet.accounts });
              return { accounts: wallet.accounts };
            },
          },
          "standard:disconnect": {
            version: "1.0.0",
            disconnect: async () => {
              wallet.accounts = [];
              for (const l of listeners.change ?? []) l({ accounts: [] });
            },
          },
          "standard:events": {
            version: "1.0.0",
            on: (event: string, listener: Listener) => {
              (listeners[event] ??= []).push(listener);
              return () => {
                listeners[event] = (listeners[event] ?? []).filter((l) => l !== listener);
              };
            },
          },
          "solana:signMessage": {
            version: "1.0.0",
            signMessage: async (...inputs: { message: Uint8Array }[]) =>
              Promise.all(
                inputs.map(async ({ message }) => {
                  const sign = (window as unknown as { __signetTestSign: (m: number[]) => Promise<number[]> })
                    .__signetTestSign;
                  return { signedMessage: message, signature: new Uint8Array(await sign(Array.from(message))) };
                }),
              ),
          },
          "solana:signTransaction": {
            version: "1.0.0",
            supportedTransactionVersions: ["legacy", 0],
            // Signs the wire transaction's message in the account's signer slot, as a wallet does; leaves the rest as is.
            signTransaction: async (...inputs: { transaction: Uint8Array }[]) =>
              Promise.all(
                inputs.map(async ({ transaction }) => {
                  if (rejectTransactions) throw Object.assign(new Error("User rejected the request."), { code: 4001 });
                  const readLength = (bytes: Uint8Array, at: number): [number, number] => {
                    let value = 0;
                    for (let i = 0; i < 3; i++) {
                      const byte = bytes[at + i]!;
                      value |= (byte & 0x7f) << (7 * i);
                      if ((byte & 0x80) === 0) return [value, at + i + 1];
                    }
                    throw new Error("bad compact-u16");
                  };
                  const [signatureCount, signaturesAt] = readLength(transaction, 0);
                  const messageAt = signaturesAt + 64 * signatureCount;
                  const message = transaction.slice(messageAt);
                  // A v0 message starts with 0x80 | version; a legacy one with its header.
                  const headerAt = (message[0]! & 0x80) !== 0 ? 1 : 0;
                  const requiredSigners = message[headerAt]!;
                  const [, keysAt] = readLength(message, headerAt + 3);
                  let slot = -1;
                  for (let i = 0; i < requiredSigners; i++) {
                    const key = message.slice(keysAt + 32 * i, keysAt + 32 * (i + 1));
                    if (key.every((b, j) => b === publicKey[j])) slot = i;
                  }
                  if (slot < 0) throw new Error("this transaction needs no signature from this wallet");
                  const sign = (window as unknown as { __signetTestSign: (m: number[]) => Promise<number[]> })
                    .__signetTestSign;
                  const signature = new Uint8Array(await sign(Array.from(message)));
                  const signed = transaction.slice();
                  signed.set(signature, signaturesAt + 64 * slot);
                  return { signedTransaction: signed };
                }),
              ),
          },
        },
      };
      const callback = ({ register }: { register: (w: unknown) => void }) => register(wallet);
      window.addEventListener("wallet-standard:app-ready", (event) => callback((event as CustomEvent).detail));
      window.dispatchEvent(new CustomEvent("wallet-standard:register-wallet", { detail: callback }));
    },
    {
      address: keypair.publicKeyBase58,
      publicKey: Array.from(keypair.publicKey),
      rejectTransactions: options.rejectTransactions ?? false,
      chains: options.chains ?? ["solana:devnet", "solana:mainnet"],
    },
  );
}

/**
 * Connects through the real wallet adapter UI: the multi-button ("Select Wallet"), its modal, our wallet, then the
 * button's "Connect" (the provider does not auto-connect). Done when the button shows the shortened address.
 */
export async function connectWallet(page: Page, keypair: Ed25519Keypair): Promise<void> {
  const button = page.locator(".wallet-adapter-button-trigger");
  await button.filter({ hasText: /select wallet/i }).click();
  await page
    .locator(".wallet-adapter-modal-list")
    .getByRole("button", { name: /Signet Test Wallet/ })
    .click();
  await button.filter({ hasText: /^connect$/i }).click();
  const address = keypair.publicKeyBase58;
  await button.filter({ hasText: `${address.slice(0, 4)}..${address.slice(-4)}` }).waitFor();
}
