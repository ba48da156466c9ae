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
    const empty = Buffer.allocUnsafe(emptyHeaderBytes);
    empty.writeInt32BE(0, 0);
    empty.writeInt32BE(0, 4);
    empty.writeInt32BE(oid, 8);
    return empty;
  }
  const texts = type === "text" ? textsOf(values) : undefined;
  if (type === "text" && texts === undefined) return undefined;
  let size = headerBytes;
  let hasNull = false;
  for (let index = 0; index < values.length; index += 1) {
    const value = values[index];
    if (value === null || value === undefined) {
      hasNull = true;
      size += 4;
    } else size += 4 + (bytes ?? Buffer.byteLength(texts![index]!, "utf8"));
  }
  const buffer = Buffer.allocUnsafe(size);
  buffer.writeInt32BE(1, 0);
  buffer.writeInt32BE(hasNull ? 1 : 0, 4);
  buffer.writeInt32BE(oid, 8);
  buffer.writeInt32BE(values.length, 12);
  buffer.writeInt32BE(1, 16);
  let offset = headerBytes;
  for (let index = 0; index < values.length; index += 1) {
    const value = values[index];
    if (value === null || value === undefined) {
      offset = buffer.writeInt32BE(nullLength, offset);
      continue;
    }
    switch (type) {
      case "bigint": {
        const integer = bigintOf(value);
        if (integer === undefined) return undefined;
        offset = buffer.writeInt32BE(8, offset);
        offset = buffer.writeBigInt64BE(integer, offset);
        break;
      }
      case "integer": {
        if (typeof value !== "number" || !Number.isInteger(value) || value < int32Min || value > int32Max)
          return undefined;
        offset = buffer.writeInt32BE(4, offset);
        offset = buffer.writeInt32BE(value, offset);
        break;
      }
      case "float8": {
        if (typeof value !== "number") return undefined;
        offset = buffer.writeInt32BE(8, offset);
        // -0 as 0, as the text format has it (String(-0) is "0").
        offset = buffer.writeDoubleBE(value === 0 ? 0 : value, offset);
        break;
      }
      case "text": {
        const text = texts![index]!;
        const length = buffer.write(text, offset + 4, "utf8");
        buffer.writeInt32BE(length, offset);
        offset += 4 + length;
        break;
      }
    }
  }
  return buffer;
}

const int64Min = -(2n ** 63n);
const int64Max = 2n ** 63n - 1n;

/** A bigint column's element as an exact 64-bit integer, or undefined when it is not one. */
function bigintOf(value: unknown): bigint | undefined {
  let integer: bigint;
  if (typeof value === "bigint") integer = value;
  else if (typeof value === "number" && Number.isSafeInteger(value)) integer = BigInt(value);
  else if (typeof value === "string" && /^-?\d+$/.test(value)) integer = BigInt(value);
  else return undefined;
  return integer >= int64Min && integer <= int64Max ? integer : undefined;
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

/**
 * The statement's values with every array parameter its text casts to one element type (`$3::text[]`)
 * encoded in binary format. A parameter cast to two different types, or not cast, is left as it is.
 */
export function withBinaryArrays(text: string, values: readonly unknown[]): unknown[] {
  const typeOf = new Map<number, BinaryArrayElementType | null>();
  for (const match of text.matchAll(arrayCast)) {
    const index = Number(match[1]) - 1;
    const type = match[2] as BinaryArrayElementType;
    const known = typeOf.get(index);
    typeOf.set(index, known === undefined || known === type ? type : null);
  }
  const encoded = [...values];
  for (const [index, type] of typeOf) {
    const value = values[index];
    if (type === null || !Array.isArray(value)) continue;
    const binary = encodeBinaryArray(type, value);
    if (binary !== undefined) encoded[index] = binary;
  }
  return encoded;
}
