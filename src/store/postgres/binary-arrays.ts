// Array parameters in PostgreSQL's binary format. The batch statement (batch-statement.ts) binds
// every column of every row it writes as an array parameter of `unnest(…)`: some hundred arrays a
// batch, the journal's commands and events among them (JSON, about 1.3 kB a command, full of
// quotes). node-postgres sends an array as a text literal, escaping each element with two regular
// expressions, and PostgreSQL parses it back character by character: in bench:orders that was
// 31 µs of the API process's CPU per order, and array_in about 7% of the backend's. In binary
// format an element is its length and its bytes (a bigint its 8 bytes): no escaping on either side
// (bench:pg-binary-arrays measures the encoder against node-postgres's). node-postgres sends any
// Buffer parameter in binary format, and PostgreSQL reads it with the parameter's type, which the
// statement's cast (`$3::text[]`) gives.
//
// Only the element types the batch statement uses are encoded here; a parameter of another type,
// or one whose values this cannot encode, is left to node-postgres as it was.

/** Element type OIDs (pg_type), which the binary array header must name. */
const elementTypes = {
  bigint: { oid: 20, bytes: 8 },
  integer: { oid: 23, bytes: 4 },
  float8: { oid: 701, bytes: 8 },
  text: { oid: 25, bytes: undefined },
} as const;

export type BinaryArrayElementType = keyof typeof elementTypes;

/** One dimension: ndim, flags (has nulls), element type, then the dimension's length and lower bound. */
const headerBytes = 20;
const emptyHeaderBytes = 12;
const nullLength = -1;
const int32Min = -(2 ** 31);
const int32Max = 2 ** 31 - 1;

/**
 * `values` as a one-dimensional array of `type` in PostgreSQL's binary format, or undefined when an
 * element is not one this can encode exactly (left to node-postgres's text format, which would
 * either take it or refuse it as before). null and undefined are SQL NULL.
 */
export function encodeBinaryArray(
  type: BinaryArrayElementType,
  values: readonly unknown[],
): Buffer | undefined {
  const { oid, bytes } = elementTypes[type];
  if (values.length === 0) {
    const empty = Buffer.alloc(emptyHeaderBytes);
    empty.writeInt32BE(oid, 8);
    return empty;
  }
  const texts = type === "text" ? textsOf(values) : undefined;
  if (type === "text" && texts === undefined) return undefined;
  // Text is sized at its worst (3 UTF-8 bytes per UTF-16 unit) and the buffer cut to what was
  // written: measuring each string first (Buffer.byteLength) read the journal's JSON twice.
  let size = headerBytes;
  let hasNull = false;
  for (let index = 0; index < values.length; index += 1) {
    const value = values[index];
    if (value === null || value === undefined) {
      hasNull = true;
      size += 4;
    } else size += 4 + (bytes ?? 3 * texts![index]!.length);
  }
  const buffer = Buffer.allocUnsafe(size);
  // DataView's setters compile to plain stores; Buffer's write*BE check their arguments each call.
  const view = new DataView(buffer.buffer, buffer.byteOffset, buffer.byteLength);
  view.setInt32(0, 1);
  view.setInt32(4, hasNull ? 1 : 0);
  view.setInt32(8, oid);
  view.setInt32(12, values.length);
  view.setInt32(16, 1);
  if (texts !== undefined) return buffer.subarray(0, writeTexts(buffer, view, texts));
  return writeNumbers(view, type as Exclude<BinaryArrayElementType, "text">, values) ? buffer : undefined;
}

