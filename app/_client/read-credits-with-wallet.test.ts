import { utf8ToBytes } from "@noble/hashes/utils.js";
import { ed25519 } from "@noble/curves/ed25519.js";
import bs58 from "bs58";
import { describe, expect, it } from "vitest";
import { signedRequestMessage } from "@/server/prepaid/signed-request";
import { creditsReadMessage, isFresh, signCreditsRead } from "./read-credits-with-wallet";

const ORIGIN = "https://signet.example.com";
const seed = new Uint8Array(32).fill(7);
const pubkey = bs58.encode(ed25519.getPublicKey(seed));

describe("creditsReadMessage()", () => {
  it("is byte for byte the message the service checks for a signed credits read", () => {
    const ts = "1760000000000";
    expect(creditsReadMessage(ORIGIN, pubkey, ts)).toEqual(
      signedRequestMessage("GET", `${ORIGIN}/api/v1/credits/${pubkey}`, utf8ToBytes(ts)),
    );
  });
});

describe("signCreditsRead()", () => {
  it("sends the wallet's signature over that message with the key and the timestamp", async () => {
    const read = await signCreditsRead(ORIGIN, pubkey, async (m) => ed25519.sign(m, seed), 1_760_000_000_000);
    expect(read.headers["X-Agent-Pubkey"]).toBe(pubkey);
    expect(read.headers["X-Agent-Timestamp"]).toBe("1760000000000");
    const signature = bs58.decode(read.headers["X-Agent-Signature"]!);
    expect(ed25519.verify(signature, creditsReadMessage(ORIGIN, pubkey, "1760000000000"), bs58.decode(pubkey))).toBe(
      true,
    );
  });

  it("rejects malformed input: a wallet that refuses to sign", async () => {
    await expect(
      signCreditsRead(ORIGIN, pubkey, async () => Promise.reject(new Error("User rejected the request.")), 1_000_000),
    ).rejects.toThrow("rejected");
  });
});

describe("isFresh()", () => {
  it("reuses a signed read for 45 s of the service's 60 s window, then asks for a new one", async () => {
    const read = await signCreditsRead(ORIGIN, pubkey, async (m) => ed25519.sign(m, seed), 1_000_000);
    expect(isFresh(read, 1_000_000 + 44_999)).toBe(true);
    expect(isFresh(read, 1_000_000 + 45_000)).toBe(false);
    expect(isFresh(null, 1_000_000)).toBe(false);
  });
});
