// The journal's text form from chain version 2: the same plain data as journal-codec.ts (objects,
// arrays, strings, finite numbers, booleans, null, bigint), about half the bytes. Everything the
// journal costs per entry (encoding, the chain link's sha256, the WAL write, the checkpoint's copy)
// is proportional to its bytes, and version 1 spent most of them on key names and bigint tags
// (docs/performance.md, "Issue #31: the journal encoding").
//
// The text is "~" followed by JSON (so it stays text, and JSON.parse does the parsing), where:
// - an object of a known shape (journal-shapes.ts: its keys, in order, and its `type`) is an array
//   of its values, the shape's 1-based id first: `[12,5,7,"3"]` — keys and `type` implied;
// - any other object is a JSON object with its keys, values encoded alike;
// - an array is a JSON array with 0 first: `[0,…items]` (so it is never read as a shape);
// - a bigint is a JSON string of its decimal digits, `"-12"`; a string that could be read as one
//   (starting with a digit, "-" or "'") is written with a "'" before it; other strings as they are;
// - numbers, booleans and null are JSON's own.
// Version 1 texts start with "{" or "[" (JSON), never "~": a stored text says which form it is.

import { journalShapes } from "./journal-shapes.js";

/** The first character of a version 2 text. */
export const compactTextMark = "~";

/** Whether `text` is in this form (else it is version 1's JSON). */
export function isCompactText(text: string): boolean {
  return text.charCodeAt(0) === 126; // "~"
}

interface Shape {
  readonly id: number;
  readonly type: string | undefined;
  readonly keys: readonly string[];
}

const shapes: readonly Shape[] = journalShapes.map((shape, index) => ({
  id: index + 1,
  type: shape.type,
  keys: shape.keys.split(","),
}));
/** Typed shapes by their `type` (a type has one to three variants of optional fields). */
const shapesByType = new Map<string, Shape[]>();
/** Untyped shapes by their keys joined with ",". */
const shapesByKeys = new Map<string, Shape>();
for (const shape of shapes) {
  if (shape.type === undefined) shapesByKeys.set(shape.keys.join(","), shape);
  else shapesByType.set(shape.type, [...(shapesByType.get(shape.type) ?? []), shape]);
}

/**
 * The value's text. Its JSON part is written by one JSON.stringify call over the value turned into
 * what that JSON holds (shapes as arrays, bigints as strings, escaped strings): concatenating the
 * text a value at a time, as this encoder first did, built a rope of ~130 small strings an entry
 * that the garbage collector then reclaimed and the hash flattened (2× the CPU an entry on
 * bench:orders' journal, docs/performance.md "i31-snap"). JSON.stringify escapes strings and keys
 * exactly as that encoder did, and the text is the same byte for byte (property-tested against it).
 */
export function encodeCompactData(value: unknown): string {
  if (value === undefined) throw new TypeError("Cannot journal a top-level undefined");
  return compactTextMark + JSON.stringify(toCompactJson(value, ""));
}

export function decodeCompactData<T = unknown>(text: string): T {
  if (!isCompactText(text)) throw new SyntaxError("Not a compact journal text");
  return revive(JSON.parse(text.slice(1))) as T;
}

/**
 * What `value`'s compact text holds, as JSON-ready data. `value` is never undefined here: the
 * callers drop or refuse it first. `key` names it in errors.
 */
function toCompactJson(value: unknown, key: string): unknown {
  switch (typeof value) {
    case "string": {
      // A string starting with a digit, "-" or "'" gets a "'" first: it could be read as a bigint.
      const first = value.charCodeAt(0);
      return (first >= 48 && first <= 57) || first === 45 || first === 39 ? `'${value}` : value;
    }
    case "number":
      if (!Number.isFinite(value)) throw new TypeError(`Cannot journal the number ${value} at "${key}"`);
      return value;
    case "boolean":
      return value;
    case "bigint":
      return value.toString();
    case "object":
      if (value === null) return null;
      return Array.isArray(value) ? arrayToCompactJson(value, key) : objectToCompactJson(value, key);
    default:
      throw new TypeError(`Cannot journal a ${typeof value} at "${key}"`);
  }
}

function arrayToCompactJson(items: readonly unknown[], key: string): unknown[] {
  const json = new Array<unknown>(items.length + 1);
  json[0] = 0;
  for (let index = 0; index < items.length; index += 1) {
    const item = items[index];
    if (item === undefined) throw new TypeError("Cannot journal undefined inside an array");
    json[index + 1] = toCompactJson(item, key);
  }
  return json;
}

