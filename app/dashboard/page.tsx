import { TrpcReactProvider } from "@/app/_client/trpc-react";
import { routeConfig } from "@/server/runtime/route-edge";
import { WalletProviders } from "../wallet-providers";
import { OperatorDashboard } from "./operator-dashboard";

export const metadata = { title: "Operator dashboard" };

export default async function DashboardPage() {
  // The server says whether it runs in production: the page never guesses from the browser's side.
  const { isProduction } = await routeConfig();
  return (
    <main className="mx-auto max-w-6xl space-y-4 px-4 py-8 sm:px-6">
      <h1 className="text-2xl font-bold tracking-tight sm:text-3xl">Operator dashboard</h1>
      <WalletProviders>
        <TrpcReactProvider>
          <OperatorDashboard devHints={!isProduction} />
        </TrpcReactProvider>
      </WalletProviders>
    </main>
  );
}
