// The engine's journal and snapshots on PostgreSQL. A batch (journal rows and every projector's
// read-model writes) is one transaction, committed with synchronous_commit=on before the Promise
// resolves: the common batch as ONE statement (batch-statement.ts), any other as BEGIN, the append,
// each projector's statements, COMMIT on one pooled connection, so the engine acknowledges only what is durable
// (and, with synchronous replication configured on the server, replicated). Every row carries the
// writer's fencing epoch and the database refuses a stale one (engine-schema.ts): a store opened
// with an epoch that has since been superseded cannot write a single row.

import { promisify } from "node:util";
import { brotliDecompress } from "node:zlib";
import type pg from "pg";
import { entryTexts } from "../../engine/journal-chain.js";
import { isPackedSnapshot } from "../../engine/snapshot-packing.js";
import type {
  EngineStore,
  JournalEntry,
  PackedStateSnapshot,
  Projector,
  StateSnapshot,
} from "../../engine/store.js";
import {
  assertJournalDeletable,
  type JournalRow,
  journalPages,
  type SnapshotHeaderRow,
  snapshotOf,
  snapshotsKeptMax,
} from "../engine-journal.js";
import {
  type BatchStatementWriter,
  joinParts,
  type PreparedPart,
  type StatementPart,
  statementOf,
  writerOfAll,
} from "./batch-statement.js";
import { arrayParameterTypes, encodeArrayParameters } from "./binary-arrays.js";
import { inTransaction, type PostgresClient, type PostgresPool } from "./database.js";
import { engineMigrations, fencedSqlState, outOfOrderSqlState } from "./engine-schema.js";
import { applyPostgresMigrations } from "./migrations.js";

/**
 * How long reading or writing a snapshot may take before it is given up (a large state is tens of
 * megabytes): far longer than a connection's statement timeout (database.ts), which is for commits.
 */
export const snapshotStatementTimeoutMs = 300_000;

const unpackOffThread = promisify(brotliDecompress);

/** Projectors on PostgreSQL get the pooled connection, already inside the batch's transaction. */
export type PostgresProjector<Command, Event> = Projector<PostgresClient, Command, Event>;

/**
 * A projector whose rows the store writes in its own journal append statement instead (a round trip
 * fewer per batch): the forwarded-command projector marks itself so. The store writes, for each entry
 * whose command has a forward id, (forward id, sequence, now) into engine_forwarded_commands; the
 * projector itself then only does its occasional pruning.
 */
export interface ForwardIdsInAppend<Command> {
  readonly forwardIdInAppendOf: (command: Command) => string | undefined;
}

function forwardIdOfProjectors<Command, Event>(
  projectors: readonly PostgresProjector<Command, Event>[],
): ((command: Command) => string | undefined) | undefined {
  for (const projector of projectors) {
    const rider = (projector as Partial<ForwardIdsInAppend<Command>>).forwardIdInAppendOf;
    if (rider !== undefined) return rider;
  }
  return undefined;
}

/** A write refused because another leader has taken over since this store's epoch. */
export class EngineFencedError extends Error {
  override readonly name = "EngineFencedError";
}

/** What the store needs to write: the epoch its leadership was granted. */
export interface EngineFence {
  readonly epoch: bigint;
}

interface SnapshotRow extends SnapshotHeaderRow {
  state: string;
}

// The journal append, as CTEs: on its own (below) or as the first part of a batch's one statement
// (batch-statement.ts). The forward ids ride in the same statement (src/store/postgres/
// forwarded-commands.ts): both inserts of a data-modifying WITH always run in full.
const appendCtes = `journal_appended AS (
           INSERT INTO engine_journal (sequence, now_ms, command, events, epoch, prev_hash, hash)
           SELECT sequence, now_ms, command, events, $5, prev_hash, hash
           FROM unnest($1::bigint[], $2::bigint[], $3::text[], $4::text[], $6::text[], $7::text[])
             AS batch(sequence, now_ms, command, events, prev_hash, hash)
         )`;
const forwardIdsCtes = `journal_forwarded AS (
           INSERT INTO engine_forwarded_commands (forward_id, sequence, committed_at_ms)
           SELECT * FROM unnest($8::text[], $9::bigint[], $10::bigint[])
         )`;
