// docs/architecture.md's payment state table, from server/payments/payment-states.ts: the moves from
// PAYMENT_TRANSITIONS, each with the reason the module's header gives for it (its test keeps that list equal to the
// table), and what each state means.
import "server-only";
import { readFileSync } from "node:fs";
import { PAYMENT_STATES, PAYMENT_TRANSITIONS, transitionPairs } from "../payments/payment-states";
import { cell, fromRoot } from "./generated-block";

const SOURCE = "server/payments/payment-states.ts";

/** The header comment's reasons, `from → to: why`, and state meanings, `- state: meaning` (continued on indented lines). */
function readHeader(): { moves: Map<string, string>; meanings: Map<string, string> } {
  const moves = new Map<string, string>();
  const meanings = new Map<string, string>();
  let current: string | null = null;
  for (const line of readFileSync(fromRoot(SOURCE), "utf8").split("\n")) {
    if (!line.startsWith("//")) break;
    const move = /^\/\/\s+(\w+) → (\w+): (.+)$/.exec(line);
    const state = /^\/\/ - (.+)$/.exec(line);
    const more = /^\/\/\s{2,}(\S.*)$/.exec(line);
    if (move) moves.set(`${move[1]}→${move[2]}`, move[3]!);
    else if (state) {
      // A bullet may state several states: "- failed: … expired: …" or "- serving / unserved: …".
      current = null;
      for (const part of state[1]!.split(/(?<=\.) (?=\w+: )/)) {
        const m = /^([\w /]+): (.+)$/.exec(part);
        if (!m) continue;
        for (const name of m[1]!.split(" / ")) meanings.set(name.trim(), m[2]!);
        current = m[1]!;
      }
    } else if (more && current) {
      for (const name of current.split(" / ")) meanings.set(name.trim(), `${meanings.get(name.trim())} ${more[1]}`);
    } else if (!move) current = null;
  }
  return { moves, meanings };
}

/** The states and the moves between them, as two Markdown tables. */
export function paymentStateTables(): string {
  const { moves, meanings } = readHeader();
  const states = ["| state | what it means | moves to |", "|---|---|---|", ...PAYMENT_STATES.map((s) => `| \`${s}\` | ${cell(meanings.get(s) ?? "")} | ${PAYMENT_TRANSITIONS[s].map((t) => `\`${t}\``).join(", ") || "none: final"} |`)];
  const pairs = ["| from | to | what makes the move |", "|---|---|---|", ...transitionPairs().map(([from, to]) => `| \`${from}\` | \`${to}\` | ${cell(moves.get(`${from}→${to}`) ?? "")} |`)];
  return [...states, "", ...pairs].join("\n");
}
