// The C2SP tlog-tiles layout: path encoding, tile widths for a tree size (the spec's own 70,000-leaf example), entry
// bundles, and proofs built from served tiles equal to those built from the stored hashes.
import { bytesToHex } from "@noble/hashes/utils.js";
import { describe, expect, it } from "vitest";
import {
  decodeEntryBundle,
  encodeEntryBundle,
  encodeTileIndex,
  hashesAtTileLevel,
  parseTilePath,
  tileHashReader,
  tilePath,
  tilesOfLevel,
  type TileId,
} from "./log-tiles";
import { leafHash, proveConsistency, proveInclusion, treeHash, type SubtreeId } from "./merkle-tree";
import { storeTree } from "./fixtures/store-tree";

describe("encodeTileIndex() and parseTilePath()", () => {
  it("encode N as x-prefixed three-digit groups", () => {
    expect(encodeTileIndex(1234067)).toBe("x001/x234/067");
    expect(encodeTileIndex(0)).toBe("000");
    expect(encodeTileIndex(999)).toBe("999");
    expect(encodeTileIndex(1000)).toBe("x001/000");
    expect(tilePath({ level: 2, index: 1234067, width: 256 })).toBe("tile/2/x001/x234/067");
    expect(tilePath({ level: 0, index: 5, width: 17 })).toBe("tile/0/005.p/17");
    expect(tilePath({ level: "entries", index: 1000, width: 3 })).toBe("tile/entries/x001/000.p/3");
  });

  it("parse what they encode, and nothing else", () => {
    expect(parseTilePath(["2", "x001", "x234", "067"])).toEqual({ level: 2, index: 1234067, width: 256 });
    expect(parseTilePath(["0", "005.p", "17"])).toEqual({ level: 0, index: 5, width: 17 });
    expect(parseTilePath(["entries", "x001", "000.p", "3"])).toEqual({ level: "entries", index: 1000, width: 3 });
    for (const bad of [
      ["0"],
      ["00", "000"],
      ["01", "000"],
      ["64", "000"],
      ["0", "5"],
      ["0", "0005"],
      ["0", "001", "002"],
      ["0", "x000", "001"],
      ["0", "000.p", "0"],
      ["0", "000.p", "256"],
      ["0", "000.p", "07"],
      ["x", "000"],
      ["0", "abc"],
    ]) {
      expect(parseTilePath(bad), bad.join("/")).toBeNull();
    }
  });
});

describe("tilesOfLevel()", () => {
  it("gives a tree of 70,000 leaves the tiles the spec lists", () => {
    const level0 = tilesOfLevel(70_000, 0);
    expect(level0.filter((t) => t.width === 256)).toHaveLength(273);
    expect(level0.at(-1)).toEqual({ level: 0, index: 273, width: 112 });
    expect(tilesOfLevel(70_000, 1)).toEqual([
      { level: 1, index: 0, width: 256 },
      { level: 1, index: 1, width: 17 },
    ]);
    expect(tilesOfLevel(70_000, 2)).toEqual([{ level: 2, index: 0, width: 1 }]);
    expect(tilesOfLevel(256, 1)).toEqual([{ level: 1, index: 0, width: 1 }]);
    expect(hashesAtTileLevel(255, 1)).toBe(0);
  });
});

describe("encodeEntryBundle() and decodeEntryBundle()", () => {
  it("round-trip uint16 length-prefixed entries and reject truncation", () => {
    const entries = [new Uint8Array([1, 2, 3]), new Uint8Array(0), new Uint8Array(300).fill(9)];
    const bundle = encodeEntryBundle(entries);
    expect(bundle.length).toBe(3 * 2 + 303);
    expect(bundle.slice(0, 2)).toEqual(new Uint8Array([0, 3]));
    expect(decodeEntryBundle(bundle)).toEqual(entries);
    expect(decodeEntryBundle(bundle.slice(0, -1))).toBeNull();
    expect(() => encodeEntryBundle([new Uint8Array(65_536)])).toThrow(/at most/);
  });
});

describe("tileHashReader()", () => {
  it("builds from tiles exactly the proofs and roots the stored hashes give, across tile levels", async () => {
    const leaves = Array.from({ length: 70_000 }, (_, i) => leafHash(new TextEncoder().encode(`e${i}`)));
    const { read, stored } = storeTree(leaves);
    const fetched: string[] = [];
    const serveTile = async (tile: TileId) => {
      fetched.push(tilePath(tile));
      const level = tile.level * 8;
      const out = new Uint8Array(tile.width * 32);
      for (let i = 0; i < tile.width; i++) out.set(stored.get(`${level}/${tile.index * 256 + i}`)!, i * 32);
      return out;
    };
    for (const size of [1, 255, 256, 257, 65_536, 65_537, 70_000]) {
      const fromTiles = tileHashReader(size, serveTile);
      expect(bytesToHex(await treeHash(size, fromTiles))).toBe(bytesToHex(await treeHash(size, read)));
      for (const index of [0, size >> 1, size - 1]) {
        expect((await proveInclusion(index, size, fromTiles)).map(bytesToHex)).toEqual(
          (await proveInclusion(index, size, read)).map(bytesToHex),
        );
      }
      for (const old of [1, 200, 256, 65_536]) {
        if (old <= size)
          expect((await proveConsistency(old, size, fromTiles)).map(bytesToHex)).toEqual(
            (await proveConsistency(old, size, read)).map(bytesToHex),
          );
      }
    }
    expect(fetched).toContain("tile/2/000.p/1");
    expect(fetched).toContain("tile/1/001.p/17");
    await expect(tileHashReader(10, serveTile)([{ level: 4, index: 0 } satisfies SubtreeId])).rejects.toThrow(
      /not complete/,
    );
    await expect(tileHashReader(10, async () => new Uint8Array(5))([{ level: 0, index: 0 }])).rejects.toThrow(
      /not 10 hashes/,
    );
  });
});
