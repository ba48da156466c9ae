// One leader, fenced: the advisory lock decides who leads, the epoch makes a former leader harmless.
// In process (a released or expired leadership) and across processes (a leader SIGSTOPped while a
// successor takes over, then SIGCONTed): the database refuses every row of a stale epoch.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import { decodeJournalText } from "../../src/engine/journal-chain.js";
import type { JournalEntry } from "../../src/engine/store.js";
import { openPostgresPool, type PostgresPool } from "../../src/store/postgres/database.js";
import { engineMigrations } from "../../src/store/postgres/engine-schema.js";
import { EngineFencedError, PostgresEngineStore } from "../../src/store/postgres/engine-store.js";
import { createForwardedCommandsProjector } from "../../src/store/postgres/forwarded-commands.js";
import {
  acquireLeadership,
  engineApplicationName,
  type Leadership,
  LeadershipAbortedError,
  readLeader,
} from "../../src/store/postgres/leadership.js";
import { applyPostgresMigrations } from "../../src/store/postgres/migrations.js";
import { NodeProcess } from "../support/node-process.js";
import {
  type PostgresCluster,
  postgresSkipReason,
  startPostgresCluster,
} from "../support/postgres-cluster.js";

type Command = { type: string; by?: string };
type Event = { type: string };

const skipReason = postgresSkipReason();

function entries(first: bigint, count: number, by = "test"): JournalEntry<Command, Event>[] {
  return Array.from({ length: count }, (_, index) => ({
    sequence: first + BigInt(index),
    nowMs: 1_700_000_000_000 + index,
    command: { type: "raw", by },
    events: [{ type: "appended" }],
  }));
}

async function journalRows(pool: PostgresPool): Promise<{ sequence: bigint; epoch: bigint; by: string }[]> {
  const result = await pool.query<{ sequence: bigint; epoch: bigint; command: string }>(
    "SELECT sequence, epoch, command FROM engine_journal ORDER BY sequence",
  );
  return result.rows.map(({ sequence, epoch, command }) => ({
    sequence,
    epoch,
    by: decodeJournalText<{ by: string }>(command).by,
  }));
}

