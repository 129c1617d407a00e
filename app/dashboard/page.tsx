import { TrpcReactProvider } from "@/app/_client/trpc-react";
import { WalletProviders } from "../wallet-providers";
import { OperatorDashboard } from "./operator-dashboard";

export const metadata = { title: "Operator dashboard · Signet" };

export default function DashboardPage() {
  return (
    <main className="mx-auto max-w-5xl space-y-4 p-8">
      <h1 className="text-2xl font-semibold">Operator dashboard</h1>
      <WalletProviders>
        <TrpcReactProvider>
          <OperatorDashboard />
        </TrpcReactProvider>
      </WalletProviders>
    </main>
  );
}
