// The x402 extensions as the headers carry them. A default reverse proxy bounds a head: nginx reads an answer's whole
// head into one memory page (proxy_buffer_size, 4 KB), and a request header line into 8 KB, where a client's payment
// echoes the challenge's extensions. So each extension keeps its whole `info` (what clients act on) and a compact
// `schema`: x402 v2 requires a JSON Schema of `info`'s structure, and this one names its fields and their types
// without the constraints a full schema spells out. The bazaar declaration keeps its call example (its answer, which
// the bazaar marks optional, is the resource's mimeType); its full schemas and examples are in /.well-known/x402 and
// the OpenAPI document.
import "server-only";

type Json = Record<string, unknown>;
type Extension = { info: Json; schema: Json };

/**
 * A JSON Schema reduced to what it requires and the fields `named` (all when absent), each with its JSON type when it
 * has one type (a field of several types is left out: it is checked by the full schema, not here), one level deep.
 */
export function shallowSchema(schema: Json, named?: readonly string[]): Json {
  const properties = (schema.properties ?? {}) as Record<string, Json>;
  const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
  const kept = Object.entries(properties).filter(
    ([name, field]) =>
      typeof field.type === "string" && (named === undefined || named.includes(name) || required.includes(name)),
  );
  return {
    type: "object",
    properties: Object.fromEntries(kept.map(([name, field]) => [name, { type: field.type }])),
    ...(required.length > 0 ? { required } : {}),
  };
}

/** The schema of an `info` whose fields are those of `info` itself, each with its JSON type. */
function schemaOfInfo(info: Json, required: string[]): Json {
  const typeOf = (value: unknown) =>
    Array.isArray(value)
      ? "array"
      : value === null
        ? "null"
        : typeof value === "object"
          ? "object"
          : typeof value === "number"
            ? "number"
            : typeof value;
  return {
    type: "object",
    properties: Object.fromEntries(Object.entries(info).map(([name, value]) => [name, { type: typeOf(value) }])),
    required: required.filter((name) => name in info),
  };
}

/**
 * The bazaar declaration with its call example, under a schema one level deep per part: the body's names the
 * example's fields (and what the route requires), each with its type.
 */
function compactBazaar(extension: Extension): Extension {
  const { input } = extension.info as { input: Json };
  const inputSchema = ((extension.schema.properties as Record<string, Json> | undefined)?.input ?? {}) as Json;
  const bodySchema = ((inputSchema.properties as Record<string, Json> | undefined)?.body ?? {}) as Json;
  const example = typeof input.body === "object" && input.body !== null ? Object.keys(input.body) : [];
  const inputFields = Object.fromEntries(
    Object.keys(input).map((name) => [
      name,
      name === "body"
        ? shallowSchema(bodySchema, example)
        : { type: typeof input[name] === "object" ? "object" : "string" },
    ]),
  );
  return {
    info: { input },
    schema: {
      type: "object",
      properties: { input: { type: "object", properties: inputFields, required: Object.keys(input) } },
      required: ["input"],
    },
  };
}

/** Which fields of each extension's `info` its schema requires (offer-receipt's: offers in a challenge, receipt after). */
const REQUIRED_INFO: Record<string, string[]> = {
  "payment-identifier": ["required"],
  "offer-receipt": ["offers", "receipt"],
};

/**
 * `extensions` as the headers carry them: the bazaar compacted, every other extension with its `info` whole and a schema
 * of its fields. Anything that is not an `{ info, schema }` extension passes through unchanged.
 */
export function compactExtensions(
  extensions: Readonly<Record<string, unknown>> | undefined,
): Record<string, unknown> | undefined {
  if (!extensions) return undefined;
  return Object.fromEntries(
    Object.entries(extensions).map(([key, value]) => {
      const extension = value as Partial<Extension> | null;
      if (
        !extension ||
        typeof extension !== "object" ||
        typeof extension.info !== "object" ||
        extension.info === null ||
        typeof extension.schema !== "object"
      )
        return [key, value];
      const whole = extension as Extension;
      return [
        key,
        key === "bazaar"
          ? compactBazaar(whole)
          : { info: whole.info, schema: schemaOfInfo(whole.info, REQUIRED_INFO[key] ?? []) },
      ];
    }),
  );
}
