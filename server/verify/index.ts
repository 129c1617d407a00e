// The public verifier library: pure, browser-safe receipt verification (no Node built-ins, Next, Prisma or env reads).
export { canonicalJson, CanonicalJsonError } from "./canonical-json";
export {
  sha256Hex,
  promptHashCandidates,
  promptHashOfMessages,
  legacyPromptHashOfMessages,
  responseText,
  responseHash,
  RESPONSE_FORMS,
} from "./hashes";
export type { PromptHashCandidate, PromptHashForm, Sha256Hex } from "./hashes";
export {
  embeddingInputsOf,
  embeddingsPromptHash,
  embeddingsResponseHash,
  embeddingVectorsOf,
  float32VectorOf,
  float32VectorFromBase64,
  float32VectorToBase64,
} from "./embedding-hashes";
export type { EmbeddingInput, Sha256Incremental } from "./embedding-hashes";
export { responsesPromptMessages } from "./responses-prompt";
export type { ResponsesPromptMessage } from "./responses-prompt";
export { parseUsdcToUnits, usdcNumberToUnits, formatUnitsAsUsdc, unitsToUsdcNumber, USDC_DECIMALS } from "./amounts";
export { decodeBase58, isBase58PublicKey, verifyEd25519Noble } from "./ed25519";
export type { Ed25519Backend } from "./ed25519";
export {
  createVerifier,
  nobleVerifier,
  verifyEd25519,
  verifyReceipt,
  verifySignatureOnly,
  verifyForExplorer,
  verifyVerdictSignature,
} from "./create-verifier";
export type { Verifier } from "./create-verifier";
export { VerifierFetchError } from "./json-rpc";
export { parseReceiptText, decodeBase64Utf8 } from "./parse-receipt";
export type { ParseReceiptResult } from "./parse-receipt";
export type { FetchLike, VerifierFetchReason } from "./json-rpc";
export * from "./networks";
export {
  createNetworkRegistry,
  nativeAmountUnits,
  NetworkRegistryError,
  SHIPPED_NETWORK_ROWS,
  SHIPPED_NETWORKS,
} from "./network-registry";
export type {
  EvmNetworkRow,
  NetworkFamily,
  NetworkId,
  NetworkRegistry,
  NetworkRow,
  SvmNetworkRow,
} from "./network-registry";
export { receiptSigningBytes, VerifyInputError, CHECK_NAMES } from "./verify-receipt";
export { parseOperatorKeys, checkOperatorSignature, formatUnixMs } from "./operator-keys";
export type {
  OperatorKeys,
  RetiredOperatorKey,
  OperatorSignatureCheck,
  OperatorSignatureFailure,
} from "./operator-keys";
export type {
  VerifyResult,
  SignatureOnlyResult,
  VerifyReceiptInput,
  SignatureOnlyInput,
  CheckName,
  Checks,
} from "./verify-receipt";
export { readExplorerInput, readTextOrJson } from "./explorer";
export type { ExplorerInput, ExplorerVerdict, ExplorerVerifyInput } from "./explorer";
export { txExplorerUrl, addressExplorerUrl, explorerName } from "./explorer-urls";
export {
  EMPTY_ROOT,
  HASH_SIZE,
  leafHash,
  nodeHash,
  treeHash,
  proveInclusion,
  proveConsistency,
  verifyInclusion,
  verifyConsistency,
  rootFromInclusionProof,
  rangeSubtrees,
  foldSubtrees,
  newSubtrees,
  extendCompactRange,
  MerkleArgumentError,
} from "./merkle-tree";
export type { HashReader, SubtreeId, CompactRange } from "./merkle-tree";
export {
  TILE_HEIGHT,
  TILE_WIDTH,
  MAX_ENTRY_BYTES,
  encodeTileIndex,
  tilePath,
  parseTilePath,
  hashesAtTileLevel,
  tileFor,
  tilesOfLevel,
  encodeEntryBundle,
  decodeEntryBundle,
  splitTile,
  tileHashReader,
  perfectRoot,
  rootOfLeaves,
  TileError,
} from "./log-tiles";
export type { TileId, TileFetcher } from "./log-tiles";
export {
  SIG_ED25519,
  SIG_COSIGNATURE_V1,
  encodeBase64,
  decodeBase64,
  noteKeyId,
  formatVerifierKey,
  parseVerifierKey,
  formatSignatureLine,
  parseSignedNote,
  cosignatureMessage,
  cosignaturePayload,
  checkNoteSignature,
  findKeySignature,
  isValidKeyName,
} from "./signed-note";
export type { NoteVerifierKey, NoteSignature, ParsedNote, NoteSignatureType } from "./signed-note";
export {
  RECEIPT_ENTRY_TAG,
  formatCheckpointText,
  parseCheckpointText,
  encodeReceiptEntry,
  decodeReceiptEntry,
  openCheckpoint,
  verifyReceiptInclusion,
  checkpointsConsistent,
} from "./log-checkpoint";
export type {
  Checkpoint,
  CheckpointFailure,
  OpenCheckpointOptions,
  OpenedCheckpoint,
  ReceiptLogProof,
  InclusionFailure,
  ReceiptInclusionResult,
} from "./log-checkpoint";
