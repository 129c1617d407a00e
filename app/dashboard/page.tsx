import { TrpcReactProvider } from "@/app/_client/trpc-react";
import { WalletProviders } from "../wallet-providers";
import { OperatorDashboard } from "./operator-dashboard";

export const metadata = { title: "Operator dashboard" };

export default function DashboardPage() {
  return (
    <main className="mx-auto max-w-6xl space-y-4 px-4 py-8 sm:px-6">
      <h1 className="text-2xl font-bold tracking-tight sm:text-3xl">Operator dashboard</h1>
      <WalletProviders>
        <TrpcReactProvider>
          <OperatorDashboard />
        </TrpcReactProvider>
      </WalletProviders>
    </main>
  );
}
