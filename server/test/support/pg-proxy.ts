// A TCP proxy in front of PostgreSQL that plays the faults a real database's network shows, at the wire: every
// connection cut and new ones refused (a failover, an outage), and a connection dropped right after a chosen
// statement committed, before its reply reaches the client (the commit landed; the client cannot know). It reads the
// PostgreSQL frontend/backend protocol (v3): the client's Parse, Bind and Query messages name the statements, and the
// server's ReadyForQuery ('Z') closes each one with the transaction status (idle: committed).
import net from "node:net";

export interface PgProxy {
  /** A connection URL like `target`'s, through the proxy. */
  url: string;
  /** Cuts every connection and refuses new ones until `restore()`. */
  cut(): void;
  restore(): void;
  /**
   * Until `stop()`: each connection that runs a statement whose text matches `statement` is dropped once the server
   * says it committed (ReadyForQuery, idle), before that reply reaches the client. `limit` bounds how many are dropped.
   */
  dropAfterCommit(statement: RegExp, limit?: number): { dropped(): number; stop(): void };
  close(): Promise<void>;
}

/** Starts a proxy on 127.0.0.1 in front of the PostgreSQL server `target` names. */
export async function startPgProxy(target: string): Promise<PgProxy> {
  const upstream = new URL(target);
  const sockets = new Set<net.Socket>();
  let refusing = false;
  let rule: { statement: RegExp; limit: number; dropped: number } | null = null;

  const server = net.createServer((client) => {
    if (refusing) return void client.destroy();
    const backend = net.connect(Number(upstream.port || 5432), upstream.hostname);
    sockets.add(client).add(backend);
    const end = () => {
      client.destroy();
      backend.destroy();
      sockets.delete(client);
      sockets.delete(backend);
    };
    client.on("error", end).on("close", end);
    backend.on("error", end).on("close", end);

    const prepared = new Map<string, string>();
    // Set once the client ran a matching statement: the server's messages are held until its ReadyForQuery says
    // whether that statement's transaction committed (idle: drop the connection) or is still open (pass them on).
    let watched = false;
    let held: Buffer[] = [];
    const fromClient = messageReader(true, (type, body) => {
      // Named statements are prepared once per connection, long before a rule may name them: always kept.
      let text: string | null = null;
      if (type === "P") {
        const [name, query] = cStrings(body, 2);
        prepared.set(name!, query!);
        text = query!;
      } else if (type === "B") {
        const [, statement] = cStrings(body, 2);
        text = prepared.get(statement!) ?? null;
      } else if (type === "Q") text = cStrings(body, 1)[0]!;
      const active = rule;
      if (active && active.dropped < active.limit && text !== null && active.statement.test(text)) watched = true;
    });
    const fromServer = messageReader(false, (type, body, raw) => {
      if (!watched) return void client.write(raw);
      held.push(raw);
      if (type !== "Z") return;
      const active = rule;
      if (body[0] === 0x49 && active && active.dropped < active.limit) {
        // Committed (no transaction open), and its reply not yet passed on: the connection drops here.
        active.dropped++;
        held = [];
        watched = false;
        return void end();
      }
      for (const part of held) client.write(part);
      held = [];
      // Still in the transaction ('T'): its COMMIT's reply decides. Failed ('E') or no rule: nothing to drop.
      if (body[0] !== 0x54) watched = false;
    });
    client.on("data", (chunk: Buffer) => {
      fromClient(chunk);
      backend.write(chunk);
    });
    backend.on("data", (chunk: Buffer) => {
      fromServer(chunk);
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as net.AddressInfo).port;
  const url = new URL(target);
  url.hostname = "127.0.0.1";
  url.port = String(port);

  return {
    url: url.toString(),
    cut() {
      refusing = true;
      for (const s of sockets) s.destroy();
      sockets.clear();
    },
    restore() {
      refusing = false;
    },
    dropAfterCommit(statement, limit = Number.POSITIVE_INFINITY) {
      const active = { statement, limit, dropped: 0 };
      rule = active;
      return {
        dropped: () => active.dropped,
        stop: () => {
          if (rule === active) rule = null;
        },
      };
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/**
 * Splits a byte stream into protocol messages (type byte, int32 length, body), calling `onMessage` with each (and its
 * raw bytes); the client's first message (the startup packet, and an SSLRequest before it) has no type byte, and is
 * not passed on.
 */
function messageReader(
  fromClient: boolean,
  onMessage: (type: string, body: Buffer, raw: Buffer) => void,
): (chunk: Buffer) => void {
  let buffered = Buffer.alloc(0);
  let startup = fromClient;
  return (chunk) => {
    buffered = Buffer.concat([buffered, chunk]);
    for (;;) {
      if (startup) {
        if (buffered.length < 8) return;
        const length = buffered.readInt32BE(0);
        if (buffered.length < length) return;
        // An SSLRequest (code 80877103) is followed by the real startup packet.
        if (buffered.readInt32BE(4) !== 80877103) startup = false;
        buffered = buffered.subarray(length);
        continue;
      }
      if (buffered.length < 5) return;
      const length = buffered.readInt32BE(1);
      if (buffered.length < 1 + length) return;
      const raw = buffered.subarray(0, 1 + length);
      onMessage(String.fromCharCode(raw[0]!), raw.subarray(5), raw);
      buffered = buffered.subarray(1 + length);
    }
  };
}

/** The first `count` NUL-terminated strings of a message body. */
function cStrings(body: Buffer, count: number): string[] {
  const out: string[] = [];
  let at = 0;
  for (let i = 0; i < count; i++) {
    const end = body.indexOf(0, at);
    if (end === -1) break;
    out.push(body.subarray(at, end).toString("utf8"));
    at = end + 1;
  }
  return out;
}
