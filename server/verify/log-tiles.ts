// The C2SP tlog-tiles layout: tile paths (`tile/<L>/<N>[.p/<W>]`, N in x-prefixed 3-digit groups), which tile holds a
// perfect subtree for a given tree size, entry bundles (uint16 length-prefixed), and a hash reader over fetched tiles.
// A tile at level L holds consecutive hashes at tree height 8L; heights between are rehashed from them. Pure and
// browser-safe.
import { foldSubtrees, HASH_SIZE, nodeHash, type HashReader, type SubtreeId } from "./merkle-tree";

/** Tile height: 2^8 = 256 hashes per full tile. */
export const TILE_HEIGHT = 8;
export const TILE_WIDTH = 256;
/** Entries in a bundle are uint16 length-prefixed. */
export const MAX_ENTRY_BYTES = 0xffff;

/** A tile: level, index within the level, and width (256 for a full tile, 1–255 for a partial one). */
export interface TileId {
  level: number;
  index: number;
  width: number;
}

/** `N` as path elements: zero-padded 3-digit groups, all but the last prefixed with `x` (1234067 → x001/x234/067). */
export function encodeTileIndex(index: number): string {
  if (!Number.isSafeInteger(index) || index < 0) throw new RangeError("a tile index is a non-negative integer");
  const groups: string[] = [];
  let n = index;
  do {
    groups.unshift(String(n % 1000).padStart(3, "0"));
    n = Math.floor(n / 1000);
  } while (n > 0);
  return groups.map((g, i) => (i < groups.length - 1 ? `x${g}` : g)).join("/");
}

/** The path of a tile below the log prefix: `tile/<L>/<N>[.p/<W>]`, or `tile/entries/<N>[.p/<W>]` for an entry bundle. */
export function tilePath(tile: TileId | { level: "entries"; index: number; width: number }): string {
  const suffix = tile.width === TILE_WIDTH ? "" : `.p/${tile.width}`;
  return `tile/${tile.level}/${encodeTileIndex(tile.index)}${suffix}`;
}

/**
 * Parses the segments after `tile/` (e.g. ["0", "x001", "234.p", "7"]). Returns null for anything that is not a
 * canonical path: leading zeroes in L or W, a group not three digits, a missing `x`, W outside 1–255.
 */
export function parseTilePath(
  segments: readonly string[],
): { level: number | "entries"; index: number; width: number } | null {
  if (segments.length < 2) return null;
  const [levelText, ...rest] = segments;
  let level: number | "entries";
  if (levelText === "entries") level = "entries";
  else if (/^(0|[1-9][0-9]?)$/.test(levelText!) && Number(levelText) <= 63) level = Number(levelText);
  else return null;
  let width = TILE_WIDTH;
  let groups = rest;
  const last = rest[rest.length - 1]!;
  const beforeLast = rest[rest.length - 2];
  if (beforeLast !== undefined && beforeLast.endsWith(".p")) {
    if (!/^[1-9][0-9]{0,2}$/.test(last) || Number(last) > 255) return null;
    width = Number(last);
    groups = [...rest.slice(0, -2), beforeLast.slice(0, -2)];
  }
  if (groups.length === 0 || groups.length > 6) return null;
  let index = 0;
  for (let i = 0; i < groups.length; i++) {
    const g = groups[i]!;
    const digits = i < groups.length - 1 ? (g.startsWith("x") ? g.slice(1) : null) : g;
    if (digits === null || !/^[0-9]{3}$/.test(digits)) return null;
    index = index * 1000 + Number(digits);
  }
  // One canonical spelling per index: no leading all-zero groups.
  if (groups.length > 1 && groups[0] === "x000") return null;
  if (!Number.isSafeInteger(index)) return null;
  return { level, index, width };
}

/** How many hashes at tree height 8·level a tree of `size` leaves has: the perfect subtrees of 256^level leaves. */
export function hashesAtTileLevel(size: number, level: number): number {
  return Math.floor(size / TILE_WIDTH ** level);
}

/** The tile (with the width a tree of `size` leaves gives it) holding hash number `hashIndex` at tile level `level`. */
export function tileFor(level: number, hashIndex: number, size: number): TileId {
  const index = Math.floor(hashIndex / TILE_WIDTH);
  const width = Math.min(TILE_WIDTH, hashesAtTileLevel(size, level) - index * TILE_WIDTH);
  return { level, index, width };
}

