// The read models behind the journal on PostgreSQL (src/store/postgres/read-model-projection.ts):
// the same seeded command stream is run on a reference database whose read models are written in
// each journal commit (as before issue #31) and on databases where they follow the journal in steps;
// every projected table must end up row for row the same, the position row at the journal's end:
// - steps of any size, cutting the engine's batches anywhere;
// - a leader killed between journal commits and projection steps (nothing projected after some
//   point; a step rolled back half way, having used up identity numbers), then a new leader that
//   projects what is missing from the recorded position and goes on;
// - two leaders projecting the same journal at once (a stale one still stepping while its
//   successor catches up): nothing is projected twice.

import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import pino from "pino";
import {
  type ExchangeCommand,
  type ExchangeEvent,
  type ExchangeState,
  exchangeDecider,
  exchangeStateCodec,
} from "../../src/core/exchange.js";
import { Engine } from "../../src/engine/engine.js";
import type { JournalEntry } from "../../src/engine/store.js";
import { openPostgresPool, type PostgresPool } from "../../src/store/postgres/database.js";
import { PostgresEngineStore, type PostgresProjector } from "../../src/store/postgres/engine-store.js";
import { acquireLeadership, type Leadership } from "../../src/store/postgres/leadership.js";
import {
  type PostgresProjectionLimits,
  PostgresReadModelProjection,
  ReadModelPositionWatcher,
  readModelPosition,
} from "../../src/store/postgres/read-model-projection.js";
import { stepPlanningSql } from "../../src/store/postgres/step-planning.js";
import { openPostgresEngineProjectors } from "../../src/topology/postgres-projectors.js";
import { CommandStream } from "../sim/command-stream.js";
import {
  type PostgresCluster,
  postgresSkipReason,
  startPostgresCluster,
} from "../support/postgres-cluster.js";
import { projectedTables } from "../support/postgres-projected-tables.js";

const skip = postgresSkipReason();
let cluster: Promise<PostgresCluster> | undefined;
let databases = 0;
after(async () => {
  if (cluster !== undefined) await (await cluster).stop();
});

async function newDatabase(): Promise<{ url: string; pool: PostgresPool }> {
  cluster ??= startPostgresCluster();
  databases += 1;
  const url = await (await cluster).createDatabase(`projection_${process.pid}_${databases}`);
  return { url, pool: openPostgresPool({ url, applicationName: `projection-test-${databases}` }) };
}

const quiet = pino({ level: "silent" });
const groups = 120;
const startMs = 1_800_000_000_000;

type ExchangeEngine = Engine<ExchangeState, ExchangeCommand, ExchangeEvent, unknown>;

/** A leader of one database: engine (journal only, or read models in each commit) and its projectors. */
interface Leader {
  readonly engine: ExchangeEngine;
  readonly store: PostgresEngineStore<ExchangeCommand, ExchangeEvent>;
  readonly projectors: PostgresProjector<ExchangeCommand, ExchangeEvent>[];
  readonly leadership: Leadership;
  close(): Promise<void>;
}

async function lead(
  url: string,
  pool: PostgresPool,
  clock: () => number,
  nodeId: string,
  readModelsInCommit: boolean,
): Promise<Leader> {
  const readModels = await openPostgresEngineProjectors(pool);
  const leadership = await acquireLeadership(pool, { url, nodeId });
  const store = await PostgresEngineStore.open<ExchangeCommand, ExchangeEvent>(pool, leadership);
  const engine = (await Engine.open({
    decider: exchangeDecider,
    codec: exchangeStateCodec,
    store,
    projectors: readModelsInCommit ? readModels.projectors : [],
    clock,
    onFatal: (error) => {
      throw error;
    },
    onError: (error) => quiet.error(error),
  })) as unknown as ExchangeEngine;
  return {
    engine,
    store,
    projectors: readModels.projectors,
    leadership,
    async close() {
      await engine.close({ snapshot: false });
      await leadership.release();
      await readModels.close();
    },
  };
}

function follow(
  leader: Leader,
  pool: PostgresPool,
  limits: Partial<PostgresProjectionLimits>,
  projectors = leader.projectors,
): Promise<PostgresReadModelProjection<ExchangeCommand, ExchangeEvent>> {
  return PostgresReadModelProjection.open({
    pool,
    projectors,
    journal: leader.store,
    committedSequence: leader.engine.committedSequence,
    limits,
    onFatal: (error) => {
      throw error;
    },
  });
}

