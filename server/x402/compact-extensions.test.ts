import Ajv2020 from "ajv/dist/2020";
import { declareDiscoveryExtension } from "@x402/extensions/bazaar";
import { declarePaymentIdentifierExtension } from "@x402/extensions/payment-identifier";
import { describe, expect, it } from "vitest";
import { compactExtensions, shallowSchema } from "./compact-extensions";

const ajv = new Ajv2020({ strict: false });
const validates = (schema: object, value: unknown) => ajv.compile(schema)(value);

/** The bazaar declaration as the resource server enriches it (the method added), with a full body schema. */
const bazaar = (() => {
  const declared = declareDiscoveryExtension({
    bodyType: "json",
    input: { model: "local/echo-1", messages: [{ role: "user", content: "hi" }] },
    inputSchema: {
      type: "object",
      properties: {
        model: { type: "string", minLength: 1 },
        messages: { type: "array", minItems: 1, items: { type: "object" } },
        temperature: { anyOf: [{ type: "number" }, { type: "null" }] },
        stream: { type: "boolean" },
      },
      required: ["model", "messages"],
    },
    output: { example: { id: "x" }, schema: { type: "object" } },
  }).bazaar!;
  return {
    ...declared,
    info: { ...declared.info, input: { ...(declared.info as { input: object }).input, method: "POST" } },
  };
})();
const offers = {
  info: { offers: [{ format: "jws", acceptIndex: 0, signature: "a.b.c" }] },
  schema: {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    type: "object",
    properties: { offers: { type: "array" } },
  },
};

describe("compactExtensions()", () => {
  it("keeps each extension's info whole, under a schema that validates it, smaller than the full one", () => {
    const full = { "payment-identifier": declarePaymentIdentifierExtension(false), "offer-receipt": offers };
    const compact = compactExtensions(full)!;
    for (const [key, value] of Object.entries(compact)) {
      const { info, schema } = value as { info: object; schema: object };
      expect(info, key).toEqual(full[key as keyof typeof full].info);
      expect(validates(schema, info), key).toBe(true);
      expect(JSON.stringify(schema).length, key).toBeLessThan(
        JSON.stringify(full[key as keyof typeof full].schema).length,
      );
    }
    // A schema that checks something: a payment-identifier without `required` is refused by it.
    const pid = (compact["payment-identifier"] as { schema: object }).schema;
    expect(validates(pid, { id: "x" })).toBe(false);
  });

  it("keeps the bazaar's call example, under a schema one level deep that names the example's typed fields", () => {
    const compact = compactExtensions({ bazaar })!.bazaar as {
      info: { input: Record<string, unknown>; output?: unknown };
      schema: object;
    };
    expect(compact.info).toEqual({ input: (bazaar.info as { input: unknown }).input });
    expect(validates(compact.schema, compact.info)).toBe(true);
    expect(validates(compact.schema, { input: { ...compact.info.input, body: { messages: [] } } })).toBe(false);
    expect(JSON.stringify(compact).length).toBeLessThan(JSON.stringify(bazaar).length);
  });

  it("leaves what is not an { info, schema } extension as it is, and an absent map absent", () => {
    expect(compactExtensions(undefined)).toBeUndefined();
    expect(compactExtensions({ other: "text", half: { info: {} }, none: null })).toEqual({
      other: "text",
      half: { info: {} },
      none: null,
    });
  });
});

describe("shallowSchema()", () => {
  const schema = {
    type: "object",
    properties: {
      a: { type: "string", minLength: 3 },
      b: { anyOf: [{ type: "number" }, { type: "null" }] },
      c: { type: "array", items: {} },
    },
    required: ["a"],
  };

  it("names each field of one type with that type, leaves out fields of several, and keeps what is required", () => {
    expect(shallowSchema(schema)).toEqual({
      type: "object",
      properties: { a: { type: "string" }, c: { type: "array" } },
      required: ["a"],
    });
  });

  it("names only the fields asked for, and the required ones", () => {
    expect(shallowSchema(schema, ["c"])).toEqual({
      type: "object",
      properties: { a: { type: "string" }, c: { type: "array" } },
      required: ["a"],
    });
    expect(shallowSchema(schema, [])).toEqual({
      type: "object",
      properties: { a: { type: "string" } },
      required: ["a"],
    });
  });

  it("rejects malformed input: a schema without properties is an object of anything", () => {
    expect(shallowSchema({})).toEqual({ type: "object", properties: {} });
    expect(shallowSchema({ properties: { x: "not a schema" as unknown as object } })).toEqual({
      type: "object",
      properties: {},
    });
  });
});
