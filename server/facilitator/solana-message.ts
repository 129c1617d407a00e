// A Solana payment's transaction, decoded once from its base64 wire bytes for every check that reads it: the transfer
// it makes, the fee it costs, its idempotency key, the fee payer's isolation and its blockhash. One request decodes
// the same wire in several places; the last few hundred decodings are kept, keyed by the wire itself, so each is
// paid once. What is kept is frozen: a reader cannot change what the next one sees.
import "server-only";
import { getCompiledTransactionMessageDecoder, getTransactionDecoder } from "@solana/kit";
import type { PaymentPayload } from "@x402/core/types";
import { parseWireTransaction } from "./parse-solana-message";

type Compiled = ReturnType<ReturnType<typeof getCompiledTransactionMessageDecoder>["decode"]>;
/** A legacy or v0 message: the forms whose instructions and static accounts can be read. */
export type SolanaMessage = Extract<Compiled, { instructions: unknown }>;

/** A decoded wire transaction: its message bytes, and the message when its layout is one this service reads. */
export interface DecodedWire {
  bytes: Uint8Array;
  message: SolanaMessage | null;
  /** The message's lifetime token (the blockhash, or a durable nonce); null when the message could not be decoded. */
  lifetimeToken: string | null;
}

/**
 * Bounded memo cache of wire decodings (a pure function of the bytes): DECODED_WIRE_CACHE_SIZE entries; a wire is a few
 * hundred bytes to a little over 1 KiB, so the cache stays well under 2 MiB.
 */
export const DECODED_WIRE_CACHE_SIZE = 512;
const decoded = new Map<string, DecodedWire | null>();

/** The wire's decoding (null: the bytes are no transaction), from the cache when this wire was decoded recently. */
export function decodeSolanaWire(wire: string): DecodedWire | null {
  const hit = decoded.get(wire);
  if (hit !== undefined) return hit;
  const result = decodeUncached(wire);
  if (decoded.size >= DECODED_WIRE_CACHE_SIZE) decoded.delete(decoded.keys().next().value as string);
  decoded.set(wire, result);
  return result;
}

function decodeUncached(wire: string): DecodedWire | null {
  const raw = Buffer.from(wire, "base64");
  // The fast reader first; whatever it does not take as a well-formed legacy or v0 transaction goes to kit.
  const parsed = parseWireTransaction(raw);
  if (parsed) {
    const bytes = Uint8Array.from(parsed.messageBytes);
    const message = deepFreeze(parsed.message as unknown as SolanaMessage);
    return Object.freeze({
      get bytes() {
        return bytes.slice();
      },
      message,
      lifetimeToken: parsed.message.lifetimeToken,
    });
  }
  let bytes: Uint8Array;
  try {
    bytes = new Uint8Array(getTransactionDecoder().decode(raw).messageBytes);
  } catch {
    return null;
  }
  let message: SolanaMessage | null = null;
  let lifetimeToken: string | null = null;
  try {
    const compiled = getCompiledTransactionMessageDecoder().decode(bytes);
    lifetimeToken = compiled.lifetimeToken;
    if ("instructions" in compiled) message = deepFreeze(compiled as SolanaMessage);
  } catch {
    message = null;
  }
  // The bytes stay a plain array (a typed array cannot be frozen); readers get a copy.
  return Object.freeze({
    get bytes() {
      return bytes.slice();
    },
    message,
    lifetimeToken,
  });
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object" && !ArrayBuffer.isView(value) && !Object.isFrozen(value)) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

/** The message's bytes and its decoded form; null when the payload carries no decodable Solana transaction. */
export function solanaMessage(payload: PaymentPayload): { bytes: Uint8Array; message: SolanaMessage | null } | null {
  const wire = (payload.payload as { transaction?: unknown } | null)?.transaction;
  return typeof wire === "string" ? decodeSolanaWire(wire) : null;
}
