// The deposit owner's USDC token account, made sure of once per network and owner before a payment to it is asked for.
import "server-only";
import type { NetworkId } from "../verify";
import { ensureDepositTokenAccount } from "../facilitator/ensure-deposit-token-account";
import type { Logger } from "../log";
import type { Clock } from "../clock";
import type { PaymentGateway } from "../x402/payment-gateway";

/**
 * `ensureDepositReady(network, owner)` over `gateway`, remembering each network and owner's account in `ready`; waits
 * by `deps.clock` and logs to `deps.log`.
 */
export function createDepositReadiness(
  gateway: PaymentGateway,
  ready: Map<string, Promise<string>>,
  deps: { clock: Clock; log: Logger },
): (network: NetworkId, owner: string) => Promise<string> {
  return (network, owner) => {
    const key = `${network}|${owner}`;
    let account = ready.get(key);
    if (!account) {
      const rpc = gateway.facilitator.rpcs[network];
      if (!rpc) return Promise.reject(new Error(`no RPC configured for ${network}`));
      const { usdcAsset, caip2 } = gateway.facilitator.networks.get(network);
      account = ensureDepositTokenAccount(rpc, gateway.facilitator.signer, owner, usdcAsset, caip2, deps);
      account.catch((err: unknown) => {
        // Forget the failure first: a cached rejection would refuse every payment on this network until a restart.
        // The log gets the message only (kit's RPC errors are frozen, which pino's `err` serializer cannot tag).
        ready.delete(key);
        deps.log.error(
          { network, owner, detail: String(err instanceof Error ? err.message : err).slice(0, 200) },
          "could not prepare the deposit token account",
        );
      });
      ready.set(key, account);
    }
    return account;
  };
}