/** Parameters of the append without forward ids ($1–$7). */
const appendParametersCount = 7;
// Named statements are prepared once per connection and reused. The two appends are the whole
// statement of every batch whose projectors write nothing in it (an engine node's: the read models
// follow the journal in steps): in PostgreSQL's default planning their plan is made once per
// connection, generically (an insert from arrays joins nothing, so its plan cannot go wrong as the
// tables grow), and so are the plans of the journal's guard trigger (issue #31, i31-pg2).
const appendStatement = {
  name: "predex-engine-append",
  text: `WITH ${appendCtes} SELECT 1`,
};
const appendWithForwardIdsStatement = {
  name: "predex-engine-append-forwarded",
  text: `WITH ${appendCtes}, ${forwardIdsCtes} SELECT 1`,
};
/** Which of the appends' parameters are arrays, of which type: they are sent in binary format. */
const appendArrayTypes = arrayParameterTypes(appendWithForwardIdsStatement.text);

/** The append alone as a named statement, its arrays in binary format (binary-arrays.ts). */
function appendAloneStatement(append: StatementPart): { name: string; text: string; values: unknown[] } {
  const statement =
    append.values.length === appendParametersCount ? appendStatement : appendWithForwardIdsStatement;
  return { ...statement, values: encodeArrayParameters(appendArrayTypes, append.values) };
}
const lastSequenceStatement = {
  name: "predex-engine-last-sequence",
  text: "SELECT coalesce(max(sequence), 0)::bigint AS sequence FROM engine_journal",
};
const journalPageStatement = {
  name: "predex-engine-journal-page",
  text: "SELECT sequence, now_ms, command, events, prev_hash, hash FROM engine_journal WHERE sequence > $1 ORDER BY sequence LIMIT $2",
};
const latestSnapshotStatement = {
  name: "predex-engine-latest-snapshot",
  text: "SELECT sequence, now_ms, state, hash, chain_hash FROM engine_snapshots ORDER BY sequence DESC LIMIT 1",
  query_timeout: snapshotStatementTimeoutMs,
};
const upsertSnapshotStatement = {
  name: "predex-engine-upsert-snapshot",
  query_timeout: snapshotStatementTimeoutMs,
  text: `INSERT INTO engine_snapshots (sequence, now_ms, state, hash, epoch, chain_hash) VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (sequence) DO UPDATE
           SET now_ms = excluded.now_ms, state = excluded.state, hash = excluded.hash, epoch = excluded.epoch,
               chain_hash = excluded.chain_hash`,
};
const firstSequenceStatement = {
  name: "predex-engine-first-sequence",
  text: "SELECT min(sequence)::bigint AS sequence FROM engine_journal",
};
const leaderEpochForShareStatement = {
  name: "predex-engine-leader-epoch-for-share",
  text: "SELECT epoch FROM engine_leader FOR SHARE",
};
const leaderEpochStatement = {
  name: "predex-engine-leader-epoch",
  text: "SELECT epoch FROM engine_leader",
};
const latestSnapshotSequenceStatement = {
  name: "predex-engine-latest-snapshot-sequence",
  text: "SELECT coalesce(max(sequence), 0)::bigint AS sequence FROM engine_snapshots",
};
const deleteJournalStatement = {
  name: "predex-engine-delete-journal",
  text: "DELETE FROM engine_journal WHERE sequence <= $1",
};
const pruneSnapshotsStatement = {
  name: "predex-engine-prune-snapshots",
  query_timeout: snapshotStatementTimeoutMs,
  text: `DELETE FROM engine_snapshots
         WHERE sequence NOT IN (SELECT sequence FROM engine_snapshots ORDER BY sequence DESC LIMIT $1)`,
};

interface HeldPipeline {
  readonly client: PostgresClient;
  /** Statements sent on it and not answered yet (and one being prepared). */
  inFlight: number;
  broken: boolean;
  readonly onError: () => void;
}

/**
 * node-postgres's pipeline mode (`pipeline`, read on every query): each query is written at once,
 * with its own Sync, instead of after the previous one's answer. Set on a pooled connection only
 * while this store holds it, and only between queries.
 */
function setPipelineMode(client: PostgresClient, on: boolean): void {
  (client as PostgresClient & { pipeline: boolean }).pipeline = on;
}

