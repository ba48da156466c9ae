// The chain version 2 encoder as first written (journal-compact-codec.ts until i31-snap): text
// concatenated value by value. Kept as the reference the faster encoder is property-tested against:
// the same input must give the same text, byte for byte (the journal's format did not change).

import { journalShapes } from "../../src/engine/journal-shapes.js";

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
const shapesByType = new Map<string, Shape[]>();
const shapesByKeys = new Map<string, Shape>();
for (const shape of shapes) {
  if (shape.type === undefined) shapesByKeys.set(shape.keys.join(","), shape);
  else shapesByType.set(shape.type, [...(shapesByType.get(shape.type) ?? []), shape]);
}

/** The text the first version 2 encoder wrote for `value`. */
export function encodeCompactReference(value: unknown): string {
  if (value === undefined) throw new TypeError("Cannot journal a top-level undefined");
  return `~${encodeValue(value, "")}`;
}

// Strings made only of these characters need no escaping inside quotes.
const plainText = /^[\w$ .:/-]*$/;

function quote(text: string): string {
  return plainText.test(text) ? `"${text}"` : JSON.stringify(text);
}

/** A string starting with a digit, "-" or "'" gets a "'" first: it could be read as a bigint. */
function quoteString(text: string): string {
  const first = text.charCodeAt(0);
  return (first >= 48 && first <= 57) || first === 45 || first === 39 ? quote(`'${text}`) : quote(text);
}

/** `value` is never undefined here: the callers drop or refuse it first. `key` names it in errors. */
function encodeValue(value: unknown, key: string): string {
  switch (typeof value) {
    case "string":
      return quoteString(value);
    case "number":
      if (!Number.isFinite(value)) throw new TypeError(`Cannot journal the number ${value} at "${key}"`);
      return String(value);
    case "boolean":
      return value ? "true" : "false";
    case "bigint":
      return `"${value.toString()}"`;
    case "object":
      if (value === null) return "null";
      return Array.isArray(value) ? encodeArray(value, key) : encodeObject(value, key);
    default:
      throw new TypeError(`Cannot journal a ${typeof value} at "${key}"`);
  }
}

function encodeArray(items: readonly unknown[], key: string): string {
  let text = "[0";
  for (let index = 0; index < items.length; index += 1) {
    const item = items[index];
    if (item === undefined) throw new TypeError("Cannot journal undefined inside an array");
    text += `,${encodeValue(item, key)}`;
  }
  return `${text}]`;
}

// Only plain objects, as version 1: a Date or a class instance would not come back as itself.
function encodeObject(object: object, key: string): string {
  const prototype = Object.getPrototypeOf(object);
  if (prototype !== Object.prototype && prototype !== null) {
    throw new TypeError(`Cannot journal a ${prototype?.constructor?.name ?? "non-plain"} object at "${key}"`);
  }
  const record = object as Record<string, unknown>;
  // An absent optional property is dropped, as JSON does.
  const names = Object.keys(record).filter((name) => record[name] !== undefined);
  const shape = shapeOf(record, names);
  if (shape !== undefined) {
    let text = `[${shape.id}`;
    for (const name of names)
      if (shape.type === undefined || name !== "type") text += `,${encodeValue(record[name], name)}`;
    return `${text}]`;
  }
  // Refused as version 1 refuses it, so every journaled entry can be written to an archive line
  // (journal-codec.ts's JSON, where the key tags a bigint).
  if (Object.hasOwn(record, "$bigint")) throw new TypeError('"$bigint" is reserved as a journal key');
  let text = "{";
  for (let index = 0; index < names.length; index += 1) {
    const name = names[index] as string;
    if (index > 0) text += ",";
    text += `${quote(name)}:${encodeValue(record[name], name)}`;
  }
  return `${text}}`;
}

function shapeOf(record: Record<string, unknown>, names: readonly string[]): Shape | undefined {
  const type = record.type;
  if (typeof type === "string") {
    const candidates = shapesByType.get(type);
    if (candidates === undefined) return undefined;
    for (const shape of candidates) if (sameKeys(shape.keys, names)) return shape;
    return undefined;
  }
  // An untyped shape never has a `type` key, so a `type` that is not a string matches none.
  if (type !== undefined) return undefined;
  return shapesByKeys.get(names.join(","));
}

function sameKeys(keys: readonly string[], names: readonly string[]): boolean {
  if (keys.length !== names.length) return false;
  for (let index = 0; index < keys.length; index += 1) if (keys[index] !== names[index]) return false;
  return true;
}
