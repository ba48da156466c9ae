// A projection step on SQLite (src/store/sqlite/read-model-projection.ts) commits without an fsync
// of its own (synchronous = NORMAL) and gives the connection back as it found it: the journal's
// next commit must be synchronous = FULL again, whether the step committed or threw.

import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import type { JournalEntry } from "../../../src/engine/store.js";
import { openDatabase, type SqliteDatabase } from "../../../src/store/sqlite/database.js";
import { SqliteEngineStore } from "../../../src/store/sqlite/engine-store.js";
import { SqliteReadModelProjection } from "../../../src/store/sqlite/read-model-projection.js";

type Entry = JournalEntry<{ type: string }, { type: string }>;

const entry = (sequence: bigint): Entry => ({
  sequence,
  command: { type: "Noop" },
  events: [{ type: "Nooped" }],
  nowMs: 1,
});

function withDatabase(test: (db: SqliteDatabase) => Promise<void>): () => Promise<void> {
  return async () => {
    const directory = mkdtempSync(join(tmpdir(), "predex-read-model-projection-"));
    const db = openDatabase({ path: join(directory, "predex.sqlite") });
    try {
      await test(db);
    } finally {
      db.close();
      rmSync(directory, { recursive: true, force: true });
    }
  };
}

const synchronousOf = (db: SqliteDatabase) => db.pragma("synchronous", { simple: true }) as number;

describe("SQLite read-model projection step", () => {
  it(
    "runs at synchronous NORMAL and gives the connection back at FULL, also after a failed step",
    withDatabase(async (db) => {
      const seen: number[] = [];
      let fail = false;
      const projection = new SqliteReadModelProjection(db, [
        (projectorDb) => {
          seen.push(synchronousOf(projectorDb));
          if (fail) throw new Error("step fails");
        },
      ]);
      // The read models' position starts at the journal's end: entries are committed after.
      await new SqliteEngineStore<{ type: string }, { type: string }>(db).commitBatch(
        [entry(1n), entry(2n)],
        [],
      );
      assert.equal(synchronousOf(db), 2);
      projection.project([entry(1n)]);
      assert.deepEqual(seen, [1]);
      assert.equal(synchronousOf(db), 2);
      assert.equal(projection.projectedSequence(), 1n);

      fail = true;
      assert.throws(() => projection.project([entry(2n)]), /step fails/);
      assert.equal(synchronousOf(db), 2);
      assert.equal(projection.projectedSequence(), 1n);
    }),
  );

  it(
    "leaves a connection already at NORMAL (or OFF) as it is",
    withDatabase(async (db) => {
      const seen: number[] = [];
      const projection = new SqliteReadModelProjection(db, [
        (projectorDb) => void seen.push(synchronousOf(projectorDb)),
      ]);
      await new SqliteEngineStore<{ type: string }, { type: string }>(db).commitBatch([entry(1n)], []);
      db.pragma("synchronous = OFF");
      projection.project([entry(1n)]);
      assert.deepEqual(seen, [0]);
      assert.equal(synchronousOf(db), 0);
    }),
  );
});