/** Maps the database's refusals to the errors the engine and its host understand. */
function translateWriteError(error: unknown): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : String(error);
  if (code === fencedSqlState) return new EngineFencedError(message, { cause: error });
  if (code === outOfOrderSqlState) return new Error(message, { cause: error });
  if (code === "23505" && (error as { table?: unknown }).table === "engine_journal") {
    return new Error(`Journal write out of order: a sequence is already written (${message})`, {
      cause: error,
    });
  }
  return error;
}

export class PostgresEngineStore<Command, Event> implements EngineStore<Command, Event, PostgresClient> {
  /** Every commit is a round trip to the server. */
  readonly commitsWaitOnIo = true;
  /** The batch PostgreSQL is running and the next one, sent behind it (commitBatch). */
  readonly commitsInFlightMax = 2;
  /** Resolves once the last commit asked for has been sent (or, in a transaction, done). */
  #sent: Promise<void> = Promise.resolve();
  /** The connection the one-statement commits are pipelined on, while any is in flight. */
  #pipeline: HeldPipeline | undefined;
  readonly #statementsInFlight = new Set<Promise<unknown>>();

  /**
   * Applies the engine's migrations and returns a store. Without a fence it is a reader (a standby
   * follows the journal with one); every write then fails.
   */
  static async open<Command, Event>(
    pool: PostgresPool,
    fence?: EngineFence,
  ): Promise<PostgresEngineStore<Command, Event>> {
    await applyPostgresMigrations(pool, "engine", engineMigrations);
    const planCacheMode = await pool.query<{ plan_cache_mode: string }>("SHOW plan_cache_mode");
    return new PostgresEngineStore(
      pool,
      fence,
      planCacheMode.rows[0]?.plan_cache_mode === "force_custom_plan",
    );
  }

  private constructor(
    readonly pool: PostgresPool,
    readonly fence: EngineFence | undefined,
    /**
     * Whether the batch statement is prepared (named): only on connections that plan every
     * execution (customPlansOnly in database.ts; every connection of a pool has the same startup
     * options), never where a cached generic plan could take over (batch-statement.ts).
     */
    readonly preparesBatchStatements: boolean,
  ) {}

  async lastSequence(): Promise<bigint> {
    const result = await this.pool.query<{ sequence: bigint }>(lastSequenceStatement);
    return result.rows[0]!.sequence;
  }

  readJournal(afterSequence: bigint): AsyncIterable<readonly JournalEntry<Command, Event>[]> {
    return journalPages<Command, Event>(afterSequence, async (after, limit) => {
      const result = await this.pool.query<JournalRow>({ ...journalPageStatement, values: [after, limit] });
      return result.rows;
    });
  }