// Only plain objects, as version 1: a Date or a class instance would not come back as itself.
function objectToCompactJson(object: object, key: string): unknown {
  const prototype = Object.getPrototypeOf(object);
  if (prototype !== Object.prototype && prototype !== null) {
    throw new TypeError(`Cannot journal a ${prototype?.constructor?.name ?? "non-plain"} object at "${key}"`);
  }
  // Names and values in one native call each, in the same order: reading each field by its name
  // (a keyed load on objects of ~50 different layouts) cost more than the rest of the encoding.
  const names = Object.keys(object);
  const values = Object.values(object);
  const shape = shapeOf(object as Record<string, unknown>, names, values);
  if (shape !== undefined) {
    const json: unknown[] = [shape.id];
    for (let index = 0; index < names.length; index += 1) {
      const field = values[index];
      // An absent optional property is dropped, as JSON does; a typed shape implies its `type`.
      if (field !== undefined && (shape.type === undefined || names[index] !== "type"))
        json.push(toCompactJson(field, names[index]!));
    }
    return json;
  }
  // Refused as version 1 refuses it, so every journaled entry can be written to an archive line
  // (journal-codec.ts's JSON, where the key tags a bigint).
  if (Object.hasOwn(object, "$bigint")) throw new TypeError('"$bigint" is reserved as a journal key');
  // Without a prototype, a "__proto__" key is a field like any other.
  const json: Record<string, unknown> = Object.create(null);
  for (let index = 0; index < names.length; index += 1) {
    const field = values[index];
    if (field !== undefined) json[names[index]!] = toCompactJson(field, names[index]!);
  }
  return json;
}

/** The shape of the object whose own `names` hold `values`, its undefined ones left out (not written). */
function shapeOf(
  record: Record<string, unknown>,
  names: readonly string[],
  values: readonly unknown[],
): Shape | undefined {
  const type = record.type;
  if (typeof type === "string") {
    const candidates = shapesByType.get(type);
    if (candidates === undefined) return undefined;
    for (const shape of candidates) if (hasKeys(names, values, shape.keys)) return shape;
    return undefined;
  }
  // An untyped shape never has a `type` key, so a `type` that is not a string matches none.
  if (type !== undefined) return undefined;
  return shapesByKeys.get(
    values.includes(undefined)
      ? names.filter((_, index) => values[index] !== undefined).join(",")
      : names.join(","),
  );
}

/** Whether the names of the defined values, in order, are exactly `keys`. */
function hasKeys(names: readonly string[], values: readonly unknown[], keys: readonly string[]): boolean {
  let matched = 0;
  for (let index = 0; index < names.length; index += 1) {
    if (values[index] === undefined) continue;
    if (keys[matched] !== names[index]) return false;
    matched += 1;
  }
  return matched === keys.length;
}

function revive(value: unknown): unknown {
  if (typeof value === "string") {
    const first = value.charCodeAt(0);
    if (first === 39) return value.slice(1);
    if ((first >= 48 && first <= 57) || first === 45) return BigInt(value);
    return value;
  }
  if (typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) {
    const id: unknown = value[0];
    if (id === 0) {
      const items = new Array<unknown>(value.length - 1);
      for (let index = 1; index < value.length; index += 1) items[index - 1] = revive(value[index]);
      return items;
    }
    return reviveShaped(id, value);
  }
  const record = value as Record<string, unknown>;
  for (const name of Object.keys(record)) record[name] = revive(record[name]);
  return record;
}

/**
 * Builds a shape's object from its values. Generated once per shape from the table (its own keys,
 * never a journal's text): an object literal of fixed keys gets one hidden class from the start,
 * where assigning ~30 fields by name one by one cost the most of a decode (the snapshot worker
 * decodes every committed entry; recovery every replayed one).
 */
type ShapeBuilder = (
  values: readonly unknown[],
  revive: (value: unknown) => unknown,
) => Record<string, unknown>;

const shapeBuilders: readonly ShapeBuilder[] = shapes.map((shape) => {
  let next = 1;
  const fields = shape.keys.map((name) =>
    name === "type" && shape.type !== undefined
      ? `type: ${JSON.stringify(shape.type)}`
      : `${JSON.stringify(name)}: revive(values[${next++}])`,
  );
  return new Function("values", "revive", `return { ${fields.join(", ")} };`) as ShapeBuilder;
});
/** How many values (the id included) each shape's array holds. */
const shapeLengths: readonly number[] = shapes.map(
  (shape) => 1 + shape.keys.length - (shape.type === undefined ? 0 : 1),
);

function reviveShaped(id: unknown, values: readonly unknown[]): Record<string, unknown> {
  const builder = typeof id === "number" ? shapeBuilders[id - 1] : undefined;
  if (builder === undefined) throw new SyntaxError(`Unknown journal shape ${String(id)} (a newer build's?)`);
  if (values.length !== shapeLengths[(id as number) - 1])
    throw new SyntaxError(
      `Journal shape ${id} holds ${shapes[(id as number) - 1]!.keys.length} fields, not these`,
    );
  return builder(values, revive);
}