describe("PostgreSQL leadership and fencing", { skip: skipReason }, () => {
  let cluster: PostgresCluster;
  const pools: PostgresPool[] = [];
  const leaderships: Leadership[] = [];
  const nodes: NodeProcess[] = [];
  let databaseNumber = 0;

  before(async () => {
    cluster = await startPostgresCluster();
  });
  after(async () => {
    for (const node of nodes) {
      node.kill("SIGCONT");
      node.kill("SIGKILL");
      await node.exited;
    }
    for (const leadership of leaderships) await leadership.release();
    for (const pool of pools) await pool.end();
    await cluster?.stop();
  });

  const newDatabase = async () => {
    databaseNumber += 1;
    return cluster.createDatabase(`leadership_${databaseNumber}`);
  };
  const poolFor = (url: string, nodeId: string) => {
    const pool = openPostgresPool({ url, applicationName: engineApplicationName(nodeId) });
    pools.push(pool);
    return pool;
  };
  const lead = async (
    url: string,
    nodeId: string,
    options: { leaseMs?: number; renewEveryMs?: number } = {},
  ) => {
    const pool = poolFor(url, nodeId);
    const leadership = await acquireLeadership(pool, { url, nodeId, lockWaitSliceMs: 100, ...options });
    leaderships.push(leadership);
    const store = await PostgresEngineStore.open<Command, Event>(pool, leadership);
    return { pool, leadership, store };
  };

  it("applies each migration once when several nodes start at the same moment", async () => {
    const url = await newDatabase();
    const starting = Array.from({ length: 6 }, (_, index) => poolFor(url, `starter-${index}`));
    const results = await Promise.all(
      starting.map((pool) => applyPostgresMigrations(pool, "engine", engineMigrations)),
    );
    assert.deepEqual(
      results.flatMap((result) => result.applied),
      engineMigrations.map((_, index) => index + 1),
    );
    const recorded = await starting[0]!.query(
      "SELECT version FROM schema_migrations WHERE module = 'engine'",
    );
    assert.equal(recorded.rowCount, engineMigrations.length);
    await assert.rejects(applyPostgresMigrations(starting[0]!, "engine", []), /newer than this build knows/);
  });

  it("a leader whose lock was taken over cannot append a single row, nor write a snapshot", async () => {
    const url = await newDatabase();
    const first = await lead(url, "first");
    assert.equal(first.leadership.epoch, 1n);
    await first.store.commitBatch(entries(1n, 2, "first"), []);

    await first.leadership.release();
    const second = await lead(url, "second");
    assert.equal(second.leadership.epoch, 2n);
    assert.equal((await readLeader(second.pool)).nodeId, "second");

    await assert.rejects(first.store.commitBatch(entries(3n, 3, "first"), []), EngineFencedError);
    await assert.rejects(
      first.store.saveSnapshot({ sequence: 2n, nowMs: 1, state: "{}", hash: "x" }),
      EngineFencedError,
    );
    await second.store.commitBatch(entries(3n, 1, "second"), []);
    assert.deepEqual(
      (await journalRows(second.pool)).map((row) => [row.sequence, row.epoch, row.by]),
      [
        [1n, 1n, "first"],
        [2n, 1n, "first"],
        [3n, 2n, "second"],
      ],
    );
    assert.equal((await second.pool.query("SELECT * FROM engine_snapshots")).rowCount, 0);
  });

  it("a stale leader that repeats what its successor wrote is told it is fenced, whichever key refuses it first", async () => {
    const url = await newDatabase();
    const first = await lead(url, "first");
    await first.store.commitBatch(entries(1n, 1, "first"), []);
    await first.leadership.release();
    const second = await lead(url, "second");
    const forwardIdOf = (command: Command) => command.by;
    const forwarded = await createForwardedCommandsProjector<Command, Event>(second.pool, forwardIdOf);
    await second.store.commitBatch(entries(2n, 1, "forward-1"), [forwarded]);
    // The same sequence (the journal's key) and a new sequence with the same forward id (the forward
    // ids' key, whose CTE PostgreSQL may run before the journal's guard): both fenced, nothing written.
    const staleForwarded = await createForwardedCommandsProjector<Command, Event>(first.pool, forwardIdOf);
    await assert.rejects(
      first.store.commitBatch(entries(2n, 1, "stale"), [staleForwarded]),
      EngineFencedError,
    );
    await assert.rejects(
      first.store.commitBatch(entries(3n, 1, "forward-1"), [staleForwarded]),
      EngineFencedError,
    );
    assert.deepEqual(
      (await journalRows(second.pool)).map((row) => [row.sequence, row.by]),
      [
        [1n, "first"],
        [2n, "forward-1"],
      ],
    );
  });

  it("the database itself refuses a stale epoch and a rewrite, whoever sends them", async () => {
    const url = await newDatabase();
    const leader = await lead(url, "leader");
    await leader.store.commitBatch(entries(1n, 1), []);
    const insert =
      "INSERT INTO engine_journal (sequence, now_ms, command, events, epoch) VALUES ($1, 0, '{}', '[]', $2)";
    await assert.rejects(leader.pool.query(insert, [2n, leader.leadership.epoch - 1n]), { code: "PX001" });
    await assert.rejects(leader.pool.query(insert, [2n, leader.leadership.epoch + 1n]), { code: "PX001" });
    await assert.rejects(leader.pool.query(insert, [3n, leader.leadership.epoch]), { code: "PX002" });
    await assert.rejects(leader.pool.query("UPDATE engine_journal SET events = '[]'"), /append-only/);
    assert.equal((await journalRows(leader.pool)).length, 1);
  });

  it("a takeover waits for an append in flight, ends the old leader's sessions, and the append is lost whole", async () => {
    const url = await newDatabase();
    const old = await lead(url, "old");
    await old.store.commitBatch(entries(1n, 1, "old"), []);
    let inside!: () => void;
    const reachedProjector = new Promise<void>((resolve) => {
      inside = resolve;
    });
    let resume!: () => void;
    const held = new Promise<void>((resolve) => {
      resume = resolve;
    });
    // The batch's rows are inserted (the guard holds the leader row FOR SHARE), then it waits.
    const inFlight = old.store.commitBatch(entries(2n, 5, "old"), [
      async () => {
        inside();
        await held;
      },
    ]);
    await reachedProjector;
    await old.leadership.release();
    const successor = await lead(url, "successor");
    assert.equal(successor.leadership.epoch, old.leadership.epoch + 1n);
    resume();
    await assert.rejects(inFlight);
    assert.deepEqual(
      (await journalRows(successor.pool)).map((row) => [row.sequence, row.by]),
      [[1n, "old"]],
    );
  });

  it("a candidate ends a leader whose lease ran out (a paused leader) and takes over", async () => {
    const url = await newDatabase();
    // Renews far too rarely: to the database it looks paused once its lease runs out.
    const paused = await lead(url, "paused", { leaseMs: 300, renewEveryMs: 3_600_000 });
    await paused.store.commitBatch(entries(1n, 1, "paused"), []);
    const successor = await lead(url, "successor");
    assert.equal(successor.leadership.epoch, paused.leadership.epoch + 1n);
    assert.match((await paused.leadership.lost).message, /Leadership lost/);
    assert.equal(paused.leadership.isHeld(), false);
    // Its pooled sessions were ended too; a fresh one gets the refusal.
    await assert.rejects(
      (async () => {
        for (let attempt = 0; attempt < 3; attempt++) {
          try {
            await paused.store.commitBatch(entries(2n, 1, "paused"), []);
            return;
          } catch (error) {
            if (error instanceof EngineFencedError) throw error;
          }
        }
      })(),
      EngineFencedError,
    );
    assert.deepEqual(
      (await journalRows(successor.pool)).map((row) => row.by),
      ["paused"],
    );
  });

  it("a candidate waiting for the lock writes no error to the server's log", async () => {
    const url = await newDatabase();
    await lead(url, "holder");
    const logBefore = readFileSync(cluster.logPath, "utf8").length;
    const waiting = new AbortController();
    const candidate = acquireLeadership(poolFor(url, "candidate"), {
      url,
      nodeId: "candidate",
      lockWaitSliceMs: 50,
      signal: waiting.signal,
    });
    // About 30 looks at the lock; a lock_timeout on each would log an ERROR each time.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    waiting.abort();
    await assert.rejects(candidate, LeadershipAbortedError);
    const logged = readFileSync(cluster.logPath, "utf8").slice(logBefore);
    assert.deepEqual(
      logged.split("\n").filter((line) => /ERROR/.test(line)),
      [],
    );
  });

  it("a leader process SIGSTOPped through a takeover writes nothing after SIGCONT", async () => {
    const url = await newDatabase();
    const observer = poolFor(url, "observer");
    // Lease 1 s, renewed every 200 ms while it runs.
    const old = NodeProcess.start(["raw", url, "old-leader", "1000", "200", "60000"]);
    nodes.push(old);
    assert.equal((await old.next((message) => message.event === "leader")).epoch, "1");
    old.send({ append: 3 });
    await old.next((message) => message.event === "appended");

    old.kill("SIGSTOP");
    const successor = NodeProcess.start(["raw", url, "successor", "1000", "200", "60000"]);
    nodes.push(successor);
    assert.equal((await successor.next((message) => message.event === "leader")).epoch, "2");
    successor.send({ append: 2 });
    await successor.next((message) => message.event === "appended");

    const seen = old.messages.length;
    old.kill("SIGCONT");
    old.send({ append: 1 });
    const answer = await old.next((message) => message.event === "refused", 20_000, seen);
    assert.equal(answer.error, "EngineFencedError", JSON.stringify(answer));
    await old.next((message) => message.event === "lost", 20_000, seen);

    const rows = await journalRows(observer);
    assert.deepEqual(
      rows.map((row) => [row.sequence, row.epoch, row.by]),
      [
        [1n, 1n, "old-leader"],
        [2n, 1n, "old-leader"],
        [3n, 1n, "old-leader"],
        [4n, 2n, "successor"],
        [5n, 2n, "successor"],
      ],
    );
  });
});