  /**
   * Commits in call order, each atomically. The common batch's one statement is sent on a
   * connection held in pipeline mode while any is in flight, right behind the one PostgreSQL is
   * running, so the server goes from one batch to the next without waiting for this process (the
   * engine decides the next batch meanwhile: commitsInFlightMax). A projector's reads while it
   * prepares go the same way, so they run after the batches before have committed. A batch that
   * needs its transaction of statements waits for the pipeline to empty. A batch sent behind one that
   * failed cannot land: the journal's guard refuses a batch whose predecessor is missing (and the
   * engine stops on the first failure).
   */
  commitBatch(
    entries: readonly JournalEntry<Command, Event>[],
    projectors: readonly PostgresProjector<Command, Event>[],
  ): Promise<void> {
    const previous = this.#sent;
    let markSent!: () => void;
    this.#sent = new Promise((resolve) => {
      markSent = resolve;
    });
    return this.#commitAfter(previous, markSent, entries, projectors);
  }

  async #commitAfter(
    previous: Promise<void>,
    markSent: () => void,
    entries: readonly JournalEntry<Command, Event>[],
    projectors: readonly PostgresProjector<Command, Event>[],
  ): Promise<void> {
    try {
      const append = this.#appendPart(entries, projectors);
      await previous;
      const writer = writerOfAll<Command, Event>(projectors);
      if (writer?.writesInOneStatement(entries) === true) {
        await this.#commitInOneStatement(append, writer, entries, markSent);
        return;
      }
      try {
        await Promise.allSettled(this.#statementsInFlight);
        await inTransaction(this.pool, async (client) => {
          await client.query({
            ...(append.values.length === appendParametersCount
              ? appendStatement
              : appendWithForwardIdsStatement),
            values: [...append.values],
          });
          for (const projector of projectors) await projector(client, entries);
        });
      } finally {
        markSent();
      }
    } catch (error) {
      markSent();
      throw await this.#translateAppendError(error);
    }
  }

  /**
   * A batch the database refused, from a leader whose epoch is no longer the leader row's, is told
   * that it is fenced, whatever refused it first: PostgreSQL runs the statement's CTEs in no order
   * the guard controls, so a stale leader repeating what its successor wrote (a sequence, a forward
   * id, an order id) meets a primary key before the guard. Otherwise the refusal as it is.
   */
  async #translateAppendError(error: unknown): Promise<unknown> {
    const code = (error as { code?: unknown } | null)?.code;
    if (typeof code === "string" && code !== fencedSqlState && this.fence !== undefined) {
      const leaderEpoch = await this.pool
        .query<{ epoch: bigint }>(leaderEpochStatement)
        .then((result) => result.rows[0]?.epoch)
        .catch(() => undefined);
      if (leaderEpoch !== undefined && leaderEpoch !== this.fence.epoch) {
        return new EngineFencedError(
          `Fenced: journal append from epoch ${this.fence.epoch}, the leader epoch is ${leaderEpoch}`,
          { cause: error },
        );
      }
    }
    return translateWriteError(error);
  }

  /** The common batch: the append and every projector's writes as one statement (batch-statement.ts). */
  async #commitInOneStatement(
    append: StatementPart,
    writer: BatchStatementWriter<Command, Event>,
    entries: readonly JournalEntry<Command, Event>[],
    markSent: () => void,
  ): Promise<void> {
    const held = await this.#holdPipeline();
    held.inFlight += 1;
    let result: Promise<pg.QueryResult> | undefined;
    let prepared: PreparedPart | undefined;
    try {
      prepared = await writer.prepare(held.client, entries);
      const statement =
        prepared.part === undefined
          ? appendAloneStatement(append)
          : statementOf(joinParts([append, prepared.part]), { prepared: this.preparesBatchStatements });
      result = held.client.query(statement);
      this.#statementsInFlight.add(result);
    } finally {
      // The next batch may be sent now: behind this one on the same connection.
      markSent();
      if (result === undefined) this.#releasePipeline(held);
    }
    try {
      const row = (await result).rows[0] as Record<string, unknown>;
      prepared.committed((prepared.part?.selects ?? []).map((_, index) => row[`s${index}`]));
    } finally {
      this.#statementsInFlight.delete(result);
      this.#releasePipeline(held);
    }
  }

  /** The pipelined connection, checked out of the pool when the first statement in flight needs it. */
  async #holdPipeline(): Promise<HeldPipeline> {
    if (this.#pipeline !== undefined) return this.#pipeline;
    const client = await this.pool.connect();
    const held: HeldPipeline = {
      client,
      inFlight: 0,
      broken: false,
      // As in inTransaction: a connection ended under us fails the queries in flight, not the process.
      onError: () => {
        held.broken = true;
      },
    };
    client.on("error", held.onError);
    setPipelineMode(client, true);
    this.#pipeline = held;
    return held;
  }

  /** Gives the connection back to the pool once nothing is in flight on it. */
  #releasePipeline(held: HeldPipeline): void {
    held.inFlight -= 1;
    if (held.inFlight > 0 || this.#pipeline !== held) return;
    this.#pipeline = undefined;
    setPipelineMode(held.client, false);
    held.client.off("error", held.onError);
    held.client.release(held.broken);
  }

  /** The journal rows (and the forward ids of forwarded commands) as the append's CTEs. */
  #appendPart(
    entries: readonly JournalEntry<Command, Event>[],
    projectors: readonly PostgresProjector<Command, Event>[],
  ): StatementPart {
    const epoch = this.#writerEpoch();
    const sequences: bigint[] = [];
    const nowMs: number[] = [];
    const commands: string[] = [];
    const events: string[] = [];
    const prevHashes: (string | null)[] = [];
    const hashes: (string | null)[] = [];
    for (const entry of entries) {
      sequences.push(entry.sequence);
      nowMs.push(entry.nowMs);
      // The texts the engine encoded to hash the entry (journal-chain.ts), not encoded again.
      const texts = entryTexts(entry);
      commands.push(texts.command);
      events.push(texts.events);
      prevHashes.push(entry.prevHash ?? null);
      hashes.push(entry.hash ?? null);
    }
    const forwardIdOf = forwardIdOfProjectors(projectors);
    const forwardIds: string[] = [];
    const forwardSequences: bigint[] = [];
    const forwardNowMs: number[] = [];
    if (forwardIdOf !== undefined) {
      for (const entry of entries) {
        const id = forwardIdOf(entry.command);
        if (id === undefined) continue;
        forwardIds.push(id);
        forwardSequences.push(entry.sequence);
        forwardNowMs.push(entry.nowMs);
      }
    }
    const values = [sequences, nowMs, commands, events, epoch, prevHashes, hashes];
    if (forwardIds.length === 0) return { ctes: appendCtes, values };
    return {
      ctes: `${appendCtes}, ${forwardIdsCtes}`,
      values: [...values, forwardIds, forwardSequences, forwardNowMs],
    };
  }

  async loadLatestSnapshot(): Promise<StateSnapshot | undefined> {
    const result = await this.pool.query<SnapshotRow>(latestSnapshotStatement);
    const row = result.rows[0];
    return row === undefined ? undefined : snapshotOf(row, row.state);
  }

  async saveSnapshot(snapshot: StateSnapshot | PackedStateSnapshot): Promise<void> {
    const epoch = this.#writerEpoch();
    // A packed snapshot is unpacked on libuv's thread pool, and its UTF-8 bytes go to the server as
    // they are: node-postgres sends a Buffer parameter in binary format, which for a text column
    // is the text's bytes, so no 91 MB string is ever built on the event loop.
    const state: string | Buffer = isPackedSnapshot(snapshot)
      ? await unpackOffThread(snapshot.packedState)
      : snapshot.state;
    try {
      await inTransaction(
        this.pool,
        async (client) => {
          await client.query({
            ...upsertSnapshotStatement,
            values: [
              snapshot.sequence,
              snapshot.nowMs,
              state,
              snapshot.hash,
              epoch,
              snapshot.chainHash ?? null,
            ],
          });
          await client.query({ ...pruneSnapshotsStatement, values: [snapshotsKeptMax] });
        },
        { commitTimeoutMs: snapshotStatementTimeoutMs },
      );
    } catch (error) {
      throw translateWriteError(error);
    }
  }

  /**
   * Deletes the journal through `sequence` once the archiver has written it elsewhere (the leader
   * only, under its epoch: a fenced leader's archiver deletes nothing). Refuses to delete past the
   * latest snapshot or the last entry, so recovery never needs an archived entry.
   */
  async deleteJournalThrough(sequence: bigint): Promise<void> {
    const epoch = this.#writerEpoch();
    await inTransaction(this.pool, async (client) => {
      const leader = await client.query<{ epoch: bigint }>(leaderEpochForShareStatement);
      if (leader.rows[0]!.epoch !== epoch) {
        throw new EngineFencedError(
          `Fenced: journal delete from epoch ${epoch}, the leader epoch is ${leader.rows[0]!.epoch}`,
        );
      }
      const last = (await client.query<{ sequence: bigint }>(lastSequenceStatement)).rows[0]!.sequence;
      const snapshot = (await client.query<{ sequence: bigint }>(latestSnapshotSequenceStatement)).rows[0]!
        .sequence;
      assertJournalDeletable({ sequence, lastSequence: last, snapshotSequence: snapshot });
      await client.query({ ...deleteJournalStatement, values: [sequence] });
    });
  }

  async firstSequence(): Promise<bigint> {
    const first = (await this.pool.query<{ sequence: bigint | null }>(firstSequenceStatement)).rows[0]!
      .sequence;
    return first ?? (await this.lastSequence()) + 1n;
  }

  #writerEpoch(): bigint {
    if (this.fence === undefined)
      throw new Error("This engine store is a reader: it holds no leadership epoch");
    return this.fence.epoch;
  }
}
