// docs/configuration.md's tables, from the env schemas: names, types and defaults from the zod schema at run time, the
// descriptions from the `/** … */` comments on its fields, read from the source with the TypeScript compiler; and one
// row per network's RPC variable, from the network registry's rows.
import "server-only";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import type { z } from "zod";
import { envSchema, LEGACY_RPC_URL_VARIABLES, LOCAL_CHAIN_PORT_VARIABLES, rpcUrlVariable } from "../../server/env";
import { SHIPPED_NETWORKS, type NetworkRow } from "../../server/verify";
import { cell, fromRoot } from "./generated-block";
import { ENV_NOTES } from "./env-notes";

/** Where the service's schema is declared (followed through re-exports), and the dev tools' own, when it exists. */
const SERVICE_ENV_FILE = "server/env.ts";
const DEVTOOLS_ENV_FILE = "devtools/devtools-env.ts";
const SCHEMA_NAME = "envSchema";

interface Row {
  name: string;
  type: string;
  fallback: string;
  description: string;
}

/** The `/** … *\/` comment of every property in the file that declares `name` (a re-export is followed). */
export function fieldComments(file: string, name: string = SCHEMA_NAME): Map<string, string> {
  const source = ts.createSourceFile(file, readFileSync(fromRoot(file), "utf8"), ts.ScriptTarget.Latest, true);
  const next = reexportOf(source, name);
  if (next) return fieldComments(next, name);
  const comments = new Map<string, string>();
  const visit = (node: ts.Node): void => {
    if (ts.isPropertyAssignment(node) && (ts.isIdentifier(node.name) || ts.isStringLiteral(node.name))) {
      const text = ts
        .getJSDocCommentsAndTags(node)
        .filter(ts.isJSDoc)
        .map((doc) => ts.getTextOfJSDocComment(doc.comment) ?? "")
        .join(" ")
        .replace(/\s+/g, " ")
        .trim();
      if (text) comments.set(node.name.text, text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return comments;
}

/** The file a relative import or re-export of `name` comes from, when the file does not declare it itself. */
function reexportOf(source: ts.SourceFile, name: string): string | null {
  for (const statement of source.statements) {
    if (ts.isVariableStatement(statement) && statement.declarationList.declarations.some((d) => ts.isIdentifier(d.name) && d.name.text === name)) return null;
  }
  for (const statement of source.statements) {
    const clause = ts.isImportDeclaration(statement) ? statement.importClause?.namedBindings : ts.isExportDeclaration(statement) ? statement.exportClause : undefined;
    const specifier = ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement) ? statement.moduleSpecifier : undefined;
    if (!clause || !specifier || !ts.isStringLiteral(specifier) || !specifier.text.startsWith(".")) continue;
    const names = ts.isNamedImports(clause) || ts.isNamedExports(clause) ? clause.elements.map((e) => e.name.text) : [];
    if (!names.includes(name)) continue;
    const target = path.posix.join(path.posix.dirname(source.fileName), specifier.text);
    return [`${target}.ts`, `${target}/index.ts`, target].find((f) => existsSync(fromRoot(f))) ?? null;
  }
  return null;
}

type Def = { type: string; innerType?: z.ZodType; in?: z.ZodType; defaultValue?: unknown; entries?: Record<string, string>; format?: string };
const defOf = (schema: z.ZodType): Def => (schema as unknown as { _zod: { def: Def } })._zod.def;

/** What a value must be, in words: `true` \| `false`, integer 1–65535, URL, string. */
function typeOf(schema: z.ZodType): string {
  const def = defOf(schema);
  switch (def.type) {
    case "default":
    case "optional":
      return typeOf(def.innerType!);
    case "pipe":
      return typeOf(def.in!);
    case "enum":
      return Object.values(def.entries ?? {})
        .map((v) => `\`${v}\``)
        .join(" \\| ");
    case "number": {
      const n = schema as unknown as { isInt: boolean; minValue: number | null; maxValue: number | null };
      const finite = (v: number | null) => v !== null && Number.isFinite(v) && Math.abs(v) < Number.MAX_SAFE_INTEGER;
      const range = finite(n.minValue) && finite(n.maxValue) ? ` ${n.minValue}–${n.maxValue}` : finite(n.minValue) ? ` ≥ ${n.minValue}` : "";
      return `${n.isInt ? "integer" : "number"}${range}`;
    }
    case "string": {
      if (def.format === "url") return "URL";
      const s = schema as unknown as { minLength: number | null };
      return s.minLength && s.minLength > 1 ? `string, ≥ ${s.minLength} chars` : "string";
    }
    default:
      return def.type;
  }
}

/** The default the schema fills in, or `—` when it leaves the value unset. */
function fallbackOf(schema: z.ZodType): string {
  const def = defOf(schema);
  if (def.type === "default") return def.defaultValue === "" ? "empty" : `\`${String(def.defaultValue)}\``;
  if (def.type === "pipe") return fallbackOf(def.in!);
  return "—";
}

function table(rows: Row[]): string {
  return ["| variable | type | default | description |", "|---|---|---|---|", ...rows.map((r) => `| \`${r.name}\` | ${r.type} | ${r.fallback} | ${cell(r.description)} |`)].join("\n");
}

/** The schema's field the RPC variables' rows follow (the chains' part of the table). */
const RPC_ROWS_AFTER = "LOCALNET_MAINNET_RPC_PORT";

/** A network's RPC variable (RPC_URL_<ID>), described from its row. */
function rpcRow(network: NetworkRow): Row {
  const port = Object.hasOwn(LOCAL_CHAIN_PORT_VARIABLES, network.id) ? LOCAL_CHAIN_PORT_VARIABLES[network.id] : undefined;
  const legacy = Object.entries(LEGACY_RPC_URL_VARIABLES).find(([, id]) => id === network.id)?.[0];
  const dev = port ? `Dev: the local chain on ${port}, when it runs` : "Dev: none unless set";
  return {
    name: rpcUrlVariable(network.id),
    type: "URL",
    fallback: "—",
    description: [
      `The ${network.label} RPC (${network.caip2}) the facilitator, reconcile and the hosted verifier use; its public one is ${network.publicRpcUrl}.`,
      `${dev}; production: none unless set, and without one the network takes no payments.`,
      ...(legacy ? [`Its old name ${legacy} is still read this release (deprecated).`] : []),
    ].join(" "),
  };
}

/** The service's variables: every field of `envSchema`, and each shipped network's RPC variable after the chains' ports. */
export function serviceEnvTable(): string {
  const comments = fieldComments(SERVICE_ENV_FILE);
  const rows: Row[] = Object.entries(envSchema.shape as Record<string, z.ZodType>).map(([name, schema]) => ({
    name,
    type: typeOf(schema),
    fallback: fallbackOf(schema),
    description: comments.get(name) ?? ENV_NOTES[name] ?? "",
  }));
  const at = rows.findIndex((r) => r.name === RPC_ROWS_AFTER);
  rows.splice(at < 0 ? rows.length : at + 1, 0, ...SHIPPED_NETWORKS.rows.map(rpcRow));
  return table(rows);
}

/**
 * The dev tools' variables, read from the source of devtools/devtools-env.ts when it exists (the service never imports
 * devtools/, so neither does this): each field of its `z.object({ … })`, its type and default read off the zod calls.
 */
export function devtoolsEnvTable(): string | null {
  if (!existsSync(fromRoot(DEVTOOLS_ENV_FILE))) return null;
  const source = ts.createSourceFile(DEVTOOLS_ENV_FILE, readFileSync(fromRoot(DEVTOOLS_ENV_FILE), "utf8"), ts.ScriptTarget.Latest, true);
  const comments = fieldComments(DEVTOOLS_ENV_FILE, "devtoolsEnvSchema");
  const consts = new Map<string, ts.Expression>();
  for (const statement of source.statements) {
    if (!ts.isVariableStatement(statement)) continue;
    for (const d of statement.declarationList.declarations) if (ts.isIdentifier(d.name) && d.initializer) consts.set(d.name.text, d.initializer);
  }
  const rows: Row[] = [];
  const visit = (node: ts.Node): void => {
    const isObjectCall = ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) && node.expression.name.text === "object";
    const literal = isObjectCall ? node.arguments[0] : undefined;
    if (literal && ts.isObjectLiteralExpression(literal)) {
      for (const prop of literal.properties) {
        if (!ts.isPropertyAssignment(prop) || !(ts.isIdentifier(prop.name) || ts.isStringLiteral(prop.name))) continue;
        const calls = zodCalls(prop.initializer, consts);
        const fallback = calls.find((c) => c.name === "default")?.args[0];
        rows.push({
          name: prop.name.text,
          type: sourceTypeOf(calls),
          fallback: fallback === undefined ? "—" : `\`${ts.isNumericLiteral(fallback) ? fallback.text.replaceAll("_", "") : ts.isStringLiteral(fallback) ? fallback.text : fallback.getText(source)}\``,
          description: comments.get(prop.name.text) ?? "",
        });
      }
      return;
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return rows.length > 0 ? table(rows) : null;
}

interface ZodCall {
  name: string;
  args: readonly ts.Expression[];
}

/** The method calls of a zod chain, innermost first (`z.coerce.number().int()` → number, int), through the file's consts. */
function zodCalls(expr: ts.Expression, consts: ReadonlyMap<string, ts.Expression>): ZodCall[] {
  if (ts.isIdentifier(expr)) {
    const init = consts.get(expr.text);
    return init ? zodCalls(init, consts) : [];
  }
  if (ts.isCallExpression(expr) && ts.isPropertyAccessExpression(expr.expression)) {
    return [...zodCalls(expr.expression.expression, consts), { name: expr.expression.name.text, args: expr.arguments }];
  }
  if (ts.isPropertyAccessExpression(expr)) return zodCalls(expr.expression, consts);
  return [];
}

/** The same words typeOf gives the runtime schema, read off the chain's calls. */
function sourceTypeOf(calls: readonly ZodCall[]): string {
  const arg = (name: string) => {
    const a = calls.find((c) => c.name === name)?.args[0];
    return a && ts.isNumericLiteral(a) ? Number(a.text.replaceAll("_", "")) : null;
  };
  const enumCall = calls.find((c) => c.name === "enum");
  const values = enumCall?.args[0];
  if (values && ts.isArrayLiteralExpression(values)) {
    return values.elements.map((e) => (ts.isStringLiteral(e) ? `\`${e.text}\`` : e.getText())).join(" \\| ");
  }
  if (calls.some((c) => c.name === "number")) {
    const min = arg("min");
    const max = arg("max");
    const range = min !== null && max !== null ? ` ${min}–${max}` : min !== null ? ` ≥ ${min}` : "";
    return `${calls.some((c) => c.name === "int") ? "integer" : "number"}${range}`;
  }
  if (calls.some((c) => c.name === "url")) return "URL";
  if (calls.some((c) => c.name === "string")) return "string";
  return calls.at(0)?.name ?? "unknown";
}
