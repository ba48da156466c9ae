// How an engine node's journal commits are planned on PostgreSQL (issue #31, i31-pg2). The commits
// carry the journal alone (the read models follow it in steps), so the append is a named statement
// planned once per connection, generically, with the guard trigger's queries: planning them for each
// batch (force_custom_plan on the engine's connections) cost about 0.1 ms of the server's CPU a
// batch. A commit that does carry a projector's writes is still planned for its parameters: a
// cached generic plan cannot know how many rows its arrays hold.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { JournalEntry } from "../../src/engine/store.js";
import type { StatementPart } from "../../src/store/postgres/batch-statement.js";
import type { PostgresPool } from "../../src/store/postgres/database.js";
import { PostgresEngineStore, type PostgresProjector } from "../../src/store/postgres/engine-store.js";
import { createForwardedCommandsProjector } from "../../src/store/postgres/forwarded-commands.js";
import { engineTermConnections } from "../../src/topology/engine-node.js";
import { postgresSkipReason } from "../support/postgres-cluster.js";
import { postgresEngineSuite } from "../support/postgres-engine-suite.js";

type Command = { type: string; forwardId?: string };
type Event = { type: string };
const skipReason = postgresSkipReason();

function entry(sequence: bigint): JournalEntry<Command, Event> {
  // Every third command forwarded, so both appends (with and without forward ids) run.
  const forwardId = sequence % 3n === 0n ? `forwarded-${sequence}` : undefined;
  return {
    sequence,
    nowMs: 1_700_000_000_000 + Number(sequence),
    command: forwardId === undefined ? { type: "local" } : { type: "forwarded", forwardId },
    events: [{ type: "appended" }],
  };
}

interface PlanCounts {
  readonly name: string;
  readonly generic: number;
  readonly custom: number;
}

/** The prepared statements of every connection of the pool (each checked out at once: all differ). */
async function preparedStatements(pool: PostgresPool): Promise<PlanCounts[]> {
  const clients = await Promise.all(Array.from({ length: pool.totalCount }, () => pool.connect()));
  try {
    const counts: PlanCounts[] = [];
    for (const client of clients) {
      const result = await client.query<{ name: string; generic_plans: string; custom_plans: string }>(
        "SELECT name, generic_plans::text, custom_plans::text FROM pg_prepared_statements",
      );
      for (const row of result.rows) {
        counts.push({ name: row.name, generic: Number(row.generic_plans), custom: Number(row.custom_plans) });
      }
    }
    return counts;
  } finally {
    for (const client of clients) client.release();
  }
}

describe("PostgreSQL engine commits: planning", { skip: skipReason }, () => {
  const suite = postgresEngineSuite();

  /** A leader's store on a pool opened as an engine node's term opens it. */
  const openLeader = async (database: string) => {
    const opened = await suite.database(database, (url) =>
      engineTermConnections({ url, termId: `${database}/1`, leaseMs: 5_000 }),
    );
    const { pool } = opened;
    const leadership = await suite.lead(opened, database);
    const store = await PostgresEngineStore.open<Command, Event>(pool, leadership);
    const forwarded = await createForwardedCommandsProjector<Command, Event>(
      pool,
      (command) => command.forwardId,
    );
    return { pool, store, forwarded };
  };

  /** Batches of 1 to 40 entries, two in flight as the engine sends them. */
  const commitBatches = async (
    store: PostgresEngineStore<Command, Event>,
    projectors: PostgresProjector<Command, Event>[],
    batches: number,
  ) => {
    let sequence = 0n;
    let inFlight: Promise<void> | undefined;
    for (let batch = 0; batch < batches; batch += 1) {
      const size = 1 + ((batch * 7) % 40);
      const entries = Array.from({ length: size }, () => entry(++sequence));
      const commit = store.commitBatch(entries, projectors);
      if (inFlight !== undefined) await inFlight;
      inFlight = commit;
    }
    await inFlight;
    assert.equal(await store.lastSequence(), sequence);
  };

  it("plans the journal append once per connection, generically, on an engine node's connections", async () => {
    const { pool, store, forwarded } = await openLeader("journal_alone");
    const batches = 60;
    await commitBatches(store, [forwarded], batches);
    const appends = (await preparedStatements(pool)).filter((one) =>
      one.name.startsWith("predex-engine-append"),
    );
    const executions = appends.reduce((sum, one) => sum + one.generic + one.custom, 0);
    assert.equal(executions, batches, "every commit ran one of the named appends");
    for (const append of appends) {
      // PostgreSQL's default planning tries five custom plans, then keeps the generic one.
      assert.ok(
        append.custom <= 5,
        `${append.name}: ${append.custom} custom plans, ${append.generic} generic`,
      );
    }
    const generic = appends.reduce((sum, one) => sum + one.generic, 0);
    assert.ok(generic >= executions - 5 * appends.length, `generic plans ${generic} of ${executions}`);
  });

  it("still plans a commit that carries a projector's writes for its parameters", async () => {
    const { pool, store, forwarded } = await openLeader("projector_part");
    // A projector whose rows ride in the batch's statement, as the read models' did in each commit.
    const noted: PostgresProjector<Command, Event> = Object.assign(async () => {}, {
      oneStatement: {
        writesInOneStatement: () => true,
        async prepare(_reader: unknown, entries: readonly JournalEntry<Command, Event>[]) {
          const part: StatementPart = {
            ctes: "noted AS (SELECT count(*) AS entries FROM unnest($1::bigint[]))",
            values: [entries.map((one) => one.sequence)],
            selects: ["(SELECT entries FROM noted)"],
          };
          return { part, committed: () => {} };
        },
      },
    });
    await commitBatches(store, [forwarded, noted], 20);
    const named = (await preparedStatements(pool)).filter(
      (one) => one.name.startsWith("predex-engine-append") || one.name.startsWith("predex-batch-"),
    );
    // Unnamed, each is planned for its parameters: none can run a plan cached by an earlier batch.
    assert.deepEqual(named, [], "no statement with a projector's part was prepared under a name");
  });
});
