// The forward ids ride in the journal append statement (src/store/postgres/engine-store.ts,
// forwarded-commands.ts): a forwarded command is found by its id exactly when its journal entry is
// committed, a command without an id leaves no row, and a refused append leaves neither.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { JournalEntry } from "../../src/engine/store.js";
import { openPostgresEngineCluster } from "../../src/store/postgres/engine-cluster.js";
import { PostgresEngineStore } from "../../src/store/postgres/engine-store.js";
import { createForwardedCommandsProjector } from "../../src/store/postgres/forwarded-commands.js";
import { postgresSkipReason } from "../support/postgres-cluster.js";
import { postgresEngineSuite } from "../support/postgres-engine-suite.js";

type Command = { type: string; forwardId?: string };
type Event = { type: string };
const skipReason = postgresSkipReason();

function entry(sequence: bigint, forwardId?: string): JournalEntry<Command, Event> {
  return {
    sequence,
    nowMs: 1_700_000_000_000 + Number(sequence),
    command: forwardId === undefined ? { type: "local" } : { type: "forwarded", forwardId },
    events: [{ type: "appended" }],
  };
}

describe("PostgreSQL forwarded command ids in the journal append", { skip: skipReason }, () => {
  const suite = postgresEngineSuite();

  it("finds a forwarded command by its id once committed, and nothing for a refused batch", async () => {
    const database = await suite.database("forwarded_commands");
    const { url, pool } = database;
    const leader = await suite.lead(database, "leader");
    const store = await PostgresEngineStore.open<Command, Event>(pool, leader);
    const forwarded = await createForwardedCommandsProjector<Command, Event>(
      pool,
      (command) => command.forwardId,
    );
    const engineCluster = await openPostgresEngineCluster<Command, Event>(pool, {
      url,
      applicationName: "predex-test",
    });

    await store.commitBatch([entry(1n, "a"), entry(2n), entry(3n, "b")], [forwarded]);
    await store.commitBatch([entry(4n)], [forwarded]);
    assert.deepEqual(await engineCluster.findForwarded<Command, Event>("a"), entry(1n, "a"));
    assert.deepEqual(await engineCluster.findForwarded<Command, Event>("b"), entry(3n, "b"));
    assert.equal(await engineCluster.findForwarded("missing"), undefined);
    const rows = await pool.query<{ rows: bigint }>(
      "SELECT count(*)::bigint AS rows FROM engine_forwarded_commands",
    );
    assert.equal(rows.rows[0]!.rows, 2n, "a command without a forward id leaves no row");

    // Sequence 3 is already written: the whole append is refused, its forward id with it.
    await assert.rejects(store.commitBatch([entry(3n, "c")], [forwarded]), /already written|out of order/);
    assert.equal(await engineCluster.findForwarded("c"), undefined);
  });
});
