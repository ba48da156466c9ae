// Array parameters in binary format (src/store/postgres/binary-arrays.ts): whatever the batch
// statement binds must reach PostgreSQL exactly as node-postgres's text format would have put it,
// nulls, empty arrays, quotes, backslashes, non-ASCII text and the 64-bit limits included; and a
// value this encoder cannot take exactly is left to node-postgres, never changed.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import fc from "fast-check";
import pg from "pg";
import {
  arrayParameterTypes,
  encodeArrayParameters,
  encodeBinaryArray,
} from "../../src/store/postgres/binary-arrays.js";
import {
  type PostgresCluster,
  postgresSkipReason,
  startPostgresCluster,
} from "../support/postgres-cluster.js";

/** The statement's values as the batch statement binds them (batch-statement.ts statementOf). */
const withBinaryArrays = (text: string, values: readonly unknown[]) =>
  encodeArrayParameters(arrayParameterTypes(text), values);

describe("binary array parameters, without a server", () => {
  it("encodes only the parameters a statement casts to one known array type", () => {
    const text =
      "SELECT * FROM unnest($1::bigint[], $2::text[]), unnest($3::tsvector[]), f($4), g($5::bigint[], $5::text[])";
    const values = [[1n], ["a"], ["x"], [1], [2n]];
    const encoded = withBinaryArrays(text, values);
    assert.ok(Buffer.isBuffer(encoded[0]));
    assert.ok(Buffer.isBuffer(encoded[1]));
    assert.deepEqual(encoded.slice(2), values.slice(2), "other types, uncast and ambiguous: as they were");
    assert.deepEqual(values, [[1n], ["a"], ["x"], [1], [2n]], "the caller's values are not changed");
  });

  it("leaves to node-postgres what it cannot encode exactly", () => {
    assert.equal(encodeBinaryArray("bigint", [1.5]), undefined);
    assert.equal(encodeBinaryArray("bigint", [2n ** 63n]), undefined);
    assert.equal(encodeBinaryArray("bigint", [Number.MAX_SAFE_INTEGER + 2]), undefined);
    assert.equal(encodeBinaryArray("bigint", ["12a"]), undefined);
    assert.equal(encodeBinaryArray("integer", [2 ** 31]), undefined);
    assert.equal(encodeBinaryArray("float8", ["1.5"]), undefined);
    assert.equal(encodeBinaryArray("text", [{ a: 1 }]), undefined);
    const statement = "SELECT $1::bigint[]";
    assert.deepEqual(withBinaryArrays(statement, [[1, 0.5]]), [[1, 0.5]]);
  });

  it("writes the header PostgreSQL's array_recv reads", () => {
    const buffer = encodeBinaryArray("bigint", [5n, null])!;
    // ndim 1, has nulls, int8, length 2, lower bound 1, then 5 as 8 bytes, then NULL (-1).
    assert.deepEqual(
      [0, 4, 8, 12, 16, 20].map((offset) => buffer.readInt32BE(offset)),
      [1, 1, 20, 2, 1, 8],
    );
    assert.equal(buffer.readBigInt64BE(24), 5n);
    assert.equal(buffer.readInt32BE(32), -1);
    assert.equal(buffer.length, 36);
    const empty = encodeBinaryArray("text", [])!;
    assert.deepEqual(
      [0, 4, 8].map((offset) => empty.readInt32BE(offset)),
      [0, 0, 25],
    );
  });
});

const skipReason = postgresSkipReason();

describe("binary array parameters through PostgreSQL", { skip: skipReason }, () => {
  let cluster: PostgresCluster;
  let client: pg.Client;
  before(async () => {
    cluster = await startPostgresCluster();
    client = new pg.Client({ connectionString: await cluster.createDatabase("binary_arrays") });
    await client.connect();
  });
  after(async () => {
    await client?.end();
    await cluster?.stop();
  });

  /** What PostgreSQL holds for the parameter, as text, sent both ways. */
  async function bothWays(type: string, values: readonly unknown[]): Promise<[unknown, unknown]> {
    const text = `SELECT $1::${type}[]::text AS value`;
    const binary = withBinaryArrays(text, [values]);
    assert.ok(Buffer.isBuffer(binary[0]), `${type}[] goes in binary format`);
    const viaBinary = (await client.query(text, binary)).rows[0].value;
    const viaText = (await client.query(text, [values])).rows[0].value;
    return [viaBinary, viaText];
  }

  it("round-trips bigint, integer, float8 and text arrays as the text format does", async () => {
    const cases: [string, unknown[]][] = [
      [
        "bigint",
        [0n, -1n, 2n ** 63n - 1n, -(2n ** 63n), 42, "-17", null, -1, 2 ** 32, -(2 ** 32), -(2 ** 32) - 1],
      ],
      ["bigint", [Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER, 2n ** 53n, -(2n ** 53n), 2n ** 53n - 1n]],
      ["integer", [0, -1, 2 ** 31 - 1, -(2 ** 31), null]],
      ["float8", [0, -0, 1.5, -2.25e-300, 1e300, Number.NaN, Number.POSITIVE_INFINITY, null]],
      ["text", ['{"a":"b\\"c"}', "back\\slash", "", "ümlaut ✓ 𝄞", "comma, {brace}", "NULL", null, 7, 8n]],
      ["text", []],
      ["bigint", []],
    ];
    for (const [type, values] of cases) {
      const [viaBinary, viaText] = await bothWays(type, values);
      assert.equal(
        viaBinary,
        viaText,
        `${type}[] ${JSON.stringify(values, (_, v) => (typeof v === "bigint" ? `${v}n` : v))}`,
      );
    }
  });

  it("puts any text and any 64-bit integer there exactly (property)", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.option(fc.string({ unit: "grapheme" }), { nil: null }), { maxLength: 20 }),
        fc.array(fc.option(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), { nil: null }), {
          maxLength: 20,
        }),
        async (texts, integers) => {
          const text = "SELECT $1::text[] AS texts, $2::bigint[]::text[] AS integers";
          const { rows } = await client.query(text, withBinaryArrays(text, [texts, integers]));
          assert.deepEqual(rows[0].texts, texts);
          assert.deepEqual(
            rows[0].integers,
            integers.map((value) => (value === null ? null : String(value))),
          );
        },
      ),
      { numRuns: 150 },
    );
  });
});
