import { describe, expect, it } from "vitest";
import { chatRequestDigest, responsesRequestDigest } from "./request-digest";

describe("responsesRequestDigest()", () => {
  it("differs from chatRequestDigest() for the very same body: the route is part of what a payment buys", () => {
    // Both routes take unknown fields, so one body can be valid on both; the route name still tells them apart.
    const body = { model: "local/echo-1", messages: [{ role: "user", content: "hi" }], input: "hi" };
    expect(responsesRequestDigest(body, "solana-devnet")).not.toBe(chatRequestDigest(body, "solana-devnet"));
  });

  it("is the same for an absent network and the network it resolves to, and another for another request", () => {
    const body = { model: "local/echo-1", input: "hi" };
    expect(responsesRequestDigest({ ...body, network: "devnet" }, "solana-devnet")).toBe(
      responsesRequestDigest(body, "solana-devnet"),
    );
    expect(responsesRequestDigest({ ...body, input: "hello" }, "solana-devnet")).not.toBe(
      responsesRequestDigest(body, "solana-devnet"),
    );
    expect(responsesRequestDigest(body, "solana-mainnet")).not.toBe(responsesRequestDigest(body, "solana-devnet"));
  });
});
