// The readable reports `signet verify` and `signet balance` print by default (--json prints the data instead): each
// check with ✓ or ✗ and its reason, as `signet chat` prints them; a balance with its recent ledger entries.
import type { SignatureOnlyResult, VerifyResult } from "../../../server/verify";

/** `signet verify --log`'s verdict: the receipt's place in the log, or why it is not proven there. */
export type LogVerdict =
  | { ok: true; log_index: number; tree_size: number; log_key: string; cosigned_by: string[] }
  | { ok: false; reason: string };

/** `signet verify`'s report: the verdict, each check with its reason, the operator key, and the log's verdict if asked. */
export function formatVerifyReport(input: {
  inferenceId: string;
  result: VerifyResult | SignatureOnlyResult;
  log: LogVerdict | undefined;
}): string {
  const { result, log } = input;
  const ok = result.ok && (log?.ok ?? true);
  const checks = Object.entries(result.checks) as [keyof typeof result.reasons, boolean][];
  const lines = [`receipt ${input.inferenceId || "(no inference id)"}: ${ok ? "ok" : "NOT OK"}`];
  for (const [name, passed] of checks) lines.push(`  ${passed ? "✓" : "✗"} ${name}: ${result.reasons[name]}`);
  if (checks.length === 1) lines.push("  (signature only: the prompt, the answer and the payment were not checked)");
  lines.push(`  operator key: ${result.operatorKey}`);
  if (log?.ok) {
    const cosigned = log.cosigned_by.length > 0 ? `, cosigned by ${log.cosigned_by.join(", ")}` : "";
    lines.push(
      `  ✓ log: included at index ${log.log_index} of tree size ${log.tree_size}, checkpoint signed by ${log.log_key}${cosigned}`,
    );
  } else if (log) {
    lines.push(`  ✗ log: not proven: ${log.reason}`);
  }
  return `${lines.join("\n")}\n`;
}

/** What `GET /api/v1/credits/<pubkey>` answers. */
export interface CreditsAnswer {
  agent_pubkey: string;
  network: string;
  balance_usdc: string;
  entries: {
    id: string;
    kind: string;
    amount_usdc: string;
    payment_id: string | null;
    inference_id: string | null;
    created_at: string;
  }[];
}

/** `signet balance`'s report: the balance on the network, then the recent ledger entries, newest first. */
export function formatBalanceReport(
  answer: CreditsAnswer,
  networkLabel: (caip2: string) => string | null = () => null,
): string {
  const label = networkLabel(answer.network);
  const lines = [
    `agent ${answer.agent_pubkey} on ${label ? `${label} (${answer.network})` : answer.network}`,
    `balance: ${answer.balance_usdc} USDC`,
  ];
  const entries = Array.isArray(answer.entries) ? answer.entries : [];
  if (entries.length === 0) {
    lines.push("no ledger entries yet");
    return `${lines.join("\n")}\n`;
  }
  lines.push(`recent ledger entries (${entries.length}, newest first):`);
  const kindWidth = Math.max(...entries.map((e) => e.kind.length));
  const amounts = entries.map((e) => (e.amount_usdc.startsWith("-") ? e.amount_usdc : `+${e.amount_usdc}`));
  const amountWidth = Math.max(...amounts.map((a) => a.length));
  entries.forEach((e, i) => {
    const about = [e.inference_id ? `inference ${e.inference_id}` : "", e.payment_id ? `payment ${e.payment_id}` : ""]
      .filter(Boolean)
      .join(", ");
    lines.push(
      `  ${e.created_at}  ${e.kind.padEnd(kindWidth)}  ${amounts[i]!.padStart(amountWidth)} USDC${about ? `  ${about}` : ""}`,
    );
  });
  return `${lines.join("\n")}\n`;
}
