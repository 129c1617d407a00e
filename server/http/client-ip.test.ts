import { describe, expect, it } from "vitest";
import { clientIp, hashIp } from "./client-ip";
import { PEER_ADDRESS_HEADER } from "./peer-address";

const headers = (h: Record<string, string>) => new Headers(h);

describe("clientIp()", () => {
  it("uses the peer address with no trusted proxy, ignoring X-Forwarded-For", () => {
    expect(clientIp(headers({ [PEER_ADDRESS_HEADER]: "198.51.100.7", "x-forwarded-for": "203.0.113.1" }), 0)).toBe(
      "198.51.100.7",
    );
    expect(clientIp(headers({ "x-forwarded-for": "203.0.113.1" }), 0)).toBe("unknown");
  });

  it("writes an IPv4-mapped peer as its IPv4 address", () => {
    expect(clientIp(headers({ [PEER_ADDRESS_HEADER]: "::ffff:127.0.0.1" }), 0)).toBe("127.0.0.1");
  });

  it("counts an IPv6 address as its /64", () => {
    expect(clientIp(headers({ [PEER_ADDRESS_HEADER]: "2001:db8:1:2:aaaa::1" }), 0)).toBe("2001:db8:1:2::/64");
    expect(clientIp(headers({ [PEER_ADDRESS_HEADER]: "2001:db8:1:2:bbbb::9" }), 0)).toBe("2001:db8:1:2::/64");
    expect(clientIp(headers({ [PEER_ADDRESS_HEADER]: "2001:db8::1" }), 0)).toBe("2001:db8:0:0::/64");
  });

  it("reads X-Forwarded-For `hops` entries from the right behind trusted proxies, never the peer", () => {
    const h = headers({ "x-forwarded-for": "192.0.2.1, 198.51.100.2, 203.0.113.3", [PEER_ADDRESS_HEADER]: "10.0.0.1" });
    expect(clientIp(h, 1)).toBe("203.0.113.3");
    expect(clientIp(h, 2)).toBe("198.51.100.2");
    expect(clientIp(h, 3)).toBe("192.0.2.1");
    expect(clientIp(h, 4)).toBe("unknown");
  });

  it.each([["not-an-ip"], [""], ["999.1.1.1"], ["127.0.0.1, 10.0.0.1"]])(
    "rejects malformed input %j as unknown",
    (value) => {
      expect(clientIp(headers({ [PEER_ADDRESS_HEADER]: value }), 0)).toBe("unknown");
    },
  );
});

describe("hashIp()", () => {
  it("is a salted HMAC: another salt gives another hash, and the IP does not appear", () => {
    expect(hashIp("192.0.2.1", "salt-a".repeat(4))).not.toBe(hashIp("192.0.2.1", "salt-b".repeat(4)));
    expect(hashIp("192.0.2.1", "salt-a".repeat(4))).not.toContain("192.0.2.1");
  });
});
