// The files under docs/ that are generated from code, each with its renderer (bin/build-docs.ts writes them).
import "server-only";
import { errorsDocument } from "./error-table";

export const GENERATED_DOCS: Readonly<Record<string, () => string>> = {
  "docs/errors.md": errorsDocument,
};
