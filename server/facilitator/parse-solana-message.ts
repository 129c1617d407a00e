// A Solana wire transaction's message read straight from its bytes, in the shape @solana/kit's compiled-message
// decoder gives (header, static accounts as base58, lifetime token, instructions, and v0's lookups), without kit's
// BigInt base58, which made decoding one payment cost half a millisecond. Anything this reader does not take exactly
// as a well-formed legacy or v0 transaction (a signature count that differs from the header, bytes left over or
// missing, a newer version) answers null, and the caller asks kit instead: it never decides alone what kit would
// refuse.

/** The decoded message, as kit's getCompiledTransactionMessageDecoder returns it for legacy and v0 messages. */
export interface ParsedMessage {
  version: "legacy" | 0;
  header: { numSignerAccounts: number; numReadonlySignerAccounts: number; numReadonlyNonSignerAccounts: number };
  staticAccounts: string[];
  lifetimeToken: string;
  instructions: { programAddressIndex: number; accountIndices?: number[]; data?: Uint8Array }[];
  addressTableLookups?: { lookupTableAddress: string; writableIndexes: number[]; readonlyIndexes: number[] }[];
}

const ALPHABET = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";

/** Base58 of `bytes` (Bitcoin alphabet), as kit's base58 codec writes it; limb arithmetic, no BigInt. */
export function encodeBase58(bytes: Uint8Array): string {
  let zeros = 0;
  while (zeros < bytes.length && bytes[zeros] === 0) zeros++;
  // Little-endian base-58^5 limbs (656,356,768 < 2^30): limb × 256 + carry stays exact in a double.
  const BASE = 656_356_768;
  const limbs: number[] = [];
  for (let i = zeros; i < bytes.length; i++) {
    let carry = bytes[i]!;
    for (let j = 0; j < limbs.length; j++) {
      const x = limbs[j]! * 256 + carry;
      carry = Math.floor(x / BASE);
      limbs[j] = x - carry * BASE;
    }
    while (carry > 0) {
      limbs.push(carry % BASE);
      carry = Math.floor(carry / BASE);
    }
  }
  let digits = "";
  for (let j = 0; j < limbs.length; j++) {
    let limb = limbs[j]!;
    for (let k = 0; k < 5; k++) {
      digits = ALPHABET[limb % 58]! + digits;
      limb = Math.floor(limb / 58);
    }
  }
  let start = 0;
  while (start < digits.length && digits[start] === "1") start++;
  return "1".repeat(zeros) + digits.slice(start);
}

class Reader {
  offset = 0;
  constructor(readonly bytes: Uint8Array) {}
  u8(): number {
    if (this.offset >= this.bytes.length) throw new RangeError("short");
    return this.bytes[this.offset++]!;
  }
  /** Solana's compact-u16: up to three bytes, seven bits each, the shortest form only. */
  shortU16(): number {
    let value = 0;
    for (let i = 0; i < 3; i++) {
      const b = this.u8();
      value |= (b & 0x7f) << (7 * i);
      if ((b & 0x80) === 0) {
        if (i > 0 && b === 0) throw new RangeError("not the shortest form");
        if (value > 0xffff) throw new RangeError("too large");
        return value;
      }
    }
    throw new RangeError("too long");
  }
  take(n: number): Uint8Array {
    if (this.offset + n > this.bytes.length) throw new RangeError("short");
    const out = this.bytes.subarray(this.offset, this.offset + n);
    this.offset += n;
    return out;
  }
  u8s(n: number): number[] {
    return Array.from(this.take(n));
  }
}

/**
 * The message bytes and the message of a wire transaction, or null when it is not a well-formed legacy or v0
 * transaction whose signature count matches its header (the caller then asks kit).
 */
export function parseWireTransaction(wire: Uint8Array): { messageBytes: Uint8Array; message: ParsedMessage } | null {
  try {
    const r = new Reader(wire);
    const signatures = r.shortU16();
    r.take(64 * signatures);
    const messageStart = r.offset;
    const first = r.bytes[r.offset];
    let version: "legacy" | 0 = "legacy";
    if (first !== undefined && first & 0x80) {
      if ((first & 0x7f) !== 0) return null;
      version = 0;
      r.offset++;
    }
    const header = {
      numSignerAccounts: r.u8(),
      numReadonlySignerAccounts: r.u8(),
      numReadonlyNonSignerAccounts: r.u8(),
    };
    if (header.numSignerAccounts !== signatures) return null;
    const staticAccounts = Array.from({ length: r.shortU16() }, () => encodeBase58(r.take(32)));
    const lifetimeToken = encodeBase58(r.take(32));
    const instructions = Array.from({ length: r.shortU16() }, () => {
      const programAddressIndex = r.u8();
      const accountIndices = r.u8s(r.shortU16());
      const data = r.take(r.shortU16());
      return {
        programAddressIndex,
        ...(accountIndices.length > 0 ? { accountIndices } : {}),
        ...(data.length > 0 ? { data } : {}),
      };
    });
    const message: ParsedMessage = { version, header, staticAccounts, lifetimeToken, instructions };
    if (version === 0) {
      const lookups = Array.from({ length: r.shortU16() }, () => ({
        lookupTableAddress: encodeBase58(r.take(32)),
        writableIndexes: r.u8s(r.shortU16()),
        readonlyIndexes: r.u8s(r.shortU16()),
      }));
      if (lookups.length > 0) message.addressTableLookups = lookups;
    }
    if (r.offset !== wire.length) return null;
    return { messageBytes: wire.subarray(messageStart), message };
  } catch {
    return null;
  }
}
