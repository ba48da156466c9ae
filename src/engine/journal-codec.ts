// JSON for commands and events. They are plain data (objects, arrays, strings, finite numbers,
// booleans, null, bigint); bigint has no JSON form, so it is written as {"$bigint":"123"}. Every
// adapter uses this one codec, so a journal written by one can be read by another.

const bigintTag = "$bigint";

/** Encodes plain data; throws on anything that would not decode to the same value. */
export function encodePlainData(value: unknown): string {
  const text = JSON.stringify(value, replacePlainValue);
  if (text === undefined) throw new TypeError(`Cannot journal a top-level ${typeof value}`);
  return text;
}

export function decodePlainData<T = unknown>(text: string): T {
  return JSON.parse(text, reviveBigint) as T;
}

// `this[key]` is the raw value before JSON.stringify applied toJSON, so a Date or a class instance
// is caught here instead of silently turning into a string or an empty object.
function replacePlainValue(this: unknown, key: string, value: unknown): unknown {
  const raw = key === "" ? value : (this as Record<string, unknown>)[key];
  switch (typeof raw) {
    case "bigint":
      return { [bigintTag]: raw.toString() };
    case "string":
    case "boolean":
      return raw;
    case "number":
      if (!Number.isFinite(raw)) throw new TypeError(`Cannot journal the number ${raw} at "${key}"`);
      return raw;
    case "undefined":
      // An absent optional property is dropped, as JSON does; inside an array it would become null.
      if (Array.isArray(this)) throw new TypeError("Cannot journal undefined inside an array");
      return undefined;
    case "object": {
      if (raw === null || Array.isArray(raw)) return raw;
      const prototype = Object.getPrototypeOf(raw);
      if (prototype !== Object.prototype && prototype !== null) {
        throw new TypeError(
          `Cannot journal a ${prototype?.constructor?.name ?? "non-plain"} object at "${key}"`,
        );
      }
      if (Object.hasOwn(raw, bigintTag)) throw new TypeError(`"${bigintTag}" is reserved as a journal key`);
      return raw;
    }
    default:
      throw new TypeError(`Cannot journal a ${typeof raw} at "${key}"`);
  }
}

function reviveBigint(_key: string, value: unknown): unknown {
  if (typeof value === "object" && value !== null && !Array.isArray(value)) {
    const tagged = (value as Record<string, unknown>)[bigintTag];
    if (typeof tagged === "string") return BigInt(tagged);
  }
  return value;
}
