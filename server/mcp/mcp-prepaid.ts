// A paid tool spent from prepaid credit: the request carries `_meta["org.signet/prepaid"] = { pubkey, signature }`, the
// agent's Ed25519 signature of the prepaid message for `POST <origin>/mcp` whose body is the canonical JSON (sorted
// keys, no spaces) of `{ name, arguments }`: the tool's name and its arguments as sent, with `nonce` and `timestamp`
// (and optionally `max_cost_usdc`) among them. The same rule as the HTTP routes' signed requests, naming the MCP path;
// the nonce, window and hold are theirs.
import "server-only";
import { utf8ToBytes } from "@noble/hashes/utils.js";
import { canonicalJson } from "../verify";

/** The bytes a prepaid tool call's signature covers after the message's head: its canonical `{ name, arguments }`. */
export function mcpToolCallBytes(name: string, args: unknown): Uint8Array {
  return utf8ToBytes(canonicalJson({ name, arguments: args ?? {} }));
}
