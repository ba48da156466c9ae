import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { decodePlainData, encodePlainData } from "../../src/engine/journal-codec.js";

// Plain data as commands and events hold it: JSON values plus bigint, no undefined inside arrays.
const plainData: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    fc.string(),
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }).filter((value) => !Object.is(value, -0)),
    fc.boolean(),
    fc.constant(null),
    fc.bigInt(),
    fc.array(tie("value")),
    fc.dictionary(
      fc.string().filter((key) => key !== "$bigint" && key !== "__proto__"),
      tie("value"),
      { noNullPrototype: true },
    ),
  ),
})).value;

describe("journal codec", () => {
  it("round-trips bigint, nested data and unicode exactly", () => {
    const value = {
      sequence: 12345678901234567890n,
      negative: -1n,
      nested: [{ amount: 0n, note: "ünïcødé ✓ \u2028" }, [1, 2.5, null, true]],
      empty: {},
    };
    assert.deepEqual(decodePlainData(encodePlainData(value)), value);
    assert.equal(encodePlainData(5n), '{"$bigint":"5"}');
  });

  it("drops an undefined property, as an absent optional field", () => {
    assert.deepEqual(decodePlainData(encodePlainData({ a: 1, b: undefined })), { a: 1 });
  });

  it("refuses values that would not come back the same", () => {
    const refused: unknown[] = [
      { at: new Date(0) },
      { map: new Map() },
      { set: new Set([1]) },
      [undefined],
      { value: Number.NaN },
      { value: Number.POSITIVE_INFINITY },
      { $bigint: "1" },
      { run: () => 1 },
      { symbol: Symbol("x") },
      undefined,
    ];
    for (const value of refused) assert.throws(() => encodePlainData(value), TypeError, String(value));
  });

  it("writes exactly what JSON.stringify with a bigint replacer writes (property)", () => {
    const reference = (value: unknown) =>
      JSON.stringify(value, (_key, field: unknown) =>
        typeof field === "bigint" ? { $bigint: field.toString() } : field,
      );
    const withUndefinedFields = fc.dictionary(
      fc.string().filter((key) => key !== "$bigint" && key !== "__proto__"),
      fc.option(plainData, { nil: undefined }),
    );
    fc.assert(
      fc.property(fc.oneof(plainData, withUndefinedFields), (value) => {
        assert.equal(encodePlainData(value), reference(value));
      }),
      { numRuns: 1_000 },
    );
    assert.equal(
      encodePlainData({ a: -0, b: 1e21, c: 5e-7, "\u2028": "\ud800" }),
      reference({ a: -0, b: 1e21, c: 5e-7, "\u2028": "\ud800" }),
    );
  });

  it("round-trips any plain data (property)", () => {
    fc.assert(
      fc.property(plainData, (value) => {
        assert.deepEqual(decodePlainData(encodePlainData(value)), value);
      }),
      { numRuns: 500 },
    );
  });
});
