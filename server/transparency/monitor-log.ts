// The log monitor (`signet log monitor`): follows a receipt log's checkpoints and trusts nothing it is served. Each
// round it verifies the new checkpoint's log signature, proves it consistent with the last checkpoint it verified
// (kept in its state file, with the compact range of the tree at that size), fetches every new entry, recomputes the
// new root itself from them, re-verifies each entry's receipt signature under the operator's keys (the current key, or
// a retired key for a receipt timestamped before its retirement), and compares its view with other views it is given
// (another monitor's state, a witness's checkpoint). Any split view, inconsistency or unverifiable entry is a finding;
// the CLI exits 1 with the report.
// Across a log key rotation the monitor keeps its state: the log is the same tree under the same origin, so pinning the
// new key (or both, while the old one co-signs) continues from the last checkpoint verified under the old one.
// An inference logged twice is a finding too, across rounds: the state file also keeps a fingerprint of the inference id
// of each of the last MONITOR_REMEMBERED_ENTRIES (2^20) entries verified, so a repeat is caught however many rounds
// later it is logged, as long as its original is among those entries; an older original is no longer remembered.
import "server-only";
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import { verifyEd25519Node } from "../keys/node-ed25519";
import {
  checkOperatorSignature,
  decodeBase64,
  decodeEntryBundle,
  decodeReceiptEntry,
  encodeBase64,
  extendCompactRange,
  foldSubtrees,
  formatUnixMs,
  leafHash,
  openCheckpoint,
  proveConsistency,
  splitTile,
  tileFor,
  tileHashReader,
  TILE_WIDTH,
  verifyConsistency,
  type Checkpoint,
  type CompactRange,
  type OperatorKeys,
  type OperatorSignatureCheck,
} from "../verify";
import { fetchCheckpoint, fetchTile, LogFetchError } from "./log-client";
import {
  decodeRemembered,
  encodeRemembered,
  findRepeatedInferences,
  rememberInferences,
  type RememberedIds,
} from "./remember-inference-ids";

type FindingKind =
  | "bad_checkpoint_signature"
  | "log_shrank"
  | "split_view"
  | "inconsistent"
  | "entry_mismatch"
  | "unverifiable_entry"
  | "duplicate_entry";

interface Finding {
  kind: FindingKind;
  /** One sentence a person can act on. */
  detail: string;
  index?: number;
}

interface MonitorState {
  origin: string;
  size: number;
  /** base64 root of `size`. */
  root: string;
  /** base64 hashes of the compact range of `size`. */
  range: string[];
  /** The checkpoint note last verified (evidence if the log later contradicts it). */
  checkpoint: string;
  /**
   * base64 fingerprints of the inference ids of the last entries up to `size`, 16 bytes each, oldest first (see
   * remember-inference-ids). Absent in a state written before the monitor remembered them: none remembered.
   */
  seen?: string;
}

export interface MonitorOptions {
  /** The log prefix, e.g. https://signet.example.com/log. */
  prefix: string;
  /** The log's verifier key (pinned); during a log key rotation, the old and the new one: either's signature counts. */
  logKey: string | readonly string[];
  /** The operator keys every entry's receipt must be signed by: the current key, or a retired one before its retirement. */
  operatorKeys: OperatorKeys;
  /** Where the monitor keeps what it verified last; created on first run. */
  stateFile: string;
  /** Other views of the same log: checkpoint notes (a witness's, another monitor's last one). */
  compareWith?: readonly { label: string; checkpoint: string }[];
}

export interface MonitorReport {
  ok: boolean;
  previousSize: number;
  size: number;
  checked: number;
  findings: Finding[];
}

function readState(file: string): MonitorState | null {
  if (!existsSync(file)) return null;
  return JSON.parse(readFileSync(file, "utf8")) as MonitorState;
}

function writeState(file: string, state: MonitorState): void {
  mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const tmp = `${file}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(state, null, 2)}\n`);
  renameSync(tmp, file);
}

const b64 = (s: string) => {
  const bytes = decodeBase64(s);
  if (!bytes) throw new Error("monitor state is corrupt: a hash is not base64");
  return bytes;
};

/** The inference ids the state remembers (none without a state). */
function rememberedOf(state: MonitorState | null): RememberedIds {
  const remembered = decodeRemembered(state?.seen, state?.size ?? 0);
  if (!remembered)
    throw new Error("monitor state is corrupt: its remembered inference ids are not whole base64 fingerprints");
  return remembered;
}

