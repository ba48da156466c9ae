// The journal's hash chain as PostgreSQL keeps it (engine migration 3): each entry's two hashes and
// a snapshot's chain hash round-trip, and the journal's guard refuses an append whose first entry
// links to another chain hash than the entry before it holds (a writer whose history forked from
// the database's), while one that starts the chain (prevHash null: after a journal written before
// the chain) is taken.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { chainEntry } from "../../src/engine/journal-chain.js";
import { hashEncodedState } from "../../src/engine/recovery.js";
import type { JournalEntry } from "../../src/engine/store.js";
import { PostgresEngineStore } from "../../src/store/postgres/engine-store.js";
import { postgresSkipReason } from "../support/postgres-cluster.js";
import { postgresEngineSuite } from "../support/postgres-engine-suite.js";

type Command = { type: string; n: number };
type Event = { type: string };
const skipReason = postgresSkipReason();

function chained(
  prevHash: string | null,
  first: bigint,
  count: number,
  tag: number,
): JournalEntry<Command, Event>[] {
  const out: JournalEntry<Command, Event>[] = [];
  let link = prevHash;
  for (let index = 0; index < count; index++) {
    const entry = chainEntry<Command, Event>(
      link,
      first + BigInt(index),
      1_700_000_000_000,
      { type: "raw", n: tag },
      [{ type: "appended" }],
    );
    link = entry.hash!;
    out.push(entry);
  }
  return out;
}

describe("the journal's hash chain on PostgreSQL", { skip: skipReason }, () => {
  const suite = postgresEngineSuite();

  it("keeps the hashes, and refuses an append that links to another chain hash than the journal's", async () => {
    const database = await suite.database("journal_chain");
    const leadership = await suite.lead(database, "chain");
    const store = await PostgresEngineStore.open<Command, Event>(database.pool, leadership);

    const written = chained(null, 1n, 3, 1);
    await store.commitBatch(written, []);
    const read: JournalEntry<Command, Event>[] = [];
    for await (const batch of store.readJournal(0n)) read.push(...batch);
    assert.deepEqual(read, written);

    // Entry 4 as another history has it: linked to a different entry 3.
    const other = chained(null, 1n, 3, 2);
    const forked = chained(other[2]!.hash!, 4n, 1, 2);
    await assert.rejects(store.commitBatch(forked, []), /links to another chain hash/);
    assert.equal(await store.lastSequence(), 3n);

    // Linked to the journal's own entry 3 it goes in; so does an entry that starts the chain.
    await store.commitBatch(chained(written[2]!.hash!, 4n, 2, 1), []);
    await store.commitBatch(chained(null, 6n, 1, 3), []);
    assert.equal(await store.lastSequence(), 6n);

    const state = '{"at":6}';
    await store.saveSnapshot({
      sequence: 6n,
      nowMs: 1,
      state,
      hash: hashEncodedState(state),
      chainHash: "ab".repeat(32),
    });
    assert.equal((await store.loadLatestSnapshot())?.chainHash, "ab".repeat(32));
  });
});
