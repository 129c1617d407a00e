// Reading a receipt log over HTTP, as outside tools do (the CLI's verify --log, monitor and witness): its key, its
// checkpoint, tiles and entry bundles under the log prefix, and a receipt's inclusion proof. Nothing fetched is
// trusted until it verifies against the pinned log key.
import "server-only";
import { tilePath, TILE_WIDTH, type ReceiptLogProof, type TileId } from "../verify";

/** A fetch failure or an answer that is not what the log must serve: not a verdict about the log. */
export class LogFetchError extends Error {
  override name = "LogFetchError";
}

const TIMEOUT_MS = 10_000;

async function get(url: string, init: RequestInit = {}): Promise<Response> {
  try {
    return await fetch(url, { ...init, signal: AbortSignal.timeout(TIMEOUT_MS) });
  } catch (err) {
    throw new LogFetchError(`cannot reach ${url}: ${err instanceof Error ? err.message : "fetch failed"}`);
  }
}

/** The log prefix for a service endpoint: `<endpoint>/log`. */
export function logPrefixOf(endpoint: string): string {
  return `${endpoint.replace(/\/+$/, "")}/log`;
}

/** The log's verifier key as the service publishes it (`GET <prefix>/key`): trust on first use unless pinned. */
export async function fetchLogKey(prefix: string): Promise<string> {
  const res = await get(`${prefix}/key`);
  const body = (await res.json().catch(() => null)) as { verifier_key?: unknown } | null;
  if (!res.ok || typeof body?.verifier_key !== "string")
    throw new LogFetchError(`${prefix}/key did not answer a log key (HTTP ${res.status})`);
  return body.verifier_key;
}

/** The latest checkpoint note (or the one of `size`). */
export async function fetchCheckpoint(prefix: string, size?: number): Promise<string> {
  const url = size === undefined ? `${prefix}/checkpoint` : `${prefix}/checkpoints/${size}`;
  const res = await get(url);
  if (!res.ok) throw new LogFetchError(`${url} answered HTTP ${res.status}`);
  return res.text();
}

/** A hash tile or entry bundle's bytes. */
export async function fetchTile(
  prefix: string,
  tile: TileId | { level: "entries"; index: number; width: number },
): Promise<Uint8Array> {
  const url = `${prefix}/${tilePath(tile)}`;
  const res = await get(url);
  // A partial tile may be gone once its full tile exists: the full one holds the same first hashes.
  if (res.status === 404 && tile.width < TILE_WIDTH) {
    const full = await get(`${prefix}/${tilePath({ ...tile, width: TILE_WIDTH })}`);
    if (full.ok) return new Uint8Array(await full.arrayBuffer());
  }
  if (!res.ok) throw new LogFetchError(`${url} answered HTTP ${res.status}`);
  return new Uint8Array(await res.arrayBuffer());
}

export type ProofFetch =
  { ok: true; proof: ReceiptLogProof } | { ok: false; reason: "log_pending" | "not_found"; retryAfterS?: number };

/** A receipt's inclusion proof from the service (`GET <endpoint>/api/v1/receipts/<id>/proof`). */
export async function fetchReceiptProof(
  endpoint: string,
  inferenceId: string,
  opts: { cosigned?: boolean } = {},
): Promise<ProofFetch> {
  const url = `${endpoint.replace(/\/+$/, "")}/api/v1/receipts/${encodeURIComponent(inferenceId)}/proof${opts.cosigned ? "?cosigned=true" : ""}`;
  const res = await get(url);
  if (res.status === 409)
    return { ok: false, reason: "log_pending", retryAfterS: Number(res.headers.get("retry-after") ?? 2) };
  if (res.status === 404) return { ok: false, reason: "not_found" };
  if (!res.ok) throw new LogFetchError(`${url} answered HTTP ${res.status}`);
  return { ok: true, proof: (await res.json()) as ReceiptLogProof };
}
