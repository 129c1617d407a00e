// `npm run bench:readme`: regenerates the README's Performance table from bench/history.jsonl.
import path from "node:path";
import { updateReadmeFromHistory } from "../devtools/bench/update-readme";

const changed = updateReadmeFromHistory(path.resolve("bench/history.jsonl"), path.resolve("README.md"));
console.log(changed ? "README.md: Performance table regenerated from bench/history.jsonl" : "README.md: Performance table already up to date");
