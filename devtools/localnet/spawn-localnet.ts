// Starts a local Solana chain in a child process (serve-localnet.ts) and returns a client for it that funds and reads
// balances over RPC only (the dev-only `localnet_fund` call and the standard token-account read), as a test or the
// bench would against any cluster.
import { spawn } from "node:child_process";
import path from "node:path";
import { createInterface } from "node:readline";
import { address } from "@solana/kit";
import { findAssociatedTokenPda, TOKEN_PROGRAM_ADDRESS } from "@solana-program/token";
import type { Localnet, StartLocalnetOptions } from "./index";

/** A local chain in another process: everything `Localnet` offers except the in-process chain object. */
export type RemoteLocalnet = Omit<Localnet, "chain">;

const READY_TIMEOUT_MS = 60_000;

export async function spawnLocalnet(options: StartLocalnetOptions): Promise<RemoteLocalnet> {
  const script = path.join(import.meta.dirname, "serve-localnet.ts");
  const child = spawn(
    process.execPath,
    ["--conditions=react-server", "--import", "tsx", script, JSON.stringify(options)],
    { stdio: ["pipe", "pipe", "inherit"] },
  );
  const ready = await new Promise<
    Pick<Localnet, "url" | "faultFreeUrl" | "profile" | "genesisHash" | "caip2" | "usdcMint">
  >((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`local chain did not start within ${READY_TIMEOUT_MS} ms`)),
      READY_TIMEOUT_MS,
    );
    child.once("exit", (code, signal) =>
      reject(new Error(`local chain exited before it was ready (${code ?? signal})`)),
    );
    createInterface({ input: child.stdout! }).on("line", (line) => {
      if (!line.startsWith("ready ")) return;
      clearTimeout(timer);
      resolve(JSON.parse(line.slice("ready ".length)));
    });
  });
  const rpc = async <T>(method: string, params: unknown[]): Promise<T> => {
    const res = await fetch(ready.faultFreeUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
    });
    const body = (await res.json()) as { result?: T; error?: { message: string } };
    if (body.error) throw new Error(`${method}: ${body.error.message}`);
    return body.result as T;
  };
  return {
    ...ready,
    fundAccount: (owner, amounts) =>
      rpc("localnet_fund", [
        owner,
        {
          ...(amounts.usdcUnits !== undefined ? { usdcUnits: String(amounts.usdcUnits) } : {}),
          ...(amounts.lamports !== undefined ? { lamports: String(amounts.lamports) } : {}),
        },
      ]),
    async usdcBalance(owner, mint = ready.usdcMint) {
      const [ata] = await findAssociatedTokenPda({
        owner: address(owner),
        mint: address(mint),
        tokenProgram: TOKEN_PROGRAM_ADDRESS,
      });
      try {
        const { value } = await rpc<{ value: { amount: string } }>("getTokenAccountBalance", [
          ata,
          { commitment: "processed" },
        ]);
        return BigInt(value.amount);
      } catch (err) {
        // No token account yet: nothing held.
        if (/could not find account/i.test(String((err as Error).message))) return 0n;
        throw err;
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}
