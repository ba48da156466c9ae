// The read models projected behind the journal on PostgreSQL (issue #31; the SQLite twin is
// src/engine/deferred-projection.ts with src/store/sqlite/read-model-projection.ts). The engine
// leader acknowledges a command once its journal entry is durable; its committed entries wait here
// and are projected in steps of many entries, each step one transaction that also moves
// engine_read_model_position.projected_through, so the read models are whole as of that sequence
// whatever crashes when.
//
// - Exactly once: a step locks the position row first (FOR UPDATE), projects only the entries after
//   it and moves it. Two leaders (a stale one still stepping while a new one catches up) therefore
//   never project an entry twice: the second to lock sees the position moved and skips what it holds.
//   What they project is the committed journal (an entry reaches onCommitted only once durable), so
//   either projects the same rows.
// - Crash safety: a leader (a restart, or a newly elected one) opens the projection by reading the
//   journal after the recorded position up to the journal's end before it serves, and projects it.
// - A step commits with synchronous_commit=off (as SQLite's steps skip their fsync): if the server
//   loses it, its position goes with it (the WAL is replayed as a prefix) and the next leader projects
//   those entries again from the durable journal.
// - Readers learn the position by NOTIFY (channel predex_read_models, payload the sequence, sent in
//   the step's transaction, so heard only once it is visible), or by reading the row:
//   ReadModelPositionWatcher below, used by every API node to wait until the read models hold what
//   its replica holds (read-your-writes).

import type pg from "pg";
import { assert } from "../../engine/errors.js";
import type { JournalEntry, JournalSource } from "../../engine/store.js";
import { withAwaitedReads } from "../caught-up-reads.js";
import { sql } from "../sql.js";
import { type ChannelListener, listenOnChannel } from "./channel-listener.js";
import type { PostgresClient, PostgresPool } from "./database.js";
import { engineMigrations } from "./engine-schema.js";
import type { PostgresProjector } from "./engine-store.js";
import { applyPostgresMigrations } from "./migrations.js";
import { preparePostgres } from "./statements.js";
import { stepEnded, stepPlanningSql, stepStarted } from "./step-planning.js";

export const readModelPositionChannel = "predex_read_models";

export const readModelPositionMigrations: readonly string[] = [
  // Read models written before this table existed were projected in each journal commit: they hold
  // the whole journal (which always keeps its last entry: the archiver never deletes it).
  `CREATE TABLE engine_read_model_position (
     id smallint PRIMARY KEY CHECK (id = 1),
     projected_through bigint NOT NULL
   );
   INSERT INTO engine_read_model_position (id, projected_through)
     SELECT 1, coalesce(max(sequence), 0) FROM engine_journal;`,
];

/** Applies the engine's migrations, then the position's (it starts at the journal's end). */
export async function applyReadModelPositionMigrations(pool: PostgresPool): Promise<void> {
  await applyPostgresMigrations(pool, "engine", engineMigrations);
  await applyPostgresMigrations(pool, "read-model-position", readModelPositionMigrations);
}

const selectPosition = preparePostgres(
  "predex-read-model-position",
  sql`SELECT projected_through FROM engine_read_model_position WHERE id = 1`,
);

// A step's transaction in two round trips around its projectors' statements (there were five: BEGIN,
// SET LOCAL, the lock, the move, COMMIT), each a simple query of several statements: on a busy node
// every round trip waits for the event loop to come back to the socket, and costs both processes a
// wake-up. The position goes into the closing text as a literal: a bigint this process formats.
// The step's statements are planned once per connection, by index probes (step-planning.ts).
const openStepText = `BEGIN;
SET LOCAL synchronous_commit = off;
${stepPlanningSql};
SELECT projected_through FROM engine_read_model_position WHERE id = 1 FOR UPDATE`;
/** Moves the position (and tells the readers, heard once committed) and commits. */
function closeStepText(through: bigint): string {
  return `UPDATE engine_read_model_position SET projected_through = ${through} WHERE id = 1;
SELECT pg_notify('${readModelPositionChannel}', '${through}');
COMMIT`;
}

