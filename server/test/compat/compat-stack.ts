// What the SDK compat files share: the service over real HTTP with the weather model as its upstream (instant chains),
// and a fresh funded agent paying with the stock @x402/fetch client, set up exactly as the README shows.
import { x402Client } from "@x402/core/client";
import { wrapFetchWithPayment } from "@x402/fetch";
import { ExactSvmScheme } from "@x402/svm/exact/client";
import { startServedStack, type ServedStack } from "../support/http-service";
import { startWeatherModel, weatherEnv, type WeatherModel } from "./weather-model";

export interface CompatStack {
  served: ServedStack;
  weather: WeatherModel;
  /** The SDKs' baseURL: the service's /api/v1. */
  baseURL: string;
  close(): Promise<void>;
}

export async function startCompatStack(): Promise<CompatStack> {
  const weather = await startWeatherModel();
  const served = await startServedStack({
    timing: "instant",
    env: { X402_FLAT_PRICE_USDC: "0.001", ...weatherEnv(weather) },
  });
  return {
    served,
    weather,
    baseURL: `${served.service.url}/api/v1`,
    async close() {
      await served.close();
      await weather.provider.close();
    },
  };
}

/** A fresh funded agent's stock @x402/fetch client (x402Client with the exact SVM scheme), and the agent's address. */
export async function stockPayingFetch(served: ServedStack): Promise<{ fetch: typeof fetch; address: string }> {
  const agent = await served.stack.newAgent();
  const client = new x402Client();
  client.register("solana:*", new ExactSvmScheme(agent, { rpcUrl: served.stack.devnet.url }));
  return { fetch: wrapFetchWithPayment(fetch, client), address: agent.address };
}