/** The elements of a bigint, integer or float8 array; false when one is not of that type. */
function writeNumbers(
  view: DataView,
  type: Exclude<BinaryArrayElementType, "text">,
  values: readonly unknown[],
): boolean {
  let offset = headerBytes;
  for (let index = 0; index < values.length; index += 1) {
    const value = values[index];
    if (value === null || value === undefined) {
      view.setInt32(offset, nullLength);
      offset += 4;
      continue;
    }
    switch (type) {
      case "bigint": {
        view.setInt32(offset, 8);
        const integer = typeof value === "bigint" ? value : bigintOf(value);
        if (integer === undefined || integer < int64Min || integer > int64Max) return false;
        view.setBigInt64(offset + 4, integer);
        offset += 12;
        break;
      }
      case "integer": {
        if (typeof value !== "number" || !Number.isInteger(value) || value < int32Min || value > int32Max)
          return false;
        view.setInt32(offset, 4);
        view.setInt32(offset + 4, value);
        offset += 8;
        break;
      }
      case "float8": {
        if (typeof value !== "number") return false;
        view.setInt32(offset, 8);
        // -0 as 0, as the text format has it (String(-0) is "0").
        view.setFloat64(offset + 4, value === 0 ? 0 : value);
        offset += 12;
        break;
      }
    }
  }
  return true;
}

/** The elements of a text array; returns the bytes the array takes. */
function writeTexts(buffer: Buffer, view: DataView, texts: readonly (string | undefined)[]): number {
  let offset = headerBytes;
  for (const text of texts) {
    if (text === undefined) {
      view.setInt32(offset, nullLength);
      offset += 4;
      continue;
    }
    const length = buffer.write(text, offset + 4, "utf8");
    view.setInt32(offset, length);
    offset += 4 + length;
  }
  return offset;
}

const int64Min = -(2n ** 63n);
const int64Max = 2n ** 63n - 1n;

/** A number or a string of digits as a bigint, or undefined when it is not an integer. */
function bigintOf(value: unknown): bigint | undefined {
  if (typeof value === "number") return Number.isSafeInteger(value) ? BigInt(value) : undefined;
  if (typeof value === "string" && /^-?\d+$/.test(value)) return BigInt(value);
  return undefined;
}

/** A text column's elements as strings (as node-postgres would write them), or undefined when one is not a primitive. */
function textsOf(values: readonly unknown[]): (string | undefined)[] | undefined {
  const texts: (string | undefined)[] = new Array(values.length);
  for (let index = 0; index < values.length; index += 1) {
    const value = values[index];
    if (value === null || value === undefined) texts[index] = undefined;
    else if (typeof value === "string") texts[index] = value;
    else if (typeof value === "number" || typeof value === "bigint" || typeof value === "boolean")
      texts[index] = String(value);
    else return undefined;
  }
  return texts;
}

/** `$n::type[]` casts in a statement: which parameters are arrays of which element type. */
const arrayCast = /\$(\d+)::(bigint|integer|float8|text)\[\]/g;

/** Parameter index (from 0) → element type, for the parameters a statement casts to one known array type. */
export type ArrayParameterTypes = ReadonlyMap<number, BinaryArrayElementType>;

/**
 * Which of a statement's parameters it casts to an array of one element type (`$3::text[]`). A
 * parameter cast to two different types is not among them.
 */
export function arrayParameterTypes(text: string): ArrayParameterTypes {
  const typeOf = new Map<number, BinaryArrayElementType | null>();
  for (const match of text.matchAll(arrayCast)) {
    const index = Number(match[1]) - 1;
    const type = match[2] as BinaryArrayElementType;
    const known = typeOf.get(index);
    typeOf.set(index, known === undefined || known === type ? type : null);
  }
  const types = new Map<number, BinaryArrayElementType>();
  for (const [index, type] of typeOf) if (type !== null) types.set(index, type);
  return types;
}

/** The values with every array parameter of `types` encoded in binary format; the rest as they are. */
export function encodeArrayParameters(types: ArrayParameterTypes, values: readonly unknown[]): unknown[] {
  const encoded = [...values];
  for (const [index, type] of types) {
    const value = values[index];
    if (!Array.isArray(value)) continue;
    const binary = encodeBinaryArray(type, value);
    if (binary !== undefined) encoded[index] = binary;
  }
  return encoded;
}