/**
 * The identity columns projectors fill (ledger entry ids, deposits' order, notification ids). A step
 * rolled back (its node killed mid-step) has used up numbers; the first step of every projection
 * sets each counter back to its table's maximum + 1, under the position's lock (nothing else writes
 * these tables), so the rows get the numbers an uncrashed run gives them.
 */
const projectedIdentityColumns = [
  ["exchange_ledger", "entry_id"],
  ["exchange_deposits", "deposit_seq"],
  ["legacy_notifications", "notification_id"],
] as const;

async function identityResetStatement(pool: PostgresPool): Promise<string | undefined> {
  const present = await pool.query<{ name: string }>(
    "SELECT relname AS name FROM pg_class WHERE relkind = 'r' AND relname = ANY($1::text[]) AND pg_table_is_visible(oid)",
    [projectedIdentityColumns.map(([table]) => table)],
  );
  const tables = new Set(present.rows.map((row) => row.name));
  const resets = projectedIdentityColumns
    .filter(([table]) => tables.has(table))
    .map(
      ([table, column]) =>
        `setval(pg_get_serial_sequence('${table}', '${column}'), coalesce((SELECT max(${column}) FROM ${table}), 0) + 1, false)`,
    );
  return resets.length === 0 ? undefined : `SELECT ${resets.join(", ")}`;
}

/** The position the read models hold, as recorded in the database. */
export async function readModelPosition(pool: PostgresPool): Promise<bigint> {
  const row = await selectPosition.row<{ projected_through: bigint | string }>(pool, {});
  return BigInt(row!.projected_through);
}

export interface PostgresProjectionLimits {
  /** Entries projected in one step (one transaction) at most. */
  readonly stepEntriesMax: number;
  /** Entries waiting that start a step at once instead of after delayMs. */
  readonly stepEntriesMin: number;
  /** How long an entry waits at most before a step projects it. */
  readonly delayMs: number;
}

/**
 * Steps of up to 512 entries: a step costs a handful of round trips whatever its size, and runs on
 * its own connection while the engine goes on committing (nothing waits on the event loop as on
 * SQLite). 2 ms: an API node's answer waits for the step holding its command, so the delay is
 * latency, not only staleness.
 */
export const defaultPostgresProjectionLimits: PostgresProjectionLimits = {
  stepEntriesMax: 512,
  stepEntriesMin: 64,
  delayMs: 2,
};

export interface PostgresReadModelProjectionOptions<Command, Event> {
  readonly pool: PostgresPool;
  readonly projectors: readonly PostgresProjector<Command, Event>[];
  /** Where open() reads the entries the read models miss (archive + journal). */
  readonly journal: JournalSource<Command, Event>;
  /** The journal's last sequence (the engine's committed sequence at its start): open() projects up to it. */
  readonly committedSequence: bigint;
  readonly limits?: Partial<PostgresProjectionLimits>;
  /** A step failed: the projection stops; the host steps down (the next leader projects from the position). */
  readonly onFatal: (error: Error) => void;
  /** Each step's size and duration (metrics, benches). */
  readonly onStep?: (entries: number, ms: number) => void;
  /** The position moved (in-process readers hear it before the NOTIFY). */
  readonly onProjected?: (sequence: bigint) => void;
}

export class PostgresReadModelProjection<Command, Event> {
  readonly #options: PostgresReadModelProjectionOptions<Command, Event>;
  readonly #limits: PostgresProjectionLimits;
  #pending: JournalEntry<Command, Event>[] = [];
  #projectedSequence: bigint;
  #receivedSequence: bigint;
  #running: Promise<void> | undefined;
  #timer: NodeJS.Timeout | undefined;
  #failure: Error | undefined;
  #stopped = false;
  /** Run in this projection's first step that writes (then undefined). */
  #identityReset: string | undefined;
  /** Callers waiting for a sequence to be projected (sorted by nothing: few at a time). */
  readonly #waiters = new Set<{ sequence: bigint; resolve: () => void; reject: (error: Error) => void }>();

