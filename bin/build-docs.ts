// `npm run docs`: writes the generated parts of docs/ from the code that is their truth (today: docs/errors.md from
// the error table). server/docs/generated-docs.test.ts fails when a committed file differs from what this writes.
import { writeFileSync } from "node:fs";
import path from "node:path";
import { GENERATED_DOCS } from "../server/docs/generated-docs";

for (const [file, render] of Object.entries(GENERATED_DOCS)) {
  writeFileSync(path.resolve(import.meta.dirname, "..", file), render());
  console.log(`wrote ${file}`);
}
