// docs/api-reference.md, whole, from the OpenAPI document GET /api/v1/openapi.json serves: every route with its
// parameters, body and answers, and every schema's fields. Nothing here is typed by hand.
import "server-only";
import { buildOpenApiDocument } from "../../server/openapi/openapi-document";
import { SHIPPED_NETWORKS } from "../../server/verify";
import { cell } from "./generated-block";

type Json = Record<string, unknown>;
type Schema = Json & { $ref?: string; type?: string | string[]; enum?: unknown[]; const?: unknown; items?: Schema; anyOf?: Schema[]; oneOf?: Schema[]; properties?: Record<string, Schema>; required?: string[]; description?: string };
type Parameter = { name: string; in: string; required?: boolean; description?: string; schema?: Schema };
type Operation = { operationId: string; summary?: string; description?: string; tags?: string[]; parameters?: Parameter[]; requestBody?: { content: Record<string, { schema: Schema }> }; responses: Record<string, { description: string; headers?: Record<string, { description?: string }>; content?: Record<string, { schema: Schema }> }> };

/**
 * The example origin the document is built for. Its URLs and its networks depend on the deployment: the manual names
 * this release's networks.
 */
const EXAMPLE_ORIGIN = "https://signet.example.com";
const METHODS = ["get", "post", "put", "patch", "delete"] as const;

const refName = (ref: string) => ref.replace("#/components/schemas/", "");
const anchor = (name: string) => name.toLowerCase().replace(/[^a-z0-9 -]/g, "").replaceAll(" ", "-");
const schemaLink = (name: string) => `[${name}](#${anchor(`schema ${name}`)})`;

/** A schema in a few words: `string`, `integer ≥ 1`, `"a" \| "b"`, `array of Receipt`, a link for a named schema. */
function typeText(schema: Schema | undefined): string {
  if (!schema || Object.keys(schema).length === 0) return "any";
  if (schema.$ref) return schemaLink(refName(schema.$ref));
  if (schema.const !== undefined) return `\`${JSON.stringify(schema.const)}\``;
  if (schema.enum) return schema.enum.map((v) => `\`${JSON.stringify(v)}\``).join(" \\| ");
  const union = schema.anyOf ?? schema.oneOf;
  if (union) return [...new Set(union.map(typeText))].join(" \\| ");
  const type = Array.isArray(schema.type) ? schema.type.join(" \\| ") : schema.type;
  if (type === "array") return `array of ${typeText(schema.items)}`;
  return type ?? "any";
}

function table(head: string[], rows: string[][]): string[] {
  return [`| ${head.join(" | ")} |`, `|${head.map(() => "---").join("|")}|`, ...rows.map((r) => `| ${r.join(" | ")} |`)];
}

function fieldsTable(schema: Schema): string[] {
  if (!schema.properties) return [`${typeText(schema)}${schema.description ? `: ${cell(schema.description)}` : ""}`];
  const required = new Set(schema.required ?? []);
  return table(
    ["field", "type", "required", "description"],
    Object.entries(schema.properties).map(([name, field]) => [`\`${name}\``, typeText(field), required.has(name) ? "yes" : "", cell(field.description ?? "")]),
  );
}

function contentText(content: Record<string, { schema: Schema }> | undefined): string {
  if (!content) return "";
  return Object.entries(content)
    .map(([type, { schema }]) => `\`${type}\`: ${typeText(schema)}`)
    .join("; ");
}

function operationSection(method: string, route: string, op: Operation): string[] {
  const out = [`### \`${method.toUpperCase()} ${route}\``, "", `${op.summary ?? op.operationId}.`.replace(/\.\.$/, "."), ""];
  if (op.description) out.push(op.description, "");
  if (op.parameters?.length) {
    out.push("Parameters:", "", ...table(["name", "in", "required", "description"], op.parameters.map((p) => [`\`${p.name}\``, p.in, p.required ? "yes" : "", cell(p.description ?? typeText(p.schema))])), "");
  }
  if (op.requestBody) out.push(`Body: ${contentText(op.requestBody.content)}.`, "");
  out.push(
    "Answers:",
    "",
    ...table(
      ["status", "what", "body", "headers"],
      Object.entries(op.responses).map(([status, r]) => [status, cell(r.description), contentText(r.content), Object.keys(r.headers ?? {}).map((h) => `\`${h}\``).join(", ")]),
    ),
    "",
  );
  return out;
}

/** docs/api-reference.md, whole. */
export function apiReferenceDocument(): string {
  const doc = buildOpenApiDocument(EXAMPLE_ORIGIN, SHIPPED_NETWORKS) as { info: { title: string; version: string }; tags?: { name: string }[]; paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, Schema> } };
  const operations = Object.entries(doc.paths).flatMap(([route, item]) => METHODS.filter((m) => item[m]).map((m) => ({ route, method: m, op: item[m]! })));
  const tags = [...new Set([...(doc.tags ?? []).map((t) => t.name), ...operations.flatMap((o) => o.op.tags ?? ["other"])])];
  const out = [
    `# ${doc.info.title} reference (${doc.info.version})`,
    "",
    "<!-- Generated from the OpenAPI document (server/openapi/) by `npm run docs`; a test fails when this file is stale. Do not edit by hand. -->",
    "",
    "Every route, its parameters, body and answers, and every schema's fields, as `GET /api/v1/openapi.json` serves them",
    `(built here for \`${EXAMPLE_ORIGIN}\`). A running service renders the same document at \`/docs\`. How the routes fit`,
    "together is in [api.md](api.md); what each error code means in [errors.md](errors.md).",
    "",
    ...table(
      ["route", "what"],
      operations.map(({ route, method, op }) => [`[\`${method.toUpperCase()} ${route}\`](#${anchor(`${method} ${route}`)})`, cell(op.summary ?? op.operationId)]),
    ),
    "",
  ];
  for (const tag of tags) {
    const inTag = operations.filter((o) => (o.op.tags ?? ["other"])[0] === tag);
    if (inTag.length === 0) continue;
    out.push(`## ${tag[0]!.toUpperCase()}${tag.slice(1)}`, "");
    for (const { route, method, op } of inTag) out.push(...operationSection(method, route, op));
  }
  out.push("## Schemas", "");
  for (const [name, schema] of Object.entries(doc.components.schemas)) {
    out.push(`### Schema ${name}`, "");
    if (schema.description) out.push(cell(schema.description), "");
    out.push(...fieldsTable(schema), "");
  }
  return `${out.join("\n").trimEnd()}\n`;
}
