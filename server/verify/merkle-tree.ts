// RFC 6962 / RFC 9162 Merkle trees over SHA-256: leaf and node hashing, tree heads, inclusion and consistency proofs
// (building and verifying). Everything is stated over perfect subtrees, `(level, index)` = the hash of leaves
// [index·2^level, (index+1)·2^level), because that is what a log stores and what its tiles serve. Pure and browser-safe.
import { sha256 } from "@noble/hashes/sha2.js";

export const HASH_SIZE = 32;

/** A perfect subtree: the 2^level leaves starting at index·2^level. */
export interface SubtreeId {
  level: number;
  index: number;
}

/** Reads perfect-subtree hashes, in the order asked (a database, a tile cache). */
export type HashReader = (ids: readonly SubtreeId[]) => Promise<Uint8Array[]>;

/** Thrown for arguments no tree can have (a negative size, an index past the tree). */
export class MerkleArgumentError extends Error {
  override name = "MerkleArgumentError";
}

/** SHA-256 of the empty string: the root of the empty tree. */
export const EMPTY_ROOT = sha256(new Uint8Array(0));

/** The leaf hash: SHA-256(0x00 ‖ entry). */
export function leafHash(entry: Uint8Array): Uint8Array {
  const data = new Uint8Array(entry.length + 1);
  data.set(entry, 1);
  return sha256(data);
}

/** The interior node hash: SHA-256(0x01 ‖ left ‖ right). */
export function nodeHash(left: Uint8Array, right: Uint8Array): Uint8Array {
  const data = new Uint8Array(1 + 2 * HASH_SIZE);
  data[0] = 1;
  data.set(left, 1);
  data.set(right, 1 + HASH_SIZE);
  return sha256(data);
}

function assertSize(n: number, what: string): void {
  if (!Number.isSafeInteger(n) || n < 0) throw new MerkleArgumentError(`${what} must be a non-negative integer`);
}

