// `npm test`'s first build: the production bundle the soak, the multi-instance test and the browser suite all serve,
// made once into SOAK_DIST_DIR (SIGNET_SHARED_BUILD_DIR) unless a build newer than every source file is already there.
import { ensureProductionBuild, SOAK_DIST_DIR } from "./soak-stack";

const started = Date.now();
try {
  ensureProductionBuild((line) => console.log(`build: ${line}`));
} catch (err) {
  console.error((err as Error).message);
  process.exit(1);
}
console.log(`build: ${SOAK_DIST_DIR}/ ready in ${((Date.now() - started) / 1000).toFixed(0)} s`);
