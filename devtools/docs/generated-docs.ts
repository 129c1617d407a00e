// The files under docs/ that are generated from code, each with its renderer (bin/dev/build-docs.ts writes them, and
// generated-docs.test.ts fails when a committed one differs). A hand-written doc with a generated section is listed
// too: its renderer rewrites only the text between that section's markers.
import "server-only";
import { apiReferenceDocument } from "./api-reference-markdown";
import { devtoolsEnvTable, serviceEnvTable } from "./env-reference";
import { errorsDocument } from "./error-table";
import { withGeneratedBlocks } from "./generated-block";
import { layerMapMarkdown } from "./layer-map";
import { paymentStateTables } from "./payment-state-table";
import { retentionTable } from "../../server/runtime/table-retention";

export const GENERATED_DOCS: Readonly<Record<string, () => string>> = {
  "docs/errors.md": errorsDocument,
  "docs/api-reference.md": apiReferenceDocument,
  "docs/configuration.md": withGeneratedBlocks("docs/configuration.md", {
    "service-env": { source: "server/env/index.ts (envSchema)", render: serviceEnvTable },
    "devtools-env": { source: "devtools/devtools-env.ts (devtoolsEnvSchema)", render: devtoolsEnvTable },
  }),
  "docs/deploy.md": withGeneratedBlocks("docs/deploy.md", {
    retention: { source: "server/runtime/table-retention.ts (TABLE_RETENTION)", render: retentionTable },
  }),
  "docs/architecture.md": withGeneratedBlocks("docs/architecture.md", {
    "layer-map": { source: "eslint.config.mjs (LAYERS, the lint rule's map)", render: layerMapMarkdown },
    "payment-states": { source: "server/ledger/payment-states.ts", render: paymentStateTables },
  }),
};