/** The largest power of two strictly below n (n ≥ 2): RFC 6962's split point k. */
function splitPoint(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

/**
 * The perfect subtrees that make up the leaves [start, end), left to right, where start is a multiple of the largest
 * power of two not above end − start (true of every range RFC 6962's recursion names). Their sizes are the binary
 * digits of end − start, largest first.
 */
export function rangeSubtrees(start: number, end: number): SubtreeId[] {
  const out: SubtreeId[] = [];
  let at = start;
  let remaining = end - start;
  for (let level = 52; level >= 0 && remaining > 0; level--) {
    const size = 2 ** level;
    if (remaining >= size) {
      out.push({ level, index: at / size });
      at += size;
      remaining -= size;
    }
  }
  return out;
}

/** MTH of a range from its perfect subtrees' hashes (as rangeSubtrees lists them): folded right to left. */
export function foldSubtrees(hashes: readonly Uint8Array[]): Uint8Array {
  if (hashes.length === 0) return EMPTY_ROOT;
  let acc = hashes[hashes.length - 1]!;
  for (let i = hashes.length - 2; i >= 0; i--) acc = nodeHash(hashes[i]!, acc);
  return acc;
}

/** A proof as ranges: each element is MTH(D[start:end]). */
type Range = [start: number, end: number];

/** RFC 6962 §2.1.1 PATH(m, D[start:end]) as the ranges whose hashes it lists, leaf side first. */
function pathRanges(m: number, start: number, end: number, out: Range[]): void {
  const n = end - start;
  if (n <= 1) return;
  const k = splitPoint(n);
  if (m < k) {
    pathRanges(m, start, start + k, out);
    out.push([start + k, end]);
  } else {
    pathRanges(m - k, start + k, end, out);
    out.push([start, start + k]);
  }
}

/** RFC 6962 §2.1.2 SUBPROOF(m, D[start:end], b) as ranges. */
function subproofRanges(m: number, start: number, end: number, complete: boolean, out: Range[]): void {
  const n = end - start;
  if (m === n) {
    if (!complete) out.push([start, end]);
    return;
  }
  const k = splitPoint(n);
  if (m <= k) {
    subproofRanges(m, start, start + k, complete, out);
    out.push([start + k, end]);
  } else {
    subproofRanges(m - k, start + k, end, false, out);
    out.push([start, start + k]);
  }
}

/** Reads the MTH of each range through `read`, batching every subtree into one call. */
async function hashRanges(ranges: readonly Range[], read: HashReader): Promise<Uint8Array[]> {
  const parts = ranges.map(([a, b]) => rangeSubtrees(a, b));
  const hashes = await read(parts.flat());
  if (hashes.length !== parts.reduce((sum, p) => sum + p.length, 0))
    throw new Error("the hash reader answered the wrong number of hashes");
  let at = 0;
  return parts.map((p) => {
    const mine = hashes.slice(at, at + p.length);
    at += p.length;
    return foldSubtrees(mine);
  });
}

/** The root hash of the first `size` leaves. */
export async function treeHash(size: number, read: HashReader): Promise<Uint8Array> {
  assertSize(size, "tree size");
  if (size === 0) return EMPTY_ROOT;
  return (await hashRanges([[0, size]], read))[0]!;
}

/** The inclusion proof of leaf `index` in the tree of `size` leaves (RFC 6962 §2.1.1), leaf side first. */
export async function proveInclusion(index: number, size: number, read: HashReader): Promise<Uint8Array[]> {
  assertSize(index, "leaf index");
  assertSize(size, "tree size");
  if (index >= size) throw new MerkleArgumentError(`leaf index ${index} is not below tree size ${size}`);
  const ranges: Range[] = [];
  pathRanges(index, 0, size, ranges);
  return hashRanges(ranges, read);
}

/** The consistency proof from the tree of size1 leaves to the tree of size2 (RFC 6962 §2.1.2). */
export async function proveConsistency(size1: number, size2: number, read: HashReader): Promise<Uint8Array[]> {
  assertSize(size1, "first tree size");
  assertSize(size2, "second tree size");
  if (size1 > size2) throw new MerkleArgumentError(`first tree size ${size1} is above second tree size ${size2}`);
  if (size1 === 0 || size1 === size2) return [];
  const ranges: Range[] = [];
  subproofRanges(size1, 0, size2, true, ranges);
  return hashRanges(ranges, read);
}

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!;
  return diff === 0;
}

function isPowerOfTwo(n: number): boolean {
  let m = n;
  while (m > 1 && m % 2 === 0) m /= 2;
  return m === 1;
}

function wellFormed(proof: readonly Uint8Array[]): boolean {
  return proof.every((h) => h instanceof Uint8Array && h.length === HASH_SIZE);
}

/**
 * RFC 9162's walk up a proof path from node fn of a tree whose last node is sn: for each hash, `step(hash, left)` with
 * left = the hash is the left sibling. Returns the final sn (0 when the path reached the root), or -1 when the path is
 * longer than the tree is high.
 */
