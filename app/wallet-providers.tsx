"use client";
// The Solana wallet adapter with Wallet Standard detection only (wallets={[]}: no per-wallet adapter packages).
// Its bundled styles.css is not imported: it @imports a Google font (an outside connection, and offline a fetch that
// sends Next's dev reloads into a loop). app/globals.css styles the adapter's classes instead.
import { WalletProvider } from "@solana/wallet-adapter-react";
import { WalletModalProvider } from "@solana/wallet-adapter-react-ui";
import type { ReactNode } from "react";

export function WalletProviders({ children }: { children: ReactNode }) {
  return (
    <WalletProvider wallets={[]} autoConnect={false}>
      <WalletModalProvider>{children}</WalletModalProvider>
    </WalletProvider>
  );
}
