// The public verifier library: pure, browser-safe receipt verification (no Node built-ins, Next, Prisma or env reads).
export { canonicalJson, CanonicalJsonError } from "./canonical-json";
export { sha256Hex, promptHashCandidates, promptHashOfMessages, legacyPromptHashOfMessages, responseText, responseHash } from "./hashes";
export type { PromptHashCandidate, PromptHashForm, Sha256Hex } from "./hashes";
export { parseUsdcToUnits, usdcNumberToUnits, formatUnitsAsUsdc, unitsToUsdcNumber, USDC_DECIMALS } from "./amounts";
export { decodeBase58, isBase58PublicKey, verifyEd25519Noble } from "./ed25519";
export type { Ed25519Backend } from "./ed25519";
export { createVerifier, nobleVerifier, verifyEd25519, verifyReceipt, verifySignatureOnly, verifyForExplorer, verifyVerdictSignature } from "./create-verifier";
export type { Verifier } from "./create-verifier";
export { VerifierFetchError } from "./json-rpc";
export { parseReceiptText, decodeBase64Utf8 } from "./parse-receipt";
export type { ParseReceiptResult } from "./parse-receipt";
export type { FetchLike, VerifierFetchReason } from "./json-rpc";
export * from "./networks";
export { receiptSigningBytes, VerifyInputError, CHECK_NAMES } from "./verify-receipt";
export type { VerifyResult, SignatureOnlyResult, VerifyReceiptInput, SignatureOnlyInput, CheckName, Checks } from "./verify-receipt";
export { readExplorerInput, readTextOrJson } from "./explorer";
export type { ExplorerInput, ExplorerVerdict, ExplorerVerifyInput } from "./explorer";
export { txExplorerUrl, addressExplorerUrl, explorerName } from "./explorer-urls";
