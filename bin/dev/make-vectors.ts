// `npm run vectors`: writes Signet's generated receipt vectors (devtools/vectors/build-vectors.ts) to
// server/verify/vectors/signet-generated, replacing the folder, so removed cases leave no stale files behind.
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { buildVectors, GENERATED_VECTORS_DIR } from "../../devtools/vectors/build-vectors";

const root = path.resolve(import.meta.dirname, "../..");
const dir = path.join(root, GENERATED_VECTORS_DIR);
const files = buildVectors();
rmSync(dir, { recursive: true, force: true });
for (const [relative, content] of files) {
  const file = path.join(dir, relative);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, content);
}
console.log(`wrote ${files.size} files to ${GENERATED_VECTORS_DIR}`);
