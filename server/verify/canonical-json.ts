// Canonical JSON (docs/receipts.md): keys sorted recursively by UTF-16 code unit, no whitespace, primitives exactly as
// JSON.stringify writes them, arrays in order. Pure and browser-safe: receipts are signed and verified over this text.

/** Thrown for values canonical JSON cannot represent (undefined, functions, NaN, Infinity, bigint, cycles, …). */
export class CanonicalJsonError extends TypeError {
  override name = "CanonicalJsonError";
  constructor(
    message: string,
    readonly path: string,
  ) {
    super(`${message} at ${path || "(root)"}`);
  }
}

/** Writes `value` as canonical JSON; refuses anything JSON.stringify would drop, coerce or throw on. */
export function canonicalJson(value: unknown): string {
  return write(value, "", new Set());
}

function write(value: unknown, path: string, ancestors: Set<object>): string {
  switch (typeof value) {
    case "string":
    case "boolean":
      return JSON.stringify(value);
    case "number":
      if (!Number.isFinite(value)) throw new CanonicalJsonError(`non-finite number ${String(value)}`, path);
      return JSON.stringify(value);
    case "object":
      if (value === null) return "null";
      return writeObject(value, path, ancestors);
    default:
      // undefined, function, symbol, bigint: JSON.stringify would drop, null or throw; we refuse all of them.
      throw new CanonicalJsonError(`unsupported ${typeof value}`, path);
  }
}

function writeObject(value: object, path: string, ancestors: Set<object>): string {
  if (ancestors.has(value)) throw new CanonicalJsonError("cyclic structure", path);
  ancestors.add(value);
  try {
    if (Array.isArray(value)) {
      const items: string[] = [];
      for (let i = 0; i < value.length; i++) {
        // Holes in sparse arrays read as undefined and are refused like any undefined.
        items.push(write(value[i], `${path}[${i}]`, ancestors));
      }
      return `[${items.join(",")}]`;
    }
    const proto = Object.getPrototypeOf(value) as unknown;
    if (proto !== Object.prototype && proto !== null) {
      throw new CanonicalJsonError("not a plain object", path);
    }
    // Default sort compares UTF-16 code units, which is what the spec asks for.
    const keys = Object.keys(value).sort();
    const record = value as Record<string, unknown>;
    const members = keys.map((k) => `${JSON.stringify(k)}:${write(record[k], path ? `${path}.${k}` : k, ancestors)}`);
    return `{${members.join(",")}}`;
  } finally {
    ancestors.delete(value);
  }
}
