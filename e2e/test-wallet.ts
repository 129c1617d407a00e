// A Wallet Standard wallet injected into the page: it registers itself the way real wallets do, and its
// `solana:signMessage` really signs, with a keypair held by the test process (exposed as a page binding).
import { createHash } from "node:crypto";
import type { Page } from "@playwright/test";
import { ed25519 } from "@noble/curves/ed25519.js";
import { keypairFromBytes, generateKeypair, type Ed25519Keypair } from "../server/keys/parse-secret-key";

/** The e2e operator: a fixed, test-only key (the e2e server lists it in SERVICE_OPERATOR_PUBKEYS). */
export const E2E_OPERATOR: Ed25519Keypair = keypairFromBytes(createHash("sha256").update("signet-e2e-operator (test only)").digest());

export function freshKeypair(): Ed25519Keypair {
  return generateKeypair();
}

/** Installs the wallet for `keypair` before any page script runs. */
export async function installTestWallet(page: Page, keypair: Ed25519Keypair): Promise<void> {
  await page.exposeFunction("__signetTestSign", (message: number[]) => Array.from(ed25519.sign(Uint8Array.from(message), keypair.seed)));
  await page.addInitScript(
    ({ address, publicKey }) => {
      type Listener = (props: unknown) => void;
      const listeners: Record<string, Listener[]> = {};
      const account = {
        address,
        publicKey: new Uint8Array(publicKey),
        chains: ["solana:devnet", "solana:mainnet"],
        features: ["solana:signMessage", "solana:signTransaction"],
        label: "Signet test wallet",
      };
      const wallet = {
        version: "1.0.0",
        name: "Signet Test Wallet",
        icon: "data:image/svg+xml;base64,PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciIHdpZHRoPSIxIiBoZWlnaHQ9IjEiLz4=",
        chains: ["solana:devnet", "solana:mainnet"],
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
                  const sign = (window as unknown as { __signetTestSign: (m: number[]) => Promise<number[]> }).__signetTestSign;
                  return { signedMessage: message, signature: new Uint8Array(await sign(Array.from(message))) };
                }),
              ),
          },
          "solana:signTransaction": {
            version: "1.0.0",
            supportedTransactionVersions: ["legacy", 0],
            signTransaction: async () => {
              throw new Error("the test wallet signs messages only");
            },
          },
        },
      };
      const callback = ({ register }: { register: (w: unknown) => void }) => register(wallet);
      window.addEventListener("wallet-standard:app-ready", (event) => callback((event as CustomEvent).detail));
      window.dispatchEvent(new CustomEvent("wallet-standard:register-wallet", { detail: callback }));
    },
    { address: keypair.publicKeyBase58, publicKey: Array.from(keypair.publicKey) },
  );
}

/**
 * Connects through the real wallet adapter UI: the multi-button ("Select Wallet"), its modal, our wallet, then the
 * button's "Connect" (the provider does not auto-connect). Done when the button shows the shortened address.
 */
export async function connectWallet(page: Page, keypair: Ed25519Keypair): Promise<void> {
  const button = page.locator(".wallet-adapter-button-trigger");
  await button.filter({ hasText: /select wallet/i }).click();
  await page.locator(".wallet-adapter-modal-list").getByRole("button", { name: /Signet Test Wallet/ }).click();
  await button.filter({ hasText: /^connect$/i }).click();
  const address = keypair.publicKeyBase58;
  await button.filter({ hasText: `${address.slice(0, 4)}..${address.slice(-4)}` }).waitFor();
}
