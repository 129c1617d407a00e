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
  return write(value, [], new Set());
}

/** Where a value sits: its keys and indices from the root. Formatted only for an error ("a.b[0].c"). */
type Trail = (string | number)[];

function pathOf(trail: Trail): string {
  let path = "";
  for (const step of trail) path = typeof step === "number" ? `${path}[${step}]` : path ? `${path}.${step}` : step;
  return path;
}

function write(value: unknown, trail: Trail, ancestors: Set<object>): string {
  switch (typeof value) {
    case "string":
    case "boolean":
      return JSON.stringify(value);
    case "number":
      if (!Number.isFinite(value)) throw new CanonicalJsonError(`non-finite number ${String(value)}`, pathOf(trail));
      return JSON.stringify(value);
    case "object":
      if (value === null) return "null";
      return writeObject(value, trail, ancestors);
    case "undefined":
    case "function":
    case "symbol":
    case "bigint":
      // JSON.stringify would drop, null or throw on these; canonical JSON refuses all of them.
      throw new CanonicalJsonError(`unsupported ${typeof value}`, pathOf(trail));
  }
}

function writeObject(value: object, trail: Trail, ancestors: Set<object>): string {
  if (ancestors.has(value)) throw new CanonicalJsonError("cyclic structure", pathOf(trail));
  ancestors.add(value);
  try {
    if (Array.isArray(value)) {
      let out = "[";
      for (let i = 0; i < value.length; i++) {
        // Holes in sparse arrays read as undefined and are refused like any undefined.
        trail.push(i);
        out += (i > 0 ? "," : "") + write(value[i], trail, ancestors);
        trail.pop();
      }
      return `${out}]`;
    }
    const proto = Object.getPrototypeOf(value) as unknown;
    if (proto !== Object.prototype && proto !== null) {
      throw new CanonicalJsonError("not a plain object", pathOf(trail));
    }
    // Default sort compares UTF-16 code units, which is what the spec asks for.
    const keys = Object.keys(value).sort();
    const record = value as Record<string, unknown>;
    let out = "{";
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i]!;
      trail.push(k);
      out += `${i > 0 ? "," : ""}${JSON.stringify(k)}:${write(record[k], trail, ancestors)}`;
      trail.pop();
    }
    return `${out}}`;
  } finally {
    ancestors.delete(value);
  }
}
