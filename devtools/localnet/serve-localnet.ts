// A local Solana chain in its own process, reached over JSON-RPC like a real cluster: the bench starts its chains here
// so the service's process spends no CPU on them. Options come as one JSON argument (StartLocalnetOptions); it prints
// `ready <json>` (url, faultFreeUrl, profile, genesisHash, caip2, usdcMint) once it serves, and closes on SIGTERM/SIGINT.
import { startLocalnet, type StartLocalnetOptions } from "./index";

const options = JSON.parse(process.argv[2] ?? "{}") as StartLocalnetOptions;
const net = await startLocalnet(options);
const { url, faultFreeUrl, profile, genesisHash, caip2, usdcMint } = net;
process.stdout.write(`ready ${JSON.stringify({ url, faultFreeUrl, profile, genesisHash, caip2, usdcMint })}\n`);

let closing = false;
const close = () => {
  if (closing) return;
  closing = true;
  void net.close().finally(() => process.exit(0));
};
process.on("SIGTERM", close);
process.on("SIGINT", close);
// The parent's end is this chain's end: a bench killed mid-run leaves no orphan chain behind.
process.stdin.on("end", close);
process.stdin.resume();
