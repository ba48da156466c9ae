// JSON for commands and events. They are plain data (objects, arrays, strings, finite numbers,
// booleans, null, bigint); bigint has no JSON form, so it is written as {"$bigint":"123"}. Every
// adapter uses this one codec, so a journal written by one can be read by another.

const bigintTag = "$bigint";

/**
 * Encodes plain data; throws on anything that would not decode to the same value. The text is what
 * `JSON.stringify` with a bigint replacer gives, written by hand: a replacer function costs a call
 * per key, and this runs for every command and every event of every commit (it was ~10% of an
 * order's commit; property-tested against JSON.stringify).
 */
export function encodePlainData(value: unknown): string {
  if (value === undefined) throw new TypeError("Cannot journal a top-level undefined");
  return encodeValue(value, "");
}

export function decodePlainData<T = unknown>(text: string): T {
  return JSON.parse(text, reviveBigint) as T;
}

// Keys and strings made only of these characters need no escaping inside quotes.
const plainText = /^[\w$ .:/-]*$/;

function quote(text: string): string {
  return plainText.test(text) ? `"${text}"` : JSON.stringify(text);
}

/** `value` is never undefined here: the callers drop or refuse it first. `key` names it in errors. */
function encodeValue(value: unknown, key: string): string {
  switch (typeof value) {
    case "string":
      return quote(value);
    case "number":
      if (!Number.isFinite(value)) throw new TypeError(`Cannot journal the number ${value} at "${key}"`);
      // Number-to-string is JSON's own number form (-0 included, written 0).
      return String(value);
    case "boolean":
      return value ? "true" : "false";
    case "bigint":
      return `{"${bigintTag}":"${value.toString()}"}`;
    case "object":
      if (value === null) return "null";
      return Array.isArray(value) ? encodeArray(value, key) : encodeObject(value, key);
    default:
      throw new TypeError(`Cannot journal a ${typeof value} at "${key}"`);
  }
}

function encodeArray(items: readonly unknown[], key: string): string {
  let text = "[";
  for (let index = 0; index < items.length; index += 1) {
    const item = items[index];
    if (item === undefined) throw new TypeError("Cannot journal undefined inside an array");
    if (index > 0) text += ",";
    text += encodeValue(item, key);
  }
  return `${text}]`;
}

// Only plain objects: a Date or a class instance would not come back as itself (JSON.stringify
// would have turned a Date into a string and an instance into a bare object).
function encodeObject(object: object, key: string): string {
  const prototype = Object.getPrototypeOf(object);
  if (prototype !== Object.prototype && prototype !== null) {
    throw new TypeError(`Cannot journal a ${prototype?.constructor?.name ?? "non-plain"} object at "${key}"`);
  }
  if (Object.hasOwn(object, bigintTag)) throw new TypeError(`"${bigintTag}" is reserved as a journal key`);
  let text = "{";
  let first = true;
  for (const name of Object.keys(object)) {
    const field = (object as Record<string, unknown>)[name];
    // An absent optional property is dropped, as JSON does.
    if (field === undefined) continue;
    if (!first) text += ",";
    first = false;
    text += `${quote(name)}:${encodeValue(field, name)}`;
  }
  return `${text}}`;
}

function reviveBigint(_key: string, value: unknown): unknown {
  if (typeof value === "object" && value !== null && !Array.isArray(value)) {
    const tagged = (value as Record<string, unknown>)[bigintTag];
    if (typeof tagged === "string") return BigInt(tagged);
  }
  return value;
}
