// Known-answer vectors (the RFC 6962 test tree of Certificate Transparency, as in transparency-dev/merkle), an
// independent recomputation straight from RFC 6962's recursive definitions for sizes 1..1025 and around 2^16, and
// property tests: every proof verifies, and any changed byte, index or size makes it fail.
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, hexToBytes } from "@noble/hashes/utils.js";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { storeTree } from "./fixtures/store-tree";
import {
  EMPTY_ROOT,
  extendCompactRange,
  foldSubtrees,
  leafHash,
  nodeHash,
  proveConsistency,
  proveInclusion,
  treeHash,
  verifyConsistency,
  verifyInclusion,
} from "./merkle-tree";

const LEAVES = ["", "00", "10", "2021", "3031", "40414243", "5051525354555657", "606162636465666768696a6b6c6d6e6f"].map(
  hexToBytes,
);
const ROOTS = [
  "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
  "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
  "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
  "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
  "4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
  "76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
  "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
  "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
];
const LEAF_HASHES = [
  "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
  "96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
  "0298d122906dcfc10892cb53a73992fc5b9f493ea4c9badb27b791b4127a7fe7",
  "07506a85fd9dd2f120eb694f86011e5bb4662e5c415a62917033d4a9624487e7",
  "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
  "4271a26be0d8a84f0bd54c8c302e7cb3a3b5d1fa6780a40bcce2873477dab658",
  "b08693ec2e721597130641e8211e7eedccb4c26413963eee6c1e2ed16ffb1a5f",
  "46f6ffadd3d06a09ff3c5860d2755c8b9819db7df44251788c7d8e3180de8eb1",
];
/** (leaf index, 0-based; tree size; proof). */
const INCLUSION: [number, number, string[]][] = [
  [0, 1, []],
  [
    0,
    8,
    [
      "96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
      "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
      "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4",
    ],
  ],
  [
    5,
    8,
    [
      "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
      "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
      "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
    ],
  ],
  [2, 3, ["fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125"]],
  [
    1,
    5,
    [
      "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
      "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
      "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
    ],
  ],
];
const CONSISTENCY: [number, number, string[]][] = [
  [1, 1, []],
  [
    1,
    8,
    [
      "96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
      "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
      "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4",
    ],
  ],
  [
    6,
    8,
    [
      "0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a",
      "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
      "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
    ],
  ],
  [
    2,
    5,
    [
      "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
      "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
    ],
  ],
  [
    6,
    7,
    [
      "0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a",
      "b08693ec2e721597130641e8211e7eedccb4c26413963eee6c1e2ed16ffb1a5f",
      "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
    ],
  ],
];

// RFC 6962 §2.1, written out literally over leaf hashes: the independent recomputation.
const largestPow2Below = (n: number) => 2 ** Math.floor(Math.log2(n - 1));
function mth(l: readonly Uint8Array[]): Uint8Array {
  if (l.length === 0) return sha256(new Uint8Array(0));
  if (l.length === 1) return l[0]!;
  const k = largestPow2Below(l.length);
  return nodeHash(mth(l.slice(0, k)), mth(l.slice(k)));
}
function path(m: number, l: readonly Uint8Array[]): Uint8Array[] {
  if (l.length <= 1) return [];
  const k = largestPow2Below(l.length);
  return m < k ? [...path(m, l.slice(0, k)), mth(l.slice(k))] : [...path(m - k, l.slice(k)), mth(l.slice(0, k))];
}
function subproof(m: number, l: readonly Uint8Array[], b: boolean): Uint8Array[] {
  if (m === l.length) return b ? [] : [mth(l)];
  const k = largestPow2Below(l.length);
  return m <= k
    ? [...subproof(m, l.slice(0, k), b), mth(l.slice(k))]
    : [...subproof(m - k, l.slice(k), false), mth(l.slice(0, k))];
}

const hex = (hs: readonly Uint8Array[]) => hs.map(bytesToHex);
const syntheticLeaves = (n: number) =>
  Array.from({ length: n }, (_, i) => leafHash(new TextEncoder().encode(`entry ${i}`)));

describe("leafHash() and treeHash()", () => {
  it("hash the RFC 6962 test leaves and every prefix of the test tree to the known answers", async () => {
    expect(LEAVES.map((l) => bytesToHex(leafHash(l)))).toEqual(LEAF_HASHES);
    const { read } = storeTree(LEAVES.map(leafHash));
    for (let size = 1; size <= 8; size++) expect(bytesToHex(await treeHash(size, read))).toBe(ROOTS[size - 1]);
    expect(bytesToHex(await treeHash(0, read))).toBe(bytesToHex(EMPTY_ROOT));
    expect(bytesToHex(EMPTY_ROOT)).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  });

  it("rejects malformed sizes", async () => {
    const { read } = storeTree(LEAVES.map(leafHash));
    await expect(treeHash(-1, read)).rejects.toThrow(/non-negative/);
    await expect(treeHash(1.5, read)).rejects.toThrow(/non-negative/);
  });
});

