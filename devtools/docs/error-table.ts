// docs/errors.md, whole: the error table of server/errors/index.ts (rendered as the OpenAPI document's description renders
// it) between the page's fixed prose.
import "server-only";
import { ERRORS, type ErrorRow } from "../../server/errors";
import { errorTableMarkdown } from "../../server/openapi/error-table";

/** The codes kept in the table for old clients but never answered any more. */
function retiredCodes(): string[] {
  return (Object.entries(ERRORS) as [string, ErrorRow][]).filter(([, row]) => row.retired).map(([code]) => code);
}

/** docs/errors.md, whole. */
export function errorsDocument(): string {
  return [
    "# Errors",
    "",
    "<!-- Generated from server/errors/index.ts by `npm run docs`; a test fails when this file is stale. Do not edit by hand. -->",
    "",
    "Every error is a JSON body in OpenAI's shape, with Signet's stable code in `error.code`, the request field at fault",
    "(if any) in `error.param`, and the request id beside it:",
    "",
    "```json",
    '{ "error": { "message": "n: must be 1: a call buys one answer, and its receipt covers one", "type": "invalid_request_error", "param": "n", "code": "invalid_request" }, "request_id": "…" }',
    "```",
    "",
    "A 402 also carries x402 v1's challenge beside `error` (`x402Version: 1`, `accepts`); x402 v2's is in the",
    "`PAYMENT-REQUIRED` header. A stream that fails midway ends with one `data: {\"error\": {…}}` event of the same shape.",
    "",
    errorTableMarkdown({ meanings: true }),
    "",
    `Retired codes, never answered any more: ${retiredCodes().map((c) => `\`${c}\``).join(", ")}.`,
    "",
  ].join("\n");
}
