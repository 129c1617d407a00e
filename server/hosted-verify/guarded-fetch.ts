// The hosted verifier fetches URLs its caller chose (`endpoint`, `rpc`). This fetch refuses loopback, private,
// link-local and metadata addresses unless VERIFIER_ALLOW_PRIVATE_NETWORKS is true, and caps size and redirects.
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
  ["0.0.0.0", 8], ["10.0.0.0", 8], ["100.64.0.0", 10], ["127.0.0.0", 8], ["169.254.0.0", 16], ["172.16.0.0", 12],
  ["192.0.0.0", 24], ["192.0.2.0", 24], ["192.168.0.0", 16], ["198.18.0.0", 15], ["198.51.100.0", 24],
  ["203.0.113.0", 24], ["224.0.0.0", 4], ["240.0.0.0", 4],
] as const) {
  blocked.addSubnet(prefix, bits, "ipv4");
}
// IPv6: unspecified, loopback, unique-local (incl. fd00:ec2::254 metadata), link-local, multicast, documentation.
for (const [prefix, bits] of [["::", 128], ["::1", 128], ["fc00::", 7], ["fe80::", 10], ["ff00::", 8], ["2001:db8::", 32]] as const) {
  blocked.addSubnet(prefix, bits, "ipv6");
}

/** True when an IP literal is loopback, private, link-local, metadata or otherwise not a public unicast address. */
export function isBlockedAddress(address: string): boolean {
  const family = net.isIP(address);
  if (family === 4) return blocked.check(address, "ipv4");
  if (family === 6) {
    const lower = address.toLowerCase();
    // IPv4-mapped (::ffff:a.b.c.d) and NAT64 (64:ff9b::a.b.c.d) forms carry an IPv4 address: judge that one.
    const embedded = /^(?:::ffff:|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/.exec(lower)?.[1];
    if (embedded) return blocked.check(embedded, "ipv4");
    return blocked.check(lower, "ipv6");
  }
  return true;
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
      if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, list);
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
            reject(new VerifierFetchError("fetch_refused", `answer from ${url.host} exceeds ${MAX_RESPONSE_BYTES} bytes`));
            return;
          }
          chunks.push(chunk);
        });
        res.on("end", () => {
          const status = res.statusCode ?? 502;
          const responseHeaders = new Headers();
          for (const [k, v] of Object.entries(res.headers)) if (typeof v === "string") responseHeaders.set(k, v);
          resolve(new Response(status === 204 || status === 304 ? null : Buffer.concat(chunks), { status, headers: responseHeaders }));
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