  /** Projects the journal entries after the recorded position up to committedSequence, then follows. */
  static async open<Command, Event>(
    options: PostgresReadModelProjectionOptions<Command, Event>,
  ): Promise<PostgresReadModelProjection<Command, Event>> {
    await applyReadModelPositionMigrations(options.pool);
    const from = await readModelPosition(options.pool);
    const projection = new PostgresReadModelProjection(options, from);
    projection.#identityReset = await identityResetStatement(options.pool);
    if (from >= options.committedSequence) {
      // Another leader's projection may be ahead of this one's start (it went on after this node
      // read the journal): nothing to project, and what it holds is not this node's to redo.
      projection.#receivedSequence = from;
      return projection;
    }
    let expected = from + 1n;
    read: for await (const batch of options.journal.readJournal(from)) {
      for (const entry of batch) {
        if (entry.sequence > options.committedSequence) break read;
        assert(
          entry.sequence === expected,
          `journal entry ${expected} is there to project (found ${entry.sequence})`,
        );
        projection.#pending.push(entry);
        expected += 1n;
        if (projection.#pending.length >= projection.#limits.stepEntriesMax) await projection.#step();
      }
    }
    assert(
      expected === options.committedSequence + 1n,
      `the journal holds every entry up to ${options.committedSequence} to project (it ends at ${expected - 1n})`,
    );
    projection.#receivedSequence = options.committedSequence;
    while (projection.#pending.length > 0) await projection.#step();
    if (projection.#failure !== undefined) throw projection.#failure;
    return projection;
  }

  private constructor(options: PostgresReadModelProjectionOptions<Command, Event>, from: bigint) {
    this.#options = options;
    this.#limits = { ...defaultPostgresProjectionLimits, ...options.limits };
    assert(this.#limits.stepEntriesMax > 0, "stepEntriesMax is positive");
    this.#projectedSequence = from;
    this.#receivedSequence = from;
  }

  /** The last sequence this projection knows the read models hold. */
  get projectedSequence(): bigint {
    return this.#projectedSequence;
  }

  get pendingEntries(): number {
    return this.#pending.length;
  }

  get failure(): Error | undefined {
    return this.#failure;
  }

  /** A committed batch (the engine's onCommitted). Entries already held are skipped. */
  committed(entries: readonly JournalEntry<Command, Event>[]): void {
    if (this.#failure !== undefined || this.#stopped) return;
    for (const entry of entries) {
      if (entry.sequence <= this.#receivedSequence) continue;
      assert(
        entry.sequence === this.#receivedSequence + 1n,
        `committed entries reach the projection in order (expected ${this.#receivedSequence + 1n}, got ${entry.sequence})`,
      );
      this.#pending.push(entry);
      this.#receivedSequence = entry.sequence;
    }
    this.#schedule(false);
  }

  /** Resolves once the read models hold `sequence` (projecting now what waits, without the delay). */
  reached(sequence: bigint): Promise<void> {
    if (this.#failure !== undefined) return Promise.reject(this.#failure);
    if (this.#projectedSequence >= sequence) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.#waiters.add({ sequence, resolve, reject });
      this.#schedule(true);
    });
  }

  /** Projects everything received so far. */
  async catchUp(): Promise<void> {
    await this.reached(this.#receivedSequence);
  }

  /** Projects what is pending, then takes nothing more (the engine has committed its last batch). */
  async close(): Promise<void> {
    if (this.#failure === undefined) await this.catchUp().catch(() => {});
    this.#stopped = true;
    this.#cancelTimer();
    await this.#running;
  }

  /**
   * Stops at once without projecting what waits (a leader that lost its lease: its successor
   * projects from the recorded position). Waiters are told the projection stopped.
   */
  async abandon(reason: Error): Promise<void> {
    this.#stopped = true;
    this.#cancelTimer();
    await this.#running;
    this.#pending = [];
    for (const waiter of this.#waiters) waiter.reject(reason);
    this.#waiters.clear();
  }

  #cancelTimer(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #schedule(now: boolean): void {
    if (this.#running !== undefined || this.#pending.length === 0 || this.#failure !== undefined) return;
    if (this.#stopped && !now) return;
    if (now || this.#waiters.size > 0 || this.#pending.length >= this.#limits.stepEntriesMin) {
      this.#cancelTimer();
      this.#running = this.#runSteps();
      return;
    }
    this.#timer ??= setTimeout(() => {
      this.#timer = undefined;
      this.#schedule(true);
    }, this.#limits.delayMs);
  }

  /** Steps one after another while entries wait (steps never overlap: the position is one row). */
  async #runSteps(): Promise<void> {
    try {
      // Once nobody waits and fewer than stepEntriesMin wait, the rest goes after delayMs (#schedule).
      do await this.#step();
      while (
        this.#pending.length > 0 &&
        this.#failure === undefined &&
        (this.#waiters.size > 0 || this.#pending.length >= this.#limits.stepEntriesMin)
      );
    } finally {
      this.#running = undefined;
    }
    if (this.#pending.length > 0) this.#schedule(false);
  }

  async #step(): Promise<void> {
    const count = Math.min(this.#pending.length, this.#limits.stepEntriesMax);
    const entries = this.#pending.slice(0, count);
    const startedMs = this.#options.onStep === undefined ? 0 : performance.now();
    let through: bigint;
    let identitiesReset = false;
    try {
      through = await inStepTransaction(this.#options.pool, async (client) => {
        const opened = (await client.query(openStepText)) as unknown as pg.QueryResult[];
        stepStarted(client);
        const held = BigInt(opened.at(-1)!.rows[0]!.projected_through as bigint | string);
        const last = entries.at(-1)!.sequence;
        // Another leader projected these (or some of them) already.
        const missing =
          held >= entries[0]!.sequence ? entries.filter((entry) => entry.sequence > held) : entries;
        if (missing.length === 0) return { result: held, close: "COMMIT" };
        if (missing[0]!.sequence !== held + 1n) {
          throw new Error(
            `Projection out of order: the read models hold up to ${held}, the step starts at ${missing[0]!.sequence}`,
          );
        }
        if (this.#identityReset !== undefined) {
          await client.query(this.#identityReset);
          identitiesReset = true;
        }
        for (const projector of this.#options.projectors) await projector(client, missing);
        return { result: last, close: closeStepText(last) };
      });
    } catch (error) {
      this.#fail(error);
      return;
    }
    this.#pending = this.#pending.slice(count);
    if (identitiesReset) this.#identityReset = undefined;
    if (through > this.#projectedSequence) this.#projectedSequence = through;
    this.#options.onStep?.(count, performance.now() - startedMs);
    this.#options.onProjected?.(this.#projectedSequence);
    for (const waiter of this.#waiters) {
      if (waiter.sequence <= this.#projectedSequence) {
        this.#waiters.delete(waiter);
        waiter.resolve();
      }
    }
  }

  #fail(cause: unknown): void {
    const message = cause instanceof Error ? cause.message : String(cause);
    this.#failure = new Error(`The read models stopped at sequence ${this.#projectedSequence}: ${message}`, {
      cause,
    });
    this.#pending = [];
    this.#cancelTimer();
    for (const waiter of this.#waiters) waiter.reject(this.#failure);
    this.#waiters.clear();
    this.#options.onFatal(this.#failure);
  }
}

/**
 * A transaction on a pooled connection whose BEGIN `work` sends itself (in openStepText) and whose
 * last text, which ends with COMMIT, it hands back: as inTransaction (database.ts) otherwise.
 */
async function inStepTransaction<T>(
  pool: PostgresPool,
  work: (client: PostgresClient) => Promise<{ readonly result: T; readonly close: string }>,
): Promise<T> {
  const client = await pool.connect();
  let broken = false;
  // A connection ended while checked out emits 'error': heard here, the failure reaches the step
  // through the query in flight or the next one.
  const onConnectionError = () => {
    broken = true;
  };
  client.on("error", onConnectionError);
  try {
    const { result, close } = await work(client);
    await client.query(close);
    return result;
  } catch (error) {
    try {
      // Also when BEGIN itself failed: ROLLBACK outside a transaction only warns.
      await client.query("ROLLBACK");
    } catch {
      broken = true;
    }
    throw error;
  } finally {
    stepEnded(client);
    client.off("error", onConnectionError);
    client.release(broken);
  }
}

export interface ReadModelPositionWatcherOptions {
  readonly pool: PostgresPool;
  /** How often the row is read while someone waits (a NOTIFY missed across a reconnect). */
  readonly pollEveryMs?: number;
  readonly onListenError?: (error: unknown) => void;
}

/**
 * Where the read models stand, as a reader node sees it: the NOTIFY of every step, this process's
 * own leader's steps (observe), and the row itself while someone waits.
 */
export class ReadModelPositionWatcher {
  #known = 0n;
  #listener: ChannelListener | undefined;
  #poll: NodeJS.Timeout | undefined;
  #closed = false;
  readonly #waiters = new Set<{ sequence: bigint; resolve: () => void }>();
  readonly #listeners: ((sequence: bigint) => void)[] = [];

  static async start(options: ReadModelPositionWatcherOptions): Promise<ReadModelPositionWatcher> {
    await applyReadModelPositionMigrations(options.pool);
    const watcher = new ReadModelPositionWatcher(options);
    watcher.#listener = await listenOnChannel({
      connection: options.pool.options,
      channel: readModelPositionChannel,
      onNotification: (payload) => {
        if (/^\d+$/.test(payload)) watcher.observe(BigInt(payload));
      },
      onListening: () => void watcher.#read(),
      onLost: (error) => options.onListenError?.(error),
    });
    await watcher.#read();
    return watcher;
  }

  private constructor(private readonly options: ReadModelPositionWatcherOptions) {}

  /** The highest position heard of. */
  get sequence(): bigint {
    return this.#known;
  }

  /** Tells `listener` each new position, before anyone waiting for it is let go. */
  onPosition(listener: (sequence: bigint) => void): void {
    this.#listeners.push(listener);
  }

  /** A position learnt another way (this process's own leader projected it). */
  observe(sequence: bigint): void {
    if (sequence <= this.#known) return;
    this.#known = sequence;
    for (const listener of this.#listeners) listener(sequence);
    for (const waiter of this.#waiters) {
      if (waiter.sequence <= sequence) {
        this.#waiters.delete(waiter);
        waiter.resolve();
      }
    }
    if (this.#waiters.size === 0) this.#stopPolling();
  }

  /** Undefined when the read models already hold `sequence`; else resolves once they do. */
  waitFor(sequence: bigint): Promise<void> | undefined {
    if (this.#known >= sequence || this.#closed) return undefined;
    return new Promise((resolve) => {
      this.#waiters.add({ sequence, resolve });
      this.#poll ??= setInterval(() => void this.#read(), this.options.pollEveryMs ?? 50);
    });
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#stopPolling();
    for (const waiter of this.#waiters) waiter.resolve();
    this.#waiters.clear();
    await this.#listener?.close();
  }

  #stopPolling(): void {
    if (this.#poll !== undefined) clearInterval(this.#poll);
    this.#poll = undefined;
  }

  async #read(): Promise<void> {
    try {
      this.observe(await readModelPosition(this.options.pool));
    } catch {
      // The database is away: the next poll or notification tries again.
    }
  }
}

/**
 * The same store, each method waiting first until the read models hold what `wait` waits for (this
 * node's replica's sequence): a read after an answered command sees it.
 */
export const withProjectedReads = withAwaitedReads;