/** Submits groups [from, to) of the seeded stream (the same commands whatever database runs them). */
async function submitGroups(
  engine: ExchangeEngine,
  stream: CommandStream,
  time: { nowMs: number },
  from: number,
  to: number,
): Promise<void> {
  for (let group = from; group < to; group += 1) {
    time.nowMs += 1 + ((group * 131) % 1_500);
    const size = 1 + (group % 6);
    const commands = await engine.read((state) => stream.next(state, time.nowMs, size));
    await Promise.all(commands.map((command) => engine.submit(command)));
  }
}

/** The reference: read models written in each journal commit, the whole stream. */
async function referenceRun(seed: number): Promise<{ tables: Map<string, string[]>; sequence: bigint }> {
  const { url, pool } = await newDatabase();
  const time = { nowMs: startMs };
  const leader = await lead(url, pool, () => time.nowMs, "reference", true);
  try {
    await submitGroups(leader.engine, new CommandStream(seed), time, 0, groups);
    const sequence = leader.engine.committedSequence;
    assert.ok(sequence > 200n, `the stream committed enough to prove something (${sequence})`);
    return { tables: await projectedTables(pool), sequence };
  } finally {
    await leader.close();
    await pool.end();
  }
}

function assertSameTables(actual: Map<string, string[]>, expected: Map<string, string[]>): void {
  assert.deepEqual([...actual.keys()], [...expected.keys()]);
  let rows = 0;
  for (const [table, expectedRows] of expected) {
    assert.deepEqual(actual.get(table), expectedRows, table);
    rows += expectedRows.length;
  }
  assert.ok(rows > 500, `the tables hold enough rows to prove something (${rows})`);
}