/** Runs one monitoring round. Saves the new state only when the round found nothing wrong. */
export async function monitorLog(opts: MonitorOptions): Promise<MonitorReport> {
  const findings: Finding[] = [];
  const state = readState(opts.stateFile);
  const previous: Checkpoint = state
    ? { origin: state.origin, size: state.size, root: b64(state.root) }
    : { origin: "", size: 0, root: new Uint8Array(32) };
  const note = await fetchCheckpoint(opts.prefix);
  const opened = openCheckpoint(note, { logKey: opts.logKey, ed25519: verifyEd25519Node });
  if (!opened.ok) {
    return {
      ok: false,
      previousSize: previous.size,
      size: previous.size,
      checked: 0,
      findings: [
        {
          kind: "bad_checkpoint_signature",
          detail: `the served checkpoint does not verify under the log key (${opened.reason})`,
        },
      ],
    };
  }
  const current = opened.checkpoint;
  const report = (checked: number): MonitorReport => ({
    ok: findings.length === 0,
    previousSize: previous.size,
    size: current.size,
    checked,
    findings,
  });

  if (state && current.size < previous.size) {
    findings.push({
      kind: "log_shrank",
      detail: `the log signed size ${current.size} after size ${previous.size}: a log only grows`,
    });
    return report(0);
  }
  if (state && current.size === previous.size) {
    if (encodeBase64(current.root) !== state.root)
      findings.push({
        kind: "split_view",
        detail: `two checkpoints of size ${current.size} with different roots, both signed by the log (ours: ${state.root}, now: ${encodeBase64(current.root)})`,
      });
    await compareViews(opts, current, findings);
    return report(0);
  }
  const tiles = tileHashReader(current.size, (tile) => fetchTile(opts.prefix, tile));
  if (state && previous.size > 0) {
    const proof = await proveConsistency(previous.size, current.size, tiles).catch(() => null);
    if (!proof || !verifyConsistency(previous.size, current.size, previous.root, current.root, proof)) {
      findings.push({
        kind: "inconsistent",
        detail: `the checkpoint of size ${current.size} is not an extension of the one of size ${previous.size} this monitor verified: history was rewritten`,
      });
      return report(0);
    }
  }

  // Every new entry, hashed here: the root recomputed from them and the verified compact range must be the signed one.
  const range: CompactRange = state ? { size: state.size, hashes: state.range.map(b64) } : { size: 0, hashes: [] };
  const remembered = rememberedOf(state);
  const entries: { index: number; entry: Uint8Array }[] = [];
  for (let start = previous.size; start < current.size; start = (Math.floor(start / TILE_WIDTH) + 1) * TILE_WIDTH) {
    const bundle = tileFor(0, start, current.size);
    const decoded = decodeEntryBundle(
      await fetchTile(opts.prefix, { level: "entries", index: bundle.index, width: bundle.width }),
    );
    if (!decoded || decoded.length < bundle.width) throw new LogFetchError(`entry bundle ${bundle.index} is malformed`);
    for (let i = start - bundle.index * TILE_WIDTH; i < bundle.width; i++)
      entries.push({ index: bundle.index * TILE_WIDTH + i, entry: decoded[i]! });
  }
  const leaves = entries.map((e) => leafHash(e.entry));
  const next = extendCompactRange(range, leaves);
  const recomputed = foldSubtrees(next.hashes);
  if (encodeBase64(recomputed) !== encodeBase64(current.root)) {
    // Which entry does not hash to the tree's leaf: compared with the level-0 tiles the checkpoint's root binds.
    const culprits = await mismatchedEntries(opts.prefix, current.size, entries, leaves);
    for (const index of culprits)
      findings.push({
        kind: "entry_mismatch",
        index,
        detail: `entry ${index} does not hash to leaf ${index} of the signed tree: the entry was rewritten after it was logged`,
      });
    if (culprits.length === 0)
      findings.push({
        kind: "entry_mismatch",
        detail: `the entries ${previous.size}..${current.size - 1} do not hash to the signed root`,
      });
  }
  const logged: { index: number; inferenceId: string }[] = [];
  for (const { index, entry } of entries) {
    const decoded = decodeReceiptEntry(entry);
    if (!decoded) {
      findings.push({ kind: "unverifiable_entry", index, detail: `entry ${index} is not a receipt entry` });
      continue;
    }
    const signed = checkOperatorSignature(
      verifyEd25519Node,
      decoded.signedBytes,
      decoded.receipt.service_signature,
      opts.operatorKeys,
      decoded.receipt.timestamp,
    );
    if (!signed.ok)
      findings.push({
        kind: "unverifiable_entry",
        index,
        detail: `entry ${index} (inference ${String(decoded.receipt.inference_id)}): ${unverifiedBecause(signed)}`,
      });
    logged.push({ index, inferenceId: String(decoded.receipt.inference_id) });
  }
  // Against this round's earlier entries and the ones remembered from earlier rounds alike.
  for (const repeat of findRepeatedInferences(remembered, logged)) {
    findings.push({
      kind: "duplicate_entry",
      index: repeat.index,
      detail: `entry ${repeat.index}: inference ${repeat.inferenceId} is logged twice (first at entry ${repeat.firstIndex})`,
    });
  }
  await compareViews(opts, current, findings);
  if (findings.length === 0) {
    // No finding: every entry decoded, so `logged` is every entry from previous.size on, in order.
    const seen = encodeRemembered(
      rememberInferences(
        remembered,
        logged.map((e) => e.inferenceId),
      ),
    );
    writeState(opts.stateFile, {
      origin: current.origin,
      size: current.size,
      root: encodeBase64(current.root),
      range: next.hashes.map(encodeBase64),
      checkpoint: note,
      seen,
    });
  }
  return report(entries.length);
}

