// The journal archiver's two store operations on PostgreSQL (deleteJournalThrough, firstSequence):
// only through the latest snapshot and never the last entry, and only by the leader of the current
// epoch: a superseded leader's archiver deletes nothing.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { makeSnapshot } from "../../src/engine/recovery.js";
import type { JournalEntry } from "../../src/engine/store.js";
import { EngineFencedError, PostgresEngineStore } from "../../src/store/postgres/engine-store.js";
import { postgresSkipReason } from "../support/postgres-cluster.js";
import { postgresEngineSuite } from "../support/postgres-engine-suite.js";

type Command = { type: string };
type Event = { type: string };
const skipReason = postgresSkipReason();

function entries(first: bigint, count: number): JournalEntry<Command, Event>[] {
  return Array.from({ length: count }, (_, index) => ({
    sequence: first + BigInt(index),
    nowMs: 1_700_000_000_000 + index,
    command: { type: "raw" },
    events: [{ type: "appended" }],
  }));
}

describe("PostgreSQL journal deletion for the archiver", { skip: skipReason }, () => {
  const suite = postgresEngineSuite();

  it("deletes through the snapshot, keeps the last entry, and refuses a superseded leader", async () => {
    const database = await suite.database("journal_delete");
    const first = await suite.lead(database, "first");
    const store = await PostgresEngineStore.open<Command, Event>(database.pool, first);
    assert.equal(await store.firstSequence(), 1n, "an empty journal starts after its end");
    await store.commitBatch(entries(1n, 10), []);
    await store.saveSnapshot(
      makeSnapshot(
        { encode: () => "{}", decode: () => ({}) },
        { state: {}, sequence: 8n, nowMs: 1, chainHash: null },
      ),
    );

    await assert.rejects(store.deleteJournalThrough(9n), /still needed/);
    await assert.rejects(store.deleteJournalThrough(10n), /still needed/);
    await store.deleteJournalThrough(5n);
    assert.equal(await store.firstSequence(), 6n);
    assert.equal(await store.lastSequence(), 10n);
    // The journal still continues from its end after a delete.
    await store.commitBatch(entries(11n, 1), []);

    await first.release();
    await suite.lead(database, "second");
    await assert.rejects(store.deleteJournalThrough(7n), EngineFencedError);
    assert.equal(await store.firstSequence(), 6n, "the superseded leader deleted nothing");
  });
});
