import type { ReactNode } from "react";
import "./globals.css";

export const metadata = { title: "Signet", description: "Pay-per-call signed inference with verifiable receipts" };

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body className="min-h-screen bg-slate-50 text-slate-900 antialiased">{children}</body>
    </html>
  );
}
