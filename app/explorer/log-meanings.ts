// What each way a log inclusion check can fail means to a person, and what they can do about it. The codes are the
// verifier's (server/verify/log-checkpoint.ts) and the proof route's (`log_pending`, `not_found`, `not_logged`).

export interface LogFailureMeaning {
  title: string;
  meaning: string;
  next: string;
}

export const LOG_FAILURE_MEANINGS: Record<string, LogFailureMeaning> = {
  not_included: {
    title: "This receipt is not the entry the log holds for it",
    meaning:
      "The service's proof puts this receipt's id at a position in the signed log checkpoint, but the receipt you gave does not hash to the entry there. Either the receipt was changed after it was issued (any changed field changes its log entry), or it claims an id whose log entry is a different receipt.",
    next: "Compare it with the copy at its permalink, which is what the log holds for this id. If the signature check also fails, its fields were altered. If the operator's own copy fails here, report it to the operator.",
  },
  log_pending: {
    title: "Not in a signed checkpoint yet",
    meaning:
      "The receipt is staged for the log, but no signed checkpoint includes it yet. The log normally signs a new checkpoint within seconds.",
    next: "Verify again in a minute. A receipt that stays out of the log for long is worth reporting to the operator.",
  },
  not_logged: {
    title: "Issued before the log existed",
    meaning:
      "The service has this receipt, but it was issued before the public receipt log started, so there is no inclusion proof for it.",
    next: "Nothing to do: its signature check above is what vouches for it.",
  },
  not_found: {
    title: "The log has no receipt with this id",
    meaning:
      "This service never issued a receipt with this inference id: it comes from another deployment, or its id was changed.",
    next: "Check the receipt against the deployment that issued it; on this one, its fields are not vouched for by the log.",
  },
  size_mismatch: {
    title: "The proof and the checkpoint disagree",
    meaning: "The proof is for a tree of another size than the checkpoint it came with.",
    next: "Verify again; if it persists, report it to the operator.",
  },
  malformed_proof: {
    title: "The proof is malformed",
    meaning: "The service's inclusion proof could not be read.",
    next: "Verify again; if it persists, report it to the operator.",
  },
  log_signature_invalid: {
    title: "The checkpoint is not signed by the log key",
    meaning: "The checkpoint's signature does not verify under the log's published key: it cannot be trusted.",
    next: "Report it to the operator.",
  },
  log_signature_missing: {
    title: "The checkpoint is not signed by the log key",
    meaning: "The checkpoint carries no signature by the log's published key: it cannot be trusted.",
    next: "Report it to the operator.",
  },
};

/** Any other failure (the checkpoint's form, the origin, witnesses, the network): named by its code. */
export const OTHER_LOG_FAILURE: LogFailureMeaning = {
  title: "Inclusion could not be proven",
  meaning: "The log's proof or checkpoint could not be checked.",
  next: "Verify again; if it persists, report it to the operator.",
};
