import type { Metadata, Viewport } from "next";
import Link from "next/link";
import type { ReactNode } from "react";
import { routeConfig, routeRuntime } from "@/server/runtime/route-edge";
import { NO_PUBLIC_KEYS, readPublicKeys } from "@/server/site/read-site-facts";
import { CopyButton } from "./_components/copy-button";
import { SignetMark } from "./_components/signet-mark";
import { SiteNav } from "./_components/site-nav";
import "./globals.css";

// Every page shows the live keys and settings: rendered per request, never at build time (a build has no keys).
export const dynamic = "force-dynamic";

const DESCRIPTION =
  "Pay-per-call AI inference over x402 USDC payments, with an Ed25519-signed receipt on every answer that anyone can verify.";

export async function generateMetadata(): Promise<Metadata> {
  return {
    metadataBase: new URL((await routeConfig()).baseUrl),
    title: { default: "Signet: signed, pay-per-call inference", template: "%s · Signet" },
    description: DESCRIPTION,
    icons: {
      icon: [
        { url: "/favicon.ico", sizes: "any" },
        { url: "/icon.svg", type: "image/svg+xml" },
        { url: "/icon-512.png", sizes: "512x512", type: "image/png" },
      ],
      apple: "/apple-touch-icon.png",
    },
    openGraph: {
      title: "Signet",
      description: DESCRIPTION,
      siteName: "Signet",
      type: "website",
      images: [{ url: "/og-image.png", width: 1200, height: 630, alt: "Signet: pay per call, verify every answer" }],
    },
    twitter: { card: "summary_large_image", title: "Signet", description: DESCRIPTION, images: ["/og-image.png"] },
  };
}

export const viewport: Viewport = { width: "device-width", initialScale: 1, themeColor: "#5b21b6" };

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body className="flex min-h-screen flex-col bg-slate-50 text-slate-900 antialiased">
        <a
          href="#main"
          className="sr-only focus:not-sr-only focus:absolute focus:left-2 focus:top-2 focus:z-50 focus:rounded focus:bg-white focus:px-3 focus:py-2 focus:shadow"
        >
          Skip to content
        </a>
        <header className="border-b border-slate-200 bg-white">
          <div className="mx-auto flex max-w-6xl flex-wrap items-center justify-between gap-x-6 gap-y-2 px-4 py-3 sm:px-6">
            <Link
              href="/"
              className="flex items-center gap-2 rounded-md text-lg font-semibold tracking-tight text-slate-900 focus-visible:outline-2 focus-visible:outline-violet-600"
            >
              <SignetMark />
              Signet
            </Link>
            <SiteNav />
          </div>
        </header>
        <div id="main" className="flex-1">
          {children}
        </div>
        <SiteFooter />
      </body>
    </html>
  );
}

async function SiteFooter() {
  const { operatorKey, verifierKey } = await routeRuntime().then(
    (rt) => readPublicKeys(rt),
    () => NO_PUBLIC_KEYS,
  );
  return (
    <footer className="mt-12 border-t border-slate-200 bg-white">
      <div className="mx-auto grid max-w-6xl gap-4 px-4 py-6 text-sm text-slate-700 sm:px-6 md:grid-cols-2">
        <FooterKey
          testId="footer-operator-key"
          title="Operator key"
          what="signs every receipt"
          value={operatorKey}
          href="/api/v1/operator-key"
        />
        <FooterKey
          testId="footer-verifier-key"
          title="Verifier key"
          what="signs the hosted verifier's verdicts"
          value={verifierKey}
          href="/api/verify/operator-key"
        />
        <p className="text-xs text-slate-600 md:col-span-2">
          Signet · x402 payments in USDC · receipts verifiable in your browser, with the CLI or the hosted verifier ·{" "}
          <a className="text-violet-800 underline" href="/.well-known/x402">
            /.well-known/x402
          </a>{" "}
          ·{" "}
          <a className="text-violet-800 underline" href="/api/v1/openapi.json">
            OpenAPI
          </a>
        </p>
      </div>
    </footer>
  );
}

function FooterKey({
  testId,
  title,
  what,
  value,
  href,
}: {
  testId: string;
  title: string;
  what: string;
  value: string | null;
  href: string;
}) {
  return (
    <div className="min-w-0">
      <p className="font-semibold text-slate-900">
        {title} <span className="font-normal text-slate-600">({what})</span>
      </p>
      {value ? (
        <div className="mt-1 flex items-center gap-2">
          <a
            href={href}
            className="min-w-0 break-all font-mono text-xs text-slate-800 underline decoration-slate-300"
            data-testid={testId}
          >
            {value}
          </a>
          <CopyButton value={value} label={title.toLowerCase()} />
        </div>
      ) : (
        <p className="mt-1 text-xs text-amber-800">not configured on this deployment</p>
      )}
    </div>
  );
}
