// The error table as Markdown, from server/errors/index.ts: the one source for the OpenAPI document's description and
// docs/errors.md, so neither can name a code the service does not answer.
import "server-only";
import { ERRORS, type ErrorRow } from "../errors";

/** The answered codes, in the table's order. */
function answeredErrors(): [string, ErrorRow][] {
  return (Object.entries(ERRORS) as [string, ErrorRow][]).filter(([, row]) => !row.retired);
}

/**
 * The answered codes as a Markdown table: code and status, and with `meanings` what each means and what to do next
 * (docs/errors.md; the API reference keeps the narrow table, which fits a phone's width without scrolling).
 */
export function errorTableMarkdown(opts: { meanings: boolean }): string {
  const rows = answeredErrors();
  if (!opts.meanings)
    return ["| code | status |", "|---|---|", ...rows.map(([code, row]) => `| \`${code}\` | ${row.status} |`)].join(
      "\n",
    );
  return [
    "| code | status | meaning |",
    "|---|---|---|",
    ...rows.map(([code, row]) => `| \`${code}\` | ${row.status} | ${row.meaning.replaceAll("|", "\\|")} |`),
  ].join("\n");
}
