// The hosted verifier fetches URLs its caller chose (`endpoint`, `rpc`). This fetch refuses loopback, private,
// link-local and metadata addresses unless VERIFIER_ALLOW_PRIVATE_NETWORKS is true, and caps size and redirects.
import "server-only";
import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import http from "node:http";
import https from "node:https";
import net from "node:net";
import { VerifierFetchError, type FetchLike } from "../verify";

/** Largest answer the verifier reads (an operator key or one getTransaction). */
export const MAX_RESPONSE_BYTES = 2_000_000;

const blocked = new net.BlockList();
// IPv4: "this" network, private, CGNAT, loopback, link-local (incl. 169.254.169.254 metadata), IETF, benchmarking,
// documentation, multicast, reserved, broadcast.
for (const [prefix, bits] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
] as const) {
  blocked.addSubnet(prefix, bits, "ipv4");
}
// IPv6: IPv4-compatible (incl. unspecified and loopback), IPv4-translated (SIIT, reaches an IPv4 address through a
// translator), discard-only, local-use NAT64, Teredo (tunnels to an IPv4 address it hides), unique-local (incl.
// fd00:ec2::254 metadata), link-local, the deprecated site-local (still routed as private by some stacks), multicast,
// documentation.
for (const [prefix, bits] of [
  ["::", 96],
  ["::ffff:0:0:0", 96],
  ["100::", 64],
  ["64:ff9b:1::", 48],
  ["2001::", 32],
  ["fc00::", 7],
  ["fe80::", 10],
  ["fec0::", 10],
  ["ff00::", 8],
  ["2001:db8::", 32],
] as const) {
  blocked.addSubnet(prefix, bits, "ipv6");
}

/** True when an IP literal is loopback, private, link-local, metadata or otherwise not a public unicast address. */
export function isBlockedAddress(address: string): boolean {
  const family = net.isIP(address);
  if (family === 4) return blocked.check(address, "ipv4");
  if (family === 6) {
    const unzoned = address.toLowerCase().replace(/%.*$/, "");
    // SECURITY: IPv4-mapped (::ffff:0:0/96), NAT64 (64:ff9b::/96) and 6to4 (2002::/16) addresses reach the IPv4
    // address they carry: judge that one. Parse the bytes, since `new URL` writes [::ffff:127.0.0.1] as
    // [::ffff:7f00:1] and [64:ff9b::10.0.0.1] as [64:ff9b::a00:1].
    const embedded = embeddedIpv4(ipv6Bytes(unzoned));
    if (embedded) return blocked.check(embedded, "ipv4");
    return blocked.check(unzoned, "ipv6");
  }
  return true;
}

/** The 16 bytes of an IPv6 address that net.isIP already accepted (zone id removed). */
function ipv6Bytes(address: string): Uint8Array {
  const bytes = new Uint8Array(16);
  let text = address;
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) text = `${text.slice(0, dotted.index)}0:0`;
  const [head = "", tail] = text.split("::");
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  const groups =
    tail === undefined ? left : [...left, ...Array<string>(8 - left.length - right.length).fill("0"), ...right];
  groups.forEach((group, i) => {
    const value = parseInt(group, 16);
    bytes[2 * i] = value >> 8;
    bytes[2 * i + 1] = value & 0xff;
  });
  if (dotted) bytes.set(dotted.slice(1, 5).map(Number), 12);
  return bytes;
}

function embeddedIpv4(b: Uint8Array): string | null {
  const startsWith = (prefix: number[]) => prefix.every((v, i) => b[i] === v);
  if (
    startsWith([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff]) ||
    startsWith([0, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0])
  ) {
    return `${b[12]}.${b[13]}.${b[14]}.${b[15]}`;
  }
  if (b[0] === 0x20 && b[1] === 0x02) return `${b[2]}.${b[3]}.${b[4]}.${b[5]}`;
  return null;
}

export interface GuardedFetchOptions {
  allowPrivateNetworks: boolean;
}

/** A fetch for caller-chosen URLs. Refusals throw VerifierFetchError("fetch_refused"). Redirects are not followed. */
export function createGuardedFetch(opts: GuardedFetchOptions): FetchLike {
  return (input, init) => guardedFetch(input, init ?? {}, opts);
}

function guardedFetch(input: string, init: RequestInit, opts: GuardedFetchOptions): Promise<Response> {
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    return Promise.reject(new VerifierFetchError("fetch_refused", "not a valid URL"));
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return Promise.reject(new VerifierFetchError("fetch_refused", `${url.protocol} URLs are not allowed`));
  }
  if (url.username || url.password) {
    return Promise.reject(new VerifierFetchError("fetch_refused", "URLs with credentials are not allowed"));
  }

  // SECURITY: the address is checked inside the socket's own lookup, so the IP we vet is the IP we connect to
  // (no DNS-rebinding window between a check and the connect).
  const lookup: net.LookupFunction = (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, "", 0);
      const list = addresses as unknown as LookupAddress[];
      const refused = !opts.allowPrivateNetworks && list.some((a) => isBlockedAddress(a.address));
      if (refused || list.length === 0) {
        return callback(Object.assign(new Error("address refused"), { code: "ESIGNETREFUSED" }), "", 0);
      }
      if ((options as { all?: boolean }).all)
        return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, list);
      const first = list[0]!;
      callback(null, first.address, first.family);
    });
  };

  const hostLiteral = url.hostname.replace(/^\[|\]$/g, "");
  if (net.isIP(hostLiteral) && !opts.allowPrivateNetworks && isBlockedAddress(hostLiteral)) {
    return Promise.reject(new VerifierFetchError("fetch_refused", `address ${hostLiteral} is not allowed`));
  }

  return new Promise<Response>((resolve, reject) => {
    const transport = url.protocol === "https:" ? https : http;
    const headers = new Headers(init.headers);
    const req = transport.request(
      url,
      {
        method: init.method ?? "GET",
        headers: Object.fromEntries(headers.entries()),
        lookup,
        signal: init.signal ?? undefined,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let total = 0;
        res.on("data", (chunk: Buffer) => {
          total += chunk.length;
          if (total > MAX_RESPONSE_BYTES) {
            res.destroy();
            reject(
              new VerifierFetchError("fetch_refused", `answer from ${url.host} exceeds ${MAX_RESPONSE_BYTES} bytes`),
            );
            return;
          }
          chunks.push(chunk);
        });
        res.on("end", () => {
          const status = res.statusCode ?? 502;
          // SECURITY: a status a Response cannot carry (1xx, 600-999) or a body on a null-body status made this
          // listener throw: an uncaught exception any caller could trigger with their `endpoint`. Refuse instead.
          try {
            const responseHeaders = new Headers();
            for (const [k, v] of Object.entries(res.headers)) if (typeof v === "string") responseHeaders.set(k, v);
            const nullBody = status === 204 || status === 205 || status === 304;
            resolve(new Response(nullBody ? null : Buffer.concat(chunks), { status, headers: responseHeaders }));
          } catch {
            reject(new VerifierFetchError("fetch_refused", `${url.host} answered with unusable HTTP status ${status}`));
          }
        });
        res.on("error", reject);
      },
    );
    req.on("error", (err: NodeJS.ErrnoException) => {
      if (err.code === "ESIGNETREFUSED") {
        reject(new VerifierFetchError("fetch_refused", `${url.hostname} resolves to an address that is not allowed`));
      } else reject(err);
    });
    if (typeof init.body === "string") req.write(init.body);
    req.end();
  });
}