describe("proveInclusion() and verifyInclusion()", () => {
  it("produce and accept the known-answer inclusion proofs", async () => {
    const { read } = storeTree(LEAVES.map(leafHash));
    for (const [index, size, proof] of INCLUSION) {
      expect(hex(await proveInclusion(index, size, read))).toEqual(proof);
      expect(
        verifyInclusion(index, size, leafHash(LEAVES[index]!), proof.map(hexToBytes), hexToBytes(ROOTS[size - 1]!)),
      ).toBe(true);
      expect(
        verifyInclusion(index ^ 1, size, leafHash(LEAVES[index]!), proof.map(hexToBytes), hexToBytes(ROOTS[size - 1]!)),
      ).toBe(false);
    }
  });

  it("agree with RFC 6962's PATH for every leaf of every size up to 130 and around the tile and 2^16 boundaries", async () => {
    const leaves = syntheticLeaves(65_540);
    const { read } = storeTree(leaves);
    const sizes = [...Array.from({ length: 130 }, (_, i) => i + 1), 255, 256, 257, 511, 512, 513, 1023, 1024, 1025];
    for (const size of sizes) {
      const prefix = leaves.slice(0, size);
      const root = mth(prefix);
      expect(bytesToHex(await treeHash(size, read))).toBe(bytesToHex(root));
      const indexes = size <= 130 ? Array.from({ length: size }, (_, i) => i) : [0, 1, size >> 1, size - 2, size - 1];
      for (const index of indexes) {
        const proof = await proveInclusion(index, size, read);
        expect(hex(proof)).toEqual(hex(path(index, prefix)));
        expect(verifyInclusion(index, size, leaves[index]!, proof, root)).toBe(true);
      }
    }
    for (const size of [65_535, 65_536, 65_537]) {
      const root = await treeHash(size, read);
      for (const index of [0, 255, 256, 65_534, size - 1]) {
        expect(verifyInclusion(index, size, leaves[index]!, await proveInclusion(index, size, read), root)).toBe(true);
      }
    }
  });

  it("rejects an index past the tree and malformed proofs", async () => {
    const { read } = storeTree(LEAVES.map(leafHash));
    await expect(proveInclusion(8, 8, read)).rejects.toThrow(/not below/);
    const root = hexToBytes(ROOTS[7]!);
    const proof = INCLUSION[2]![2].map(hexToBytes);
    const leaf = leafHash(LEAVES[5]!);
    expect(verifyInclusion(5, 8, leaf, proof, root)).toBe(true);
    expect(verifyInclusion(8, 8, leaf, proof, root)).toBe(false);
    expect(verifyInclusion(-1, 8, leaf, proof, root)).toBe(false);
    expect(verifyInclusion(5, 16, leaf, proof, root)).toBe(false);
    expect(verifyInclusion(5, 4, leaf, proof, root)).toBe(false);
    expect(verifyInclusion(5, 8, leaf, [...proof, root], root)).toBe(false);
    expect(verifyInclusion(5, 8, leaf, [root, ...proof], root)).toBe(false);
    expect(verifyInclusion(5, 8, leaf, proof.slice(0, 2), root)).toBe(false);
    expect(verifyInclusion(5, 8, leaf, [...proof.slice(0, 2), new Uint8Array(31)], root)).toBe(false);
    expect(verifyInclusion(5, 8, new Uint8Array(0), proof, root)).toBe(false);
    expect(verifyInclusion(0, 0, leaf, [], EMPTY_ROOT)).toBe(false);
    expect(verifyInclusion(0, 1, leaf, [], leaf)).toBe(true);
    expect(verifyInclusion(0, 1, leaf, [leaf], leaf)).toBe(false);
  });

  it("verify for any (index, size) and fail for any changed byte of the leaf, the proof or the root", async () => {
    const leaves = syntheticLeaves(600);
    const { read } = storeTree(leaves);
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 600 }),
        fc.nat(),
        fc.nat(),
        fc.integer({ min: 0, max: 31 }),
        fc.integer({ min: 1, max: 255 }),
        async (size, rawIndex, pick, byte, flip) => {
          const index = rawIndex % size;
          const root = await treeHash(size, read);
          const proof = await proveInclusion(index, size, read);
          expect(verifyInclusion(index, size, leaves[index]!, proof, root)).toBe(true);
          const bad = (h: Uint8Array) => {
            const copy = h.slice();
            copy[byte] = copy[byte]! ^ flip;
            return copy;
          };
          expect(verifyInclusion(index, size, bad(leaves[index]!), proof, root)).toBe(false);
          expect(verifyInclusion(index, size, leaves[index]!, proof, bad(root))).toBe(false);
          if (proof.length > 0) {
            const at = pick % proof.length;
            expect(
              verifyInclusion(
                index,
                size,
                leaves[index]!,
                proof.map((h, i) => (i === at ? bad(h) : h)),
                root,
              ),
            ).toBe(false);
          }
          if (size > 1) expect(verifyInclusion((index + 1) % size, size, leaves[index]!, proof, root)).toBe(false);
        },
      ),
      { numRuns: 400 },
    );
  });
});

