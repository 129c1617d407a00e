// A pass-through JSON-RPC proxy in front of a Base chain that writes down every raw transaction the instances send
// (sender, nonce, hash) before forwarding it unchanged, so the soak can tell whether two different relays were ever
// given one nonce: mined blocks cannot show that, since only one of them can be mined.
import "server-only";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { keccak256, parseTransaction, recoverTransactionAddress, type Hex, type TransactionSerialized } from "viem";

interface SentTransaction {
  from: string;
  nonce: number;
  hash: string;
}

export interface RelayRecorder {
  url: string;
  sent: SentTransaction[];
  close(): Promise<void>;
}

async function recordSend(raw: unknown, sent: SentTransaction[]): Promise<void> {
  if (typeof raw !== "string") return;
  try {
    const serialized = raw as TransactionSerialized;
    const tx = parseTransaction(serialized);
    const from = await recoverTransactionAddress({ serializedTransaction: serialized as never });
    sent.push({ from: from.toLowerCase(), nonce: Number(tx.nonce ?? -1), hash: keccak256(raw as Hex) });
  } catch {
    // Not a signed transaction: the chain will refuse it; nothing was relayed.
  }
}

/** Starts the recorder in front of `target` (the chain's own URL, faults included). */
export async function startRelayRecorder(target: string): Promise<RelayRecorder> {
  const sent: SentTransaction[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      void (async () => {
        const body = Buffer.concat(chunks);
        try {
          const parsed = JSON.parse(body.toString("utf8")) as
            { method?: string; params?: unknown[] } | { method?: string; params?: unknown[] }[];
          for (const call of Array.isArray(parsed) ? parsed : [parsed])
            if (call.method === "eth_sendRawTransaction") await recordSend(call.params?.[0], sent);
        } catch {
          // Not JSON: forwarded as is, for the chain to refuse.
        }
        const upstream = await fetch(target, {
          method: "POST",
          headers: { "content-type": req.headers["content-type"] ?? "application/json" },
          body,
        }).catch(() => null);
        if (!upstream) return void res.destroy();
        const headers: Record<string, string> = {
          "content-type": upstream.headers.get("content-type") ?? "application/json",
        };
        const retryAfter = upstream.headers.get("retry-after");
        if (retryAfter) headers["retry-after"] = retryAfter;
        res.writeHead(upstream.status, headers).end(Buffer.from(await upstream.arrayBuffer()));
      })().catch(() => res.destroy());
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    sent,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
