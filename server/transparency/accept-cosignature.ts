// Publishing witness cosignatures: a witness that verified a checkpoint's consistency posts the checkpoint back with
// its cosignature line; the log keeps the lines of the witnesses it knows (LOG_WITNESS_KEYS) that verify over exactly
// the checkpoint it signed, and serves them with that checkpoint from then on.
import "server-only";
import type { DbClient } from "../db";
import { AppError } from "../errors";
import { logEvent, type Logger } from "../log";
import { checkNoteSignature, formatSignatureLine, parseCheckpointText, parseSignedNote } from "../verify";
import { verifyEd25519Node } from "../keys/node-ed25519";
import type { LogIdentity } from "../keys/log-key";
import { readCheckpoint, type StoredCheckpoint } from "./read-log";

/** Stores the known witnesses' cosignatures found in `noteText`; answers the checkpoint with every cosignature it has. */
export async function acceptCosignature(
  db: DbClient,
  id: LogIdentity,
  noteText: string,
  log: Logger,
): Promise<StoredCheckpoint> {
  const note = parseSignedNote(noteText);
  const checkpoint = note ? parseCheckpointText(note.text) : null;
  if (!note || !checkpoint)
    throw new AppError("invalid_request", "the body must be a signed checkpoint note", { detail: "body" });
  const ours = await readCheckpoint(db, checkpoint.size);
  // SECURITY: a cosignature counts only over the exact text this log signed for that size.
  if (!ours || parseSignedNote(ours.note)?.text !== note.text)
    throw new AppError("not_found", "this log signed no such checkpoint");
  const accepted: { witness: string; line: string }[] = [];
  for (const witness of id.witnesses) {
    for (const sig of note.signatures) {
      if (sig.name !== witness.name || sig.keyId !== witness.keyId) continue;
      if (!checkNoteSignature(note.text, sig, witness, verifyEd25519Node).ok)
        throw new AppError("invalid_signature", `the cosignature of ${witness.name} does not verify`);
      accepted.push({ witness: witness.name, line: formatSignatureLine(sig.name, sig.keyId, sig.payload) });
    }
  }
  if (accepted.length === 0)
    throw new AppError("forbidden", "no cosignature by a witness this log lists (LOG_WITNESS_KEYS)");
  for (const a of accepted) {
    await db.logCosignature.upsert({
      where: { size_witness: { size: BigInt(checkpoint.size), witness: a.witness } },
      create: { size: BigInt(checkpoint.size), witness: a.witness, line: a.line },
      update: { line: a.line },
    });
    logEvent(log, "log.cosigned", { size: checkpoint.size, witness: a.witness });
  }
  return (await readCheckpoint(db, checkpoint.size))!;
}
