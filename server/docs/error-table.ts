// The error table as Markdown, from server/errors.ts: the one source for docs/errors.md and the OpenAPI document's
// description, so neither can name a code the service does not answer.
import "server-only";
import { ERRORS, type ErrorRow } from "../errors";

/**
 * The answered codes as a Markdown table: code and status, and with `meanings` what each means and what to do next
 * (docs/errors.md; the API reference keeps the narrow table, which fits a phone's width without scrolling).
 */
export function errorTableMarkdown(opts: { meanings: boolean }): string {
  const rows = (Object.entries(ERRORS) as [string, ErrorRow][]).filter(([, row]) => !row.retired);
  if (!opts.meanings) return ["| code | status |", "|---|---|", ...rows.map(([code, row]) => `| \`${code}\` | ${row.status} |`)].join("\n");
  return ["| code | status | meaning |", "|---|---|---|", ...rows.map(([code, row]) => `| \`${code}\` | ${row.status} | ${row.meaning.replaceAll("|", "\\|")} |`)].join("\n");
}

/** The codes kept in the table for old clients but never answered any more. */
function retiredCodes(): string[] {
  return (Object.entries(ERRORS) as [string, ErrorRow][]).filter(([, row]) => row.retired).map(([code]) => code);
}

/** docs/errors.md, whole. */
export function errorsDocument(): string {
  return [
    "# Errors",
    "",
    "<!-- Generated from server/errors.ts by `npm run docs`; a test fails when this file is stale. Do not edit by hand. -->",
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
