// A witness (`signet log witness`): cosigns a receipt log's checkpoint only after checking it is signed by the log and
// consistent with the last checkpoint this witness cosigned (its state file), then hands the cosignature to the log to
// publish. A timestamped Ed25519 cosignature (c2sp.org/tlog-cosignature, cosignature/v1) says: as of this time, this
// is the largest consistent tree I have seen for this origin.
import "server-only";
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Ed25519Keypair } from "../keys/parse-secret-key";
import { signEd25519, verifyEd25519Node } from "../keys/node-ed25519";
import {
  cosignatureMessage,
  cosignaturePayload,
  decodeBase64,
  encodeBase64,
  formatSignatureLine,
  formatVerifierKey,
  openCheckpoint,
  parseVerifierKey,
  proveConsistency,
  SIG_COSIGNATURE_V1,
  tileHashReader,
  verifyConsistency,
} from "../verify";
import { fetchCheckpoint, fetchTile, LogFetchError } from "./log-client";

interface WitnessState {
  origin: string;
  size: number;
  root: string;
}

export interface WitnessOptions {
  prefix: string;
  logKey: string;
  /** The witness's name (its key name, e.g. witness.example.com/w1). */
  name: string;
  keypair: Ed25519Keypair;
  stateFile: string;
  /** Post the cosigned checkpoint to `<prefix>/cosignature` for the log to publish. */
  submit: boolean;
  /** Epoch ms: the cosignature's timestamp (the witness's clock). */
  now: number;
}

export type WitnessResult =
  | { ok: true; size: number; cosigned: string; published: boolean }
  | { ok: false; reason: "bad_checkpoint" | "inconsistent" | "log_shrank"; detail: string };

/** The witness's verifier key (type 0x04), for the log's LOG_WITNESS_KEYS and for verifiers. */
export function witnessVerifierKey(name: string, keypair: Ed25519Keypair): string {
  return formatVerifierKey(name, keypair.publicKey, SIG_COSIGNATURE_V1);
}

/** Verifies the log's latest checkpoint against what this witness saw last, and cosigns it. */
export async function witnessLog(opts: WitnessOptions): Promise<WitnessResult> {
  const note = await fetchCheckpoint(opts.prefix);
  const opened = openCheckpoint(note, { logKey: opts.logKey, ed25519: verifyEd25519Node });
  if (!opened.ok)
    return {
      ok: false,
      reason: "bad_checkpoint",
      detail: `the checkpoint does not verify under the log key (${opened.reason})`,
    };
  const cp = opened.checkpoint;
  const state = existsSync(opts.stateFile) ? (JSON.parse(readFileSync(opts.stateFile, "utf8")) as WitnessState) : null;
  if (state) {
    const root = decodeBase64(state.root)!;
    if (cp.size < state.size)
      return { ok: false, reason: "log_shrank", detail: `size ${cp.size} after size ${state.size}` };
    const proof =
      cp.size === state.size
        ? []
        : await proveConsistency(
            state.size,
            cp.size,
            tileHashReader(cp.size, (t) => fetchTile(opts.prefix, t)),
          ).catch(() => null);
    // SECURITY: never cosign a tree that does not extend the one cosigned before: that is the witness's whole promise.
    if (!proof || !verifyConsistency(state.size, cp.size, root, cp.root, proof)) {
      return {
        ok: false,
        reason: "inconsistent",
        detail: `size ${cp.size} (root ${encodeBase64(cp.root)}) does not extend size ${state.size} (root ${state.root}) cosigned before`,
      };
    }
  }
  const key = parseVerifierKey(witnessVerifierKey(opts.name, opts.keypair))!;
  const timestamp = BigInt(Math.floor(opts.now / 1000));
  const line = formatSignatureLine(
    opts.name,
    key.keyId,
    cosignaturePayload(timestamp, signEd25519(cosignatureMessage(opened.note.text, timestamp), opts.keypair.seed)),
  );
  const cosigned = note + line;
  mkdirSync(path.dirname(path.resolve(opts.stateFile)), { recursive: true });
  writeFileSync(
    `${opts.stateFile}.tmp`,
    `${JSON.stringify({ origin: cp.origin, size: cp.size, root: encodeBase64(cp.root) } satisfies WitnessState, null, 2)}\n`,
  );
  renameSync(`${opts.stateFile}.tmp`, opts.stateFile);
  let published = false;
  if (opts.submit) {
    const res = await fetch(`${opts.prefix}/cosignature`, {
      method: "POST",
      headers: { "content-type": "text/plain; charset=utf-8" },
      body: cosigned,
      signal: AbortSignal.timeout(10_000),
    }).catch((err: unknown) => {
      throw new LogFetchError(
        `cannot reach ${opts.prefix}/cosignature: ${err instanceof Error ? err.message : "fetch failed"}`,
      );
    });
    if (!res.ok)
      throw new LogFetchError(
        `${opts.prefix}/cosignature refused the cosignature: HTTP ${res.status} ${(await res.text()).slice(0, 200)}`,
      );
    published = true;
  }
  return { ok: true, size: cp.size, cosigned, published };
}