describe("proveConsistency() and verifyConsistency()", () => {
  it("produce and accept the known-answer consistency proofs", async () => {
    const { read } = storeTree(LEAVES.map(leafHash));
    for (const [size1, size2, proof] of CONSISTENCY) {
      expect(hex(await proveConsistency(size1, size2, read))).toEqual(proof);
      expect(
        verifyConsistency(
          size1,
          size2,
          hexToBytes(ROOTS[size1 - 1]!),
          hexToBytes(ROOTS[size2 - 1]!),
          proof.map(hexToBytes),
        ),
      ).toBe(true);
    }
    expect(
      verifyConsistency(6, 8, hexToBytes(ROOTS[4]!), hexToBytes(ROOTS[7]!), CONSISTENCY[2]![2].map(hexToBytes)),
    ).toBe(false);
  });

  it("agree with RFC 6962's PROOF for every pair of sizes up to 70 and across the powers of two up to 1025", async () => {
    const leaves = syntheticLeaves(1025);
    const { read } = storeTree(leaves);
    const pairs: [number, number][] = [];
    for (let n = 1; n <= 70; n++) for (let m = 1; m <= n; m++) pairs.push([m, n]);
    for (const m of [1, 2, 3, 127, 128, 129, 255, 256, 257, 511, 512])
      for (const n of [m, m + 1, 512, 513, 1023, 1024, 1025]) if (m <= n) pairs.push([m, n]);
    for (const [m, n] of pairs) {
      const proof = await proveConsistency(m, n, read);
      expect(hex(proof)).toEqual(m === n ? [] : hex(subproof(m, leaves.slice(0, n), true)));
      expect(verifyConsistency(m, n, mth(leaves.slice(0, m)), mth(leaves.slice(0, n)), proof)).toBe(true);
    }
  });

  it("rejects the edge cases RFC 9162 names", () => {
    const a = hexToBytes(ROOTS[0]!);
    const b = hexToBytes(ROOTS[1]!);
    expect(verifyConsistency(0, 0, a, a, [])).toBe(true);
    expect(verifyConsistency(1, 1, a, b, [])).toBe(false);
    expect(verifyConsistency(1, 1, a, a, [a])).toBe(false);
    expect(verifyConsistency(0, 1, a, b, [])).toBe(true);
    expect(verifyConsistency(0, 1, a, b, [a])).toBe(false);
    expect(verifyConsistency(2, 1, a, b, [])).toBe(false);
    expect(verifyConsistency(1, 2, a, b, [])).toBe(false);
  });

  it("verify for any pair of sizes and fail for any changed byte of either root or the proof", async () => {
    const leaves = syntheticLeaves(600);
    const { read } = storeTree(leaves);
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 600 }),
        fc.integer({ min: 1, max: 600 }),
        fc.nat(),
        fc.integer({ min: 0, max: 31 }),
        fc.integer({ min: 1, max: 255 }),
        async (x, y, pick, byte, flip) => {
          const [m, n] = x <= y ? [x, y] : [y, x];
          const r1 = await treeHash(m, read);
          const r2 = await treeHash(n, read);
          const proof = await proveConsistency(m, n, read);
          expect(verifyConsistency(m, n, r1, r2, proof)).toBe(true);
          const bad = (h: Uint8Array) => {
            const copy = h.slice();
            copy[byte] = copy[byte]! ^ flip;
            return copy;
          };
          if (m < n) {
            expect(verifyConsistency(m, n, bad(r1), r2, proof)).toBe(false);
            expect(verifyConsistency(m, n, r1, bad(r2), proof)).toBe(false);
            const at = pick % proof.length;
            expect(
              verifyConsistency(
                m,
                n,
                r1,
                r2,
                proof.map((h, i) => (i === at ? bad(h) : h)),
              ),
            ).toBe(false);
          }
        },
      ),
      { numRuns: 400 },
    );
  });
});

describe("extendCompactRange()", () => {
  it("recomputes every root of a growing tree from its compact range alone", async () => {
    const leaves = syntheticLeaves(300);
    const { read } = storeTree(leaves);
    let range = { size: 0, hashes: [] as Uint8Array[] };
    for (const step of [1, 1, 2, 3, 7, 16, 25, 201, 44]) {
      range = extendCompactRange(range, leaves.slice(range.size, range.size + step));
      expect(bytesToHex(foldSubtrees(range.hashes))).toBe(bytesToHex(await treeHash(range.size, read)));
    }
    expect(() => extendCompactRange({ size: 3, hashes: [] }, [])).toThrow(/one hash per perfect subtree/);
  });
});
