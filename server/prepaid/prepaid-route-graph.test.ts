// The prepaid route serves from credit alone: its module graph (runtime imports, from the route down) reaches none of
// the x402 payment state machine. Only the payment state table and the payment-row steps of ledger statements (the
// ledger layer's) may be reached. The composition root builds everything once per process and is not walked into.
import { describe, expect, it } from "vitest";
import { importsOf } from "../../devtools/layers/import-graph";

/** The composition root (server/context/app-context.ts, server/runtime/ but its crash-point hook): built by the entry point. */
const isCompositionRoot = (file: string) =>
  file === "server/context/app-context.ts" ||
  (file.startsWith("server/runtime/") && file !== "server/env/crash-point.ts");

/** Every file `entry` reaches through imports that remain at run time (`import type` is erased). */
function runtimeGraph(entry: string): Set<string> {
  const seen = new Set<string>();
  const queue = [entry];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    if (!isCompositionRoot(file)) for (const edge of importsOf(file)) if (!edge.typeOnly) queue.push(edge.to);
  }
  return seen;
}

const SHARED_WITH_THE_LEDGER = ["server/ledger/payment-states.ts", "server/ledger/payment-row-statements.ts"];

describe("the prepaid route's module graph", () => {
  it.each([
    "app/api/v1/inference/route.ts",
    "server/responses/serve-prepaid-responses.ts",
    "server/chat/serve-prepaid-chat.ts",
  ])("from %s reaches no part of the paid state machine", (entry) => {
    const graph = runtimeGraph(entry);
    expect(graph.has("server/prepaid/serve-prepaid-inference.ts")).toBe(true);
    const paid = [...graph].filter(
      (file) => file.startsWith("server/payments/") && !SHARED_WITH_THE_LEDGER.includes(file),
    );
    expect(paid).toEqual([]);
    expect(
      [...graph].filter(
        (file) => file.startsWith("server/chat/serve-paid") || file === "server/x402/payment-gateway.ts",
      ),
    ).toEqual([]);
  });

  it("sees the paid state machine from the paid chat route (the walk finds what it looks for)", () => {
    const graph = runtimeGraph("app/api/v1/chat/completions/route.ts");
    expect(graph.has("server/payments/admit-payment.ts")).toBe(true);
    expect(graph.has("server/payments/settle-payment.ts")).toBe(true);
  });
});
