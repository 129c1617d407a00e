import { randomBytes } from "node:crypto";
import {
  getBase58Decoder,
  getCompiledTransactionMessageDecoder,
  getCompiledTransactionMessageEncoder,
  getTransactionDecoder,
} from "@solana/kit";
import { describe, expect, it } from "vitest";
import { encodeBase58, parseWireTransaction, type ParsedMessage } from "./parse-solana-message";

const kitBase58 = getBase58Decoder();
const address = () => kitBase58.decode(randomBytes(32)) as never;
const pick = (n: number) => Math.floor(Math.random() * n);

/** A random compiled message in kit's shape, legacy or v0, with or without lookups, empty data and accounts included. */
function randomMessage(): ParsedMessage {
  const version = Math.random() < 0.5 ? ("legacy" as const) : (0 as const);
  const staticAccounts = Array.from({ length: 1 + pick(12) }, address);
  const signers = 1 + pick(Math.min(3, staticAccounts.length));
  const instructions = Array.from({ length: pick(6) }, () => {
    const accountIndices = Array.from({ length: pick(5) }, () => pick(staticAccounts.length + 4));
    const data = randomBytes(pick(3) === 0 ? 0 : pick(200));
    return {
      programAddressIndex: pick(staticAccounts.length),
      ...(accountIndices.length ? { accountIndices } : {}),
      ...(data.length ? { data: Uint8Array.from(data) } : {}),
    };
  });
  const message: ParsedMessage = {
    version,
    header: {
      numSignerAccounts: signers,
      numReadonlySignerAccounts: pick(signers),
      numReadonlyNonSignerAccounts: pick(staticAccounts.length - signers + 1),
    },
    staticAccounts,
    lifetimeToken: address(),
    instructions,
  };
  if (version === 0 && Math.random() < 0.5) {
    message.addressTableLookups = Array.from({ length: 1 + pick(3) }, () => ({
      lookupTableAddress: address(),
      writableIndexes: Array.from({ length: pick(4) }, () => pick(256)),
      readonlyIndexes: Array.from({ length: pick(4) }, () => pick(256)),
    }));
  }
  return message;
}

/** The wire: a compact-u16 count of signatures, the signatures, the message. */
function wireOf(message: ParsedMessage, signatures = message.header.numSignerAccounts): Uint8Array {
  const messageBytes = getCompiledTransactionMessageEncoder().encode(message as never);
  const count = signatures < 0x80 ? [signatures] : [(signatures & 0x7f) | 0x80, signatures >> 7];
  return Uint8Array.from([...count, ...randomBytes(64 * signatures), ...messageBytes]);
}

/** What kit decodes, in the same plain shape (data as plain Uint8Array), or null when kit refuses. */
function kitDecode(wire: Uint8Array): { messageBytes: Uint8Array; message: unknown } | null {
  try {
    const tx = getTransactionDecoder().decode(wire);
    const message = getCompiledTransactionMessageDecoder().decode(tx.messageBytes) as ParsedMessage;
    return { messageBytes: Uint8Array.from(tx.messageBytes), message: plain(message) };
  } catch {
    return null;
  }
}

function plain(message: ParsedMessage): unknown {
  return JSON.parse(JSON.stringify(message, (_, v: unknown) => (v instanceof Uint8Array ? [...v] : v)));
}

describe("encodeBase58()", () => {
  it("writes what kit's base58 codec writes: random keys, leading zero bytes, all zeros", () => {
    const cases = [new Uint8Array(32), Uint8Array.of(0, 0, 1), new Uint8Array(32).fill(255)];
    for (let i = 0; i < 2_000; i++) {
      const bytes = randomBytes(32);
      bytes.fill(0, 0, i % 4);
      cases.push(bytes);
    }
    for (const bytes of cases) expect(encodeBase58(bytes)).toBe(kitBase58.decode(bytes));
  });
});

describe("parseWireTransaction()", () => {
  it("reads 1,000 random legacy and v0 transactions exactly as kit decodes them", () => {
    for (let i = 0; i < 1_000; i++) {
      const wire = wireOf(randomMessage());
      const ours = parseWireTransaction(wire);
      const kit = kitDecode(wire);
      expect(kit).not.toBeNull();
      expect(ours).not.toBeNull();
      expect(Uint8Array.from(ours!.messageBytes)).toEqual(kit!.messageBytes);
      expect(plain(ours!.message)).toEqual(kit!.message);
    }
  });

  it("never reads bytes kit refuses, nor reads them otherwise: truncated, extended and bit-flipped wires", () => {
    let refusedByUs = 0;
    for (let i = 0; i < 3_000; i++) {
      let wire = wireOf(randomMessage());
      const mutation = i % 3;
      if (mutation === 0) wire = wire.subarray(0, pick(wire.length));
      else if (mutation === 1) wire = Uint8Array.from([...wire, ...randomBytes(1 + pick(3))]);
      else {
        wire = Uint8Array.from(wire);
        wire[pick(wire.length)]! ^= 1 << pick(8);
      }
      const ours = parseWireTransaction(wire);
      if (ours === null) {
        refusedByUs++;
        continue;
      }
      const kit = kitDecode(wire);
      expect(kit).not.toBeNull();
      expect(plain(ours.message)).toEqual(kit!.message);
      expect(Uint8Array.from(ours.messageBytes)).toEqual(kit!.messageBytes);
    }
    expect(refusedByUs).toBeGreaterThan(1_000);
  });

  it("rejects malformed input: a signature count other than the header's, a version past 0, nothing at all", () => {
    const message = randomMessage();
    expect(parseWireTransaction(wireOf(message, message.header.numSignerAccounts + 1))).toBeNull();
    const v1 = wireOf({ ...randomMessage(), version: 0 });
    const sigs = v1[0]!;
    v1[1 + 64 * sigs] = 0x81;
    expect(parseWireTransaction(v1)).toBeNull();
    expect(parseWireTransaction(new Uint8Array(0))).toBeNull();
  });
});
