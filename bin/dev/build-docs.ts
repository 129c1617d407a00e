// `npm run docs`: writes the generated parts of docs/ from the code that is their truth (the error table, the
// OpenAPI document, the env schema, the payment states). devtools/docs/generated-docs.test.ts fails when a committed
// file differs from what this writes.
import { writeFileSync } from "node:fs";
import { GENERATED_DOCS } from "../../devtools/docs/generated-docs";
import { fromRoot } from "../../devtools/docs/generated-block";

for (const [file, render] of Object.entries(GENERATED_DOCS)) {
  writeFileSync(fromRoot(file), render());
  console.log(`wrote ${file}`);
}