/** Why an entry's receipt signature does not stand for the operator, in words. */
function unverifiedBecause(check: Extract<OperatorSignatureCheck, { ok: false }>): string {
  const retired = check.retiredAt === null ? "" : formatUnixMs(check.retiredAt);
  switch (check.reason) {
    case "signature_invalid":
      return "its receipt signature does not verify under the operator key (nor under a retired one)";
    case "signed_after_retirement":
      return `its receipt is signed by the operator key ${check.pubkey}, retired at ${retired}, and timestamped at or after that`;
    case "timestamp_missing":
      return `its receipt is signed by the operator key ${check.pubkey}, retired at ${retired}, and has no timestamp to show it was signed before`;
  }
}

/** The indexes whose entry's leaf hash differs from the level-0 tile the log serves for them. */
async function mismatchedEntries(
  prefix: string,
  size: number,
  entries: readonly { index: number }[],
  leaves: readonly Uint8Array[],
): Promise<number[]> {
  const out: number[] = [];
  const tiles = new Map<number, Uint8Array[] | null>();
  for (let i = 0; i < entries.length; i++) {
    const tile = tileFor(0, entries[i]!.index, size);
    if (!tiles.has(tile.index)) tiles.set(tile.index, splitTile(await fetchTile(prefix, tile), tile.width));
    const served = tiles.get(tile.index)?.[entries[i]!.index - tile.index * TILE_WIDTH];
    if (!served || encodeBase64(served) !== encodeBase64(leaves[i]!)) out.push(entries[i]!.index);
  }
  return out;
}

/** Checks the log's checkpoint against other views of it: same size, same root; else a consistency proof from tiles. */
async function compareViews(opts: MonitorOptions, current: Checkpoint, findings: Finding[]): Promise<void> {
  for (const view of opts.compareWith ?? []) {
    const other = openCheckpoint(view.checkpoint, { logKey: opts.logKey, ed25519: verifyEd25519Node });
    if (!other.ok) {
      findings.push({
        kind: "bad_checkpoint_signature",
        detail: `${view.label}: its checkpoint does not verify under the log key (${other.reason})`,
      });
      continue;
    }
    const theirs = other.checkpoint;
    if (theirs.size === current.size) {
      if (encodeBase64(theirs.root) !== encodeBase64(current.root)) {
        findings.push({
          kind: "split_view",
          detail: `${view.label} was shown size ${theirs.size} with root ${encodeBase64(theirs.root)}; this monitor was shown root ${encodeBase64(current.root)}: the log signed both`,
        });
      }
      continue;
    }
    const [small, large] = theirs.size < current.size ? [theirs, current] : [current, theirs];
    const tiles = tileHashReader(large.size, (tile) => fetchTile(opts.prefix, tile));
    const proof = await proveConsistency(small.size, large.size, tiles).catch(() => null);
    if (!proof || !verifyConsistency(small.size, large.size, small.root, large.root, proof)) {
      findings.push({
        kind: "split_view",
        detail: `${view.label} was shown size ${theirs.size}, which is not consistent with this monitor's size ${current.size}: the log shows different histories`,
      });
    }
  }
}
