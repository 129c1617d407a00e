// The public verifier library: pure, browser-safe receipt verification (no Node built-ins, Next, Prisma or env reads).
export { canonicalJson, CanonicalJsonError } from "./canonical-json";
export { sha256Hex, promptHashCandidates, promptHashOfMessages, legacyPromptHashOfMessages, responseText, responseHash } from "./hashes";
export type { PromptHashCandidate, PromptHashForm } from "./hashes";
export { parseUsdcToUnits, usdcNumberToUnits, formatUnitsAsUsdc, unitsToUsdcNumber, USDC_DECIMALS } from "./amounts";
export { decodeBase58, verifyEd25519, isBase58PublicKey } from "./ed25519";
export { VerifierFetchError } from "./json-rpc";
export { parseReceiptText, decodeBase64Utf8 } from "./parse-receipt";
export type { ParseReceiptResult } from "./parse-receipt";
export type { FetchLike, VerifierFetchReason } from "./json-rpc";
export * from "./networks";
export { verifyReceipt, verifySignatureOnly, receiptSigningBytes, VerifyInputError, CHECK_NAMES } from "./verify-receipt";
export type { VerifyResult, SignatureOnlyResult, VerifyReceiptInput, SignatureOnlyInput, CheckName, Checks } from "./verify-receipt";
export { readExplorerInput, readTextOrJson, verifyForExplorer, verifyVerdictSignature } from "./explorer";
export type { ExplorerInput, ExplorerVerdict } from "./explorer";