describe("PostgreSQL read models behind the journal", { skip }, () => {
  const seed = 4242;
  let reference: Promise<{ tables: Map<string, string[]>; sequence: bigint }> | undefined;
  const expected = () => {
    reference ??= referenceRun(seed);
    return reference;
  };

  it("steps cutting the engine's batches anywhere give the rows of projecting in each commit", async () => {
    const { tables, sequence } = await expected();
    const { url, pool } = await newDatabase();
    const time = { nowMs: startMs };
    const leader = await lead(url, pool, () => time.nowMs, "behind", false);
    try {
      const projection = await follow(leader, pool, { stepEntriesMax: 7, stepEntriesMin: 5, delayMs: 1 });
      leader.engine.onCommitted((entries) => projection.committed(entries));
      await submitGroups(leader.engine, new CommandStream(seed), time, 0, groups);
      await projection.catchUp();
      assert.equal(leader.engine.committedSequence, sequence);
      assert.equal(await readModelPosition(pool), sequence);
      await projection.close();
      assertSameTables(await projectedTables(pool), tables);
    } finally {
      await leader.close();
      await pool.end();
    }
  });

  it("a leader killed between its journal commits and the projection: the next one projects what is missing, once", async () => {
    const { tables, sequence } = await expected();
    const { url, pool } = await newDatabase();
    const time = { nowMs: startMs };
    const stream = new CommandStream(seed);
    const first = await lead(url, pool, () => time.nowMs, "first", false);
    // Steps only when asked: the test decides where the projection stands when the leader dies.
    const never = { stepEntriesMax: 50, stepEntriesMin: 1_000_000, delayMs: 3_600_000 };
    const firstProjection = await follow(first, pool, never);
    first.engine.onCommitted((entries) => firstProjection.committed(entries));
    await submitGroups(first.engine, stream, time, 0, groups / 3);
    const projectedAt = first.engine.committedSequence / 2n;
    await firstProjection.reached(projectedAt);
    await submitGroups(first.engine, stream, time, groups / 3, (2 * groups) / 3);
    // SIGKILL: what waits is never projected; a step in flight is rolled back after it used up
    // identity numbers (a ledger row and a notification inserted, then gone).
    await firstProjection.abandon(new Error("killed"));
    const position = await readModelPosition(pool);
    assert.ok(position >= projectedAt && position < first.engine.committedSequence, `position ${position}`);
    const inFlight = await pool.connect();
    await inFlight.query("BEGIN");
    await inFlight.query(
      `INSERT INTO exchange_ledger (user_id, type, amount, frozen_delta, available_after, frozen_after, ref_id, time_ms)
       SELECT 1, 'DEPOSIT', 1, 0, 1, 0, 'x', 0 FROM generate_series(1, 3)`,
    );
    await inFlight.query("ROLLBACK");
    inFlight.release();
    await first.close();

    // A new leader over the same database: the journal is the truth, the position says what is left.
    const second = await lead(url, pool, () => time.nowMs, "second", false);
    try {
      const projection = await follow(second, pool, { stepEntriesMax: 13, stepEntriesMin: 8, delayMs: 1 });
      assert.equal(await readModelPosition(pool), second.engine.committedSequence);
      second.engine.onCommitted((entries) => projection.committed(entries));
      await submitGroups(second.engine, stream, time, (2 * groups) / 3, groups);
      await projection.close();
      assert.equal(second.engine.committedSequence, sequence);
      assert.equal(await readModelPosition(pool), sequence);
      assertSameTables(await projectedTables(pool), tables);
    } finally {
      await second.close();
      await pool.end();
    }
  });

  it("two projections of the same journal at once project each entry once", async () => {
    const { tables, sequence } = await expected();
    const { url, pool } = await newDatabase();
    const other = openPostgresPool({ url, applicationName: "projection-test-stale" });
    const time = { nowMs: startMs };
    const leader = await lead(url, pool, () => time.nowMs, "racing", false);
    try {
      // Each leader has projectors of its own (they keep balances and positions in memory).
      const staleProjectors = await openPostgresEngineProjectors(other);
      const stale = await follow(
        leader,
        other,
        { stepEntriesMax: 11, stepEntriesMin: 3, delayMs: 1 },
        staleProjectors.projectors,
      );
      const current = await follow(leader, pool, { stepEntriesMax: 17, stepEntriesMin: 9, delayMs: 2 });
      leader.engine.onCommitted((entries) => {
        stale.committed(entries);
        current.committed(entries);
      });
      await submitGroups(leader.engine, new CommandStream(seed), time, 0, groups);
      await Promise.all([stale.close(), current.close()]);
      await staleProjectors.close();
      assert.equal(await readModelPosition(pool), sequence);
      assertSameTables(await projectedTables(pool), tables);
    } finally {
      await leader.close();
      await other.end();
      await pool.end();
    }
  });

  // Issue #31 (i31-pg): planning the exchange's flush statement for each step was about a fifth of
  // the projection's CPU; a step plans it once per connection, and only by index probes, so the one
  // plan made while the tables were small stays right as they grow (step-planning.ts).
  it("a step plans the exchange's flush and the catalogue's heats once per connection, by index probes", async () => {
    const { url, pool } = await newDatabase();
    const time = { nowMs: startMs };
    const leader = await lead(url, pool, () => time.nowMs, "planned", false);
    try {
      // Steps of at most 4 entries: however the machine's load groups the commits, 40 groups of
      // commands make well over five steps (steps of up to 16 made four under a loaded CI).
      const projection = await follow(leader, pool, { stepEntriesMax: 4, stepEntriesMin: 2, delayMs: 1 });
      leader.engine.onCommitted((entries) => projection.committed(entries));
      await submitGroups(leader.engine, new CommandStream(seed), time, 0, 40);
      await projection.catchUp();
      await projection.close();
      // Every connection of the pool at once (each a different one): the flushes each prepared (the
      // engine's own batch statements go unnamed on this pool, which plans custom only when asked).
      const clients = await Promise.all(Array.from({ length: pool.totalCount }, () => pool.connect()));
      let executions = 0;
      let heatExecutions = 0;
      try {
        for (const client of clients) {
          const prepared = await client.query<{
            name: string;
            parameters: number;
            generic_plans: string;
            custom_plans: string;
          }>(
            `SELECT name, cardinality(parameter_types) AS parameters, generic_plans::text, custom_plans::text
             FROM pg_prepared_statements
             WHERE name LIKE 'predex-batch-%' OR name = 'predex-catalog-guessed-heats'`,
          );
          for (const statement of prepared.rows) {
            assert.equal(statement.custom_plans, "0", `${statement.name} was planned for its parameters`);
            if (statement.name.startsWith("predex-batch-")) executions += Number(statement.generic_plans);
            else heatExecutions += Number(statement.generic_plans);
            // The plan a step runs it with (no parameter is needed to show a generic plan).
            await client.query(`BEGIN; ${stepPlanningSql}`);
            try {
              const nulls = Array(statement.parameters).fill("NULL").join(", ");
              const plan = await client.query<{ "QUERY PLAN": string }>(
                `EXPLAIN EXECUTE "${statement.name}"(${nulls})`,
              );
              const lines = plan.rows.map((row) => row["QUERY PLAN"]).join("\n");
              assert.doesNotMatch(lines, /Seq Scan|Hash Join|Merge Join/, lines);
            } finally {
              await client.query("ROLLBACK");
            }
          }
        }
      } finally {
        for (const client of clients) client.release();
      }
      assert.ok(executions >= 5, `the steps ran the named flush on its generic plan (${executions} times)`);
      // The catalogue's heats too (i31-pg2): planning them for every step cost as much as running them.
      assert.ok(
        heatExecutions >= 5,
        `the steps ran the named heats on their generic plan (${heatExecutions} times)`,
      );
    } finally {
      await leader.close();
      await pool.end();
    }
  });

  it("a step is two round trips around its projectors' statements; readers hear it, a failed step moves nothing", async () => {
    const { pool } = await newDatabase();
    // Every statement the step's pooled connection sends.
    const sent: string[] = [];
    const counting = new Proxy(pool, {
      get(target, key) {
        if (key === "connect") {
          return async () => {
            const client = await target.connect();
            const query = client.query.bind(client) as (...args: unknown[]) => unknown;
            return new Proxy(client, {
              get(inner, innerKey) {
                if (innerKey === "query") {
                  return (config: string | { text: string }, ...rest: unknown[]) => {
                    sent.push(typeof config === "string" ? config : config.text);
                    return query(config, ...rest);
                  };
                }
                const value = Reflect.get(inner, innerKey) as unknown;
                return typeof value === "function" ? (value as () => unknown).bind(inner) : value;
              },
            });
          };
        }
        const value = Reflect.get(target, key) as unknown;
        return typeof value === "function" ? (value as () => unknown).bind(target) : value;
      },
    });
    const projected: bigint[] = [];
    const failAt = 5n;
    const projector: PostgresProjector<ExchangeCommand, ExchangeEvent> = async (client, entries) => {
      await client.query("SELECT 1 AS projected");
      if (entries.some((entry) => entry.sequence === failAt)) throw new Error("projector failed");
      projected.push(...entries.map((entry) => entry.sequence));
    };
    const failures: Error[] = [];
    const projection = await PostgresReadModelProjection.open<ExchangeCommand, ExchangeEvent>({
      pool: counting,
      projectors: [projector],
      journal: { readJournal: async function* () {} },
      committedSequence: 0n,
      limits: { stepEntriesMax: 10, stepEntriesMin: 1_000, delayMs: 3_600_000 },
      onFatal: (error) => failures.push(error),
    });
    // Another node's view: by NOTIFY only (no polling within the test).
    const watcher = await ReadModelPositionWatcher.start({ pool, pollEveryMs: 3_600_000 });
    try {
      const entriesThrough = (from: bigint, to: bigint) =>
        Array.from({ length: Number(to - from) + 1 }, (_, index) => ({
          sequence: from + BigInt(index),
        })) as unknown as JournalEntry<ExchangeCommand, ExchangeEvent>[];
      sent.length = 0;
      projection.committed(entriesThrough(1n, 3n));
      const heard = watcher.waitFor(3n);
      await projection.catchUp();
      assert.deepEqual(projected, [1n, 2n, 3n]);
      assert.equal(sent.length, 3, `the step's statements: ${JSON.stringify(sent)}`);
      assert.equal(sent[1], "SELECT 1 AS projected");
      assert.equal(await readModelPosition(pool), 3n);
      await heard;
      assert.equal(watcher.sequence, 3n);

      projection.committed(entriesThrough(4n, 6n));
      await assert.rejects(projection.catchUp(), /projector failed/);
      assert.equal(failures.length, 1);
      assert.equal(await readModelPosition(pool), 3n, "the failed step moved nothing");
      assert.deepEqual(projected, [1n, 2n, 3n]);
      // Its connection went back to the pool rolled back: a transaction of its own works on it.
      const client = await pool.connect();
      try {
        assert.equal((await client.query("SELECT 1 AS ok")).rows[0].ok, 1);
      } finally {
        client.release();
      }
    } finally {
      await watcher.close();
      await pool.end();
    }
  });
});
