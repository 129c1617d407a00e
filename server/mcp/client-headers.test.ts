import { describe, expect, it } from "vitest";
import { PEER_ADDRESS_HEADER } from "../http/peer-address";
import { clientHeaders } from "./client-headers";

describe("clientHeaders()", () => {
  it("keeps the peer address and X-Forwarded-For only: a payment or signature header of the MCP request never passes", () => {
    const request = new Headers({
      [PEER_ADDRESS_HEADER]: "198.51.100.7",
      "x-forwarded-for": "203.0.113.9, 198.51.100.7",
      "payment-signature": "not from the MCP request",
      "x-agent-signature": "nor this",
      "content-type": "application/json",
    });
    expect([...clientHeaders(request).entries()].sort()).toEqual(
      [
        [PEER_ADDRESS_HEADER, "198.51.100.7"],
        ["x-forwarded-for", "203.0.113.9, 198.51.100.7"],
      ].sort(),
    );
    expect([...clientHeaders(new Headers()).entries()]).toEqual([]);
  });
});
