// `npm run bench:readme`: regenerates docs/performance.md's results table from bench/history.jsonl.
import path from "node:path";
import { PERFORMANCE_DOC, updatePerformanceDoc } from "../../devtools/bench/update-performance-doc";

const changed = updatePerformanceDoc(path.resolve("bench/history.jsonl"), path.resolve(PERFORMANCE_DOC));
console.log(
  `${PERFORMANCE_DOC}: results table ${changed ? "regenerated" : "already up to date"} from bench/history.jsonl`,
);