function walkPath(
  fn0: number,
  sn0: number,
  path: readonly Uint8Array[],
  step: (hash: Uint8Array, left: boolean) => void,
): number {
  let fn = fn0;
  let sn = sn0;
  for (const p of path) {
    if (sn === 0) return -1;
    if (fn % 2 === 1 || fn === sn) {
      step(p, true);
      // A right-edge node with no right sibling: climb until it is a right child (or the root).
      while (fn % 2 === 0 && fn !== 0) {
        fn = Math.floor(fn / 2);
        sn = Math.floor(sn / 2);
      }
    } else {
      step(p, false);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn;
}

/**
 * The root an inclusion proof leads to (RFC 9162 §2.1.3.2), or null when the proof cannot be one for (index, size):
 * wrong length, malformed hashes. Verifying compares it with a trusted root.
 */
export function rootFromInclusionProof(
  index: number,
  size: number,
  leaf: Uint8Array,
  proof: readonly Uint8Array[],
): Uint8Array | null {
  if (!Number.isSafeInteger(index) || !Number.isSafeInteger(size) || index < 0 || index >= size) return null;
  if (!(leaf instanceof Uint8Array) || leaf.length !== HASH_SIZE || !wellFormed(proof)) return null;
  let r = leaf;
  const sn = walkPath(index, size - 1, proof, (p, left) => {
    r = left ? nodeHash(p, r) : nodeHash(r, p);
  });
  return sn === 0 ? r : null;
}

/** True when `proof` shows the leaf hash `leaf` at `index` in the tree of `size` leaves whose root is `root`. */
export function verifyInclusion(
  index: number,
  size: number,
  leaf: Uint8Array,
  proof: readonly Uint8Array[],
  root: Uint8Array,
): boolean {
  if (!(root instanceof Uint8Array) || root.length !== HASH_SIZE) return false;
  const computed = rootFromInclusionProof(index, size, leaf, proof);
  return computed !== null && equalBytes(computed, root);
}

/**
 * True when `proof` shows that the tree of size1 leaves with root1 is a prefix of the tree of size2 leaves with root2
 * (RFC 9162 §2.1.4.2). Equal sizes need equal roots and an empty proof; size1 = 0 is consistent with anything only
 * with an empty proof.
 */
export function verifyConsistency(
  size1: number,
  size2: number,
  root1: Uint8Array,
  root2: Uint8Array,
  proof: readonly Uint8Array[],
): boolean {
  if (!Number.isSafeInteger(size1) || !Number.isSafeInteger(size2) || size1 < 0 || size2 < size1) return false;
  if (
    !(root1 instanceof Uint8Array) ||
    !(root2 instanceof Uint8Array) ||
    root1.length !== HASH_SIZE ||
    root2.length !== HASH_SIZE
  )
    return false;
  if (!wellFormed(proof)) return false;
  if (size1 === size2) return proof.length === 0 && equalBytes(root1, root2);
  if (size1 === 0) return proof.length === 0;
  if (proof.length === 0) return false;
  const path = [...proof];
  // A first tree that is a perfect left subtree of the second is not repeated in the proof: it is root1 itself.
  if (isPowerOfTwo(size1)) path.unshift(root1);
  let fn = size1 - 1;
  let sn = size2 - 1;
  while (fn % 2 === 1) {
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  let fr = path[0]!;
  let sr = path[0]!;
  const end = walkPath(fn, sn, path.slice(1), (c, left) => {
    if (left) {
      fr = nodeHash(c, fr);
      sr = nodeHash(c, sr);
    } else {
      sr = nodeHash(sr, c);
    }
  });
  return end === 0 && equalBytes(fr, root1) && equalBytes(sr, root2);
}

/**
 * The perfect subtrees completed by appending leaves [oldSize, newSize): every (level, index) whose last leaf lies in
 * the new range, lowest level first. A log stores these, and only these, after an append.
 */
export function newSubtrees(oldSize: number, newSize: number): SubtreeId[] {
  const out: SubtreeId[] = [];
  for (let level = 0; 2 ** level <= newSize; level++) {
    const size = 2 ** level;
    const first = Math.floor(oldSize / size);
    const last = Math.floor(newSize / size);
    for (let index = first; index < last; index++) out.push({ level, index });
  }
  return out;
}

/** A compact range: the hashes of the perfect subtrees that make up leaves [0, size), largest first. */
export interface CompactRange {
  size: number;
  hashes: Uint8Array[];
}

/** The compact range after appending `leaves` (leaf hashes): what a monitor keeps to recompute each new root itself. */
export function extendCompactRange(range: CompactRange, leaves: readonly Uint8Array[]): CompactRange {
  const levels = rangeSubtrees(0, range.size).map((s) => s.level);
  if (levels.length !== range.hashes.length)
    throw new MerkleArgumentError("a compact range needs one hash per perfect subtree of its size");
  const stack = range.hashes.map((hash, i) => ({ level: levels[i]!, hash }));
  for (const leaf of leaves) {
    stack.push({ level: 0, hash: leaf });
    while (stack.length >= 2 && stack[stack.length - 1]!.level === stack[stack.length - 2]!.level) {
      const right = stack.pop()!;
      const left = stack.pop()!;
      stack.push({ level: left.level + 1, hash: nodeHash(left.hash, right.hash) });
    }
  }
  return { size: range.size + leaves.length, hashes: stack.map((s) => s.hash) };
}
