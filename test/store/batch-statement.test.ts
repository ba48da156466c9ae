// The batch's one statement is put together from the projectors' parts: parameters renumbered in
// order, every part's selected values handed back to it, and a projector without a writer (or one
// that cannot take this batch) sends the whole batch down the transaction of statements.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  type BatchStatementWriter,
  joinParts,
  joinPrepared,
  namedStatementTextsMax,
  statementOf,
  writerOfAll,
} from "../../src/store/postgres/batch-statement.js";

describe("the batch's one statement", () => {
  it("renumbers each part's parameters after the parts before it, selects included", () => {
    const joined = joinParts([
      { ctes: "a AS (INSERT INTO t SELECT * FROM unnest($1::bigint[], $2::text[]))", values: [[1], ["x"]] },
      {
        ctes: "b AS (UPDATE u SET v = $1 WHERE k = $2 RETURNING k)",
        values: [7, 8],
        selects: ["(SELECT $1::int)"],
      },
      { ctes: "c AS (SELECT pg_notify($1, $10::text))", values: ["ch", 2, 3, 4, 5, 6, 7, 8, 9, "p"] },
    ]);
    assert.equal(
      joined.ctes,
      [
        "a AS (INSERT INTO t SELECT * FROM unnest($1::bigint[], $2::text[]))",
        "b AS (UPDATE u SET v = $3 WHERE k = $4 RETURNING k)",
        "c AS (SELECT pg_notify($5, $14::text))",
      ].join(",\n"),
    );
    assert.deepEqual(joined.selects, ["(SELECT $3::int)"]);
    assert.deepEqual(joined.values, [[1], ["x"], 7, 8, "ch", 2, 3, 4, 5, 6, 7, 8, 9, "p"]);
    const statement = statementOf(joined);
    assert.equal(statement.text, `WITH ${joined.ctes}\nSELECT (SELECT $3::int) AS s0`);
    assert.equal(
      statementOf(joinParts([{ ctes: "a AS (SELECT 1)", values: [] }])).text,
      "WITH a AS (SELECT 1)\nSELECT 1",
    );
  });

  it("hands each prepared part its own slice of the selected values", () => {
    const seen: unknown[][] = [];
    const joined = joinPrepared([
      {
        part: { ctes: "a AS (SELECT 1)", values: [], selects: ["x", "y"] },
        committed: (s) => seen.push(["a", ...s]),
      },
      { part: undefined, committed: (s) => seen.push(["none", ...s]) },
      {
        part: { ctes: "b AS (SELECT 2)", values: [], selects: ["z"] },
        committed: (s) => seen.push(["b", ...s]),
      },
    ]);
    assert.deepEqual(joined.part?.selects, ["x", "y", "z"]);
    joined.committed([1, 2, 3]);
    assert.deepEqual(seen, [["a", 1, 2], ["none"], ["b", 3]]);
  });

  it("takes a batch in one statement only when every projector has a writer that can", () => {
    const writer = (can: boolean): BatchStatementWriter<string, string> => ({
      writesInOneStatement: () => can,
      prepare: async () => ({ part: undefined, committed: () => {} }),
    });
    const projector = (oneStatement?: BatchStatementWriter<string, string>) =>
      Object.assign(async () => {}, oneStatement === undefined ? {} : { oneStatement });
    const entries = [{ sequence: 1n, nowMs: 0, command: "c", events: ["e"] }];
    assert.equal(
      writerOfAll([projector(writer(true)), projector(writer(true))])?.writesInOneStatement(entries),
      true,
    );
    assert.equal(
      writerOfAll([projector(writer(true)), projector(writer(false))])?.writesInOneStatement(entries),
      false,
    );
    assert.equal(writerOfAll([projector(writer(true)), projector()]), undefined);
    assert.equal(writerOfAll([])?.writesInOneStatement(entries), true, "the append alone");
  });

  it("names each statement text once, the same name every time, and stops naming past the bound", () => {
    const statement = (index: number) =>
      statementOf(joinParts([{ ctes: `a${index} AS (SELECT $1::bigint[])`, values: [[BigInt(index)]] }]), {
        prepared: true,
      });
    const first = statement(0);
    assert.match(first.name ?? "", /^predex-batch-[0-9a-f]{24}$/);
    assert.equal(statement(0).name, first.name, "the same text, the same prepared statement");
    assert.notEqual(statement(1).name, first.name);
    assert.ok(Buffer.isBuffer(first.values[0]), "the array goes in binary format");
    const unprepared = statementOf(joinParts([{ ctes: "a0 AS (SELECT $1::bigint[])", values: [[0n]] }]));
    assert.equal(unprepared.name, undefined, "named only when asked");
    for (let index = 2; index < namedStatementTextsMax + 10; index += 1) statement(index);
    const past = statement(namedStatementTextsMax + 20);
    assert.equal(past.name, undefined, "a text past the bound goes unnamed");
    assert.ok(Buffer.isBuffer(past.values[0]), "and still binds its arrays in binary format");
    assert.equal(statement(0).name, first.name, "texts named before keep their names");
  });
});