/** Every tile a tree of `size` leaves has at `level` that is needed to serve it: full ones, then the partial one, if any. */
export function tilesOfLevel(size: number, level: number): TileId[] {
  const count = hashesAtTileLevel(size, level);
  const out: TileId[] = [];
  for (let index = 0; index * TILE_WIDTH < count; index++)
    out.push({ level, index, width: Math.min(TILE_WIDTH, count - index * TILE_WIDTH) });
  return out;
}

/** Encodes an entry bundle: each entry as a big-endian uint16 length, then its bytes. */
export function encodeEntryBundle(entries: readonly Uint8Array[]): Uint8Array {
  const total = entries.reduce((sum, e) => sum + 2 + e.length, 0);
  const out = new Uint8Array(total);
  let at = 0;
  for (const e of entries) {
    if (e.length > MAX_ENTRY_BYTES) throw new RangeError(`a log entry is at most ${MAX_ENTRY_BYTES} bytes`);
    out[at] = e.length >> 8;
    out[at + 1] = e.length & 0xff;
    out.set(e, at + 2);
    at += 2 + e.length;
  }
  return out;
}

/** Decodes an entry bundle; null when it is truncated or has trailing bytes. */
export function decodeEntryBundle(bundle: Uint8Array): Uint8Array[] | null {
  const out: Uint8Array[] = [];
  let at = 0;
  while (at < bundle.length) {
    if (at + 2 > bundle.length) return null;
    const length = (bundle[at]! << 8) | bundle[at + 1]!;
    if (at + 2 + length > bundle.length) return null;
    out.push(bundle.slice(at + 2, at + 2 + length));
    at += 2 + length;
  }
  return out;
}

/** Splits a hash tile's bytes into its hashes; null unless it is exactly `width` hashes. */
export function splitTile(data: Uint8Array, width: number): Uint8Array[] | null {
  if (data.length !== width * HASH_SIZE) return null;
  return Array.from({ length: width }, (_, i) => data.slice(i * HASH_SIZE, (i + 1) * HASH_SIZE));
}

/** Fetches a tile's bytes (its width already chosen for the tree size). */
export type TileFetcher = (tile: TileId) => Promise<Uint8Array>;

/** Thrown when a tile is missing or malformed: the log did not serve what its checkpoint promises. */
export class TileError extends Error {
  override name = "TileError";
}

/**
 * A HashReader for the tree of `size` leaves, over tiles fetched (once each) with `fetchTile`. It trusts nothing:
 * whatever it reads is only believed once a proof built from it verifies against a signed root.
 */
export function tileHashReader(size: number, fetchTile: TileFetcher): HashReader {
  const tiles = new Map<string, Promise<Uint8Array[]>>();
  const load = (tile: TileId): Promise<Uint8Array[]> => {
    const key = `${tile.level}/${tile.index}/${tile.width}`;
    let hashes = tiles.get(key);
    if (!hashes) {
      hashes = fetchTile(tile).then((data) => {
        const split = splitTile(data, tile.width);
        if (!split) throw new TileError(`${tilePath(tile)} is not ${tile.width} hashes`);
        return split;
      });
      tiles.set(key, hashes);
    }
    return hashes;
  };
  return async (ids: readonly SubtreeId[]) =>
    Promise.all(
      ids.map(async ({ level, index }) => {
        if ((index + 1) * 2 ** level > size)
          throw new TileError(`subtree ${level}/${index} is not complete in a tree of ${size}`);
        const tileLevel = Math.floor(level / TILE_HEIGHT);
        const height = level - tileLevel * TILE_HEIGHT;
        const first = index * 2 ** height;
        const tile = tileFor(tileLevel, first, size);
        const hashes = await load(tile);
        const offset = first - tile.index * TILE_WIDTH;
        return perfectRoot(hashes.slice(offset, offset + 2 ** height));
      }),
    );
}

/** The root of a perfect tree whose bottom row is `row` (a power of two long). */
export function perfectRoot(row: readonly Uint8Array[]): Uint8Array {
  let level = [...row];
  while (level.length > 1) {
    const next: Uint8Array[] = [];
    for (let i = 0; i < level.length; i += 2) next.push(nodeHash(level[i]!, level[i + 1]!));
    level = next;
  }
  return level[0]!;
}

/** The tree root from a complete list of leaf hashes (a monitor's independent recomputation). */
export function rootOfLeaves(leaves: readonly Uint8Array[]): Uint8Array {
  const subtrees: Uint8Array[] = [];
  let at = 0;
  for (let level = 52; level >= 0; level--) {
    const size = 2 ** level;
    if (leaves.length - at >= size) {
      subtrees.push(perfectRoot(leaves.slice(at, at + size)));
      at += size;
    }
  }
  return foldSubtrees(subtrees);
}
