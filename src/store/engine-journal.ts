// The engine's journal and snapshots as rows of a SQL database, written once for the SQLite and
// PostgreSQL engine stores (src/store/sqlite/engine-store.ts, src/store/postgres/engine-store.ts):
// a journal row as an entry, an entry as the values of its row (the texts the engine encoded to
// hash it, never encoded again), the journal read a page at a time, the checks a batch and a
// journal delete must pass with their errors, and a snapshot row's header. The in-memory store
// (src/store/memory/engine-store.ts), the reference semantics, checks a batch with the same rule.
//
// What each database does its own way stays in its adapter, named so: the statements themselves
// (the schemas differ: PostgreSQL's rows carry the leader's fencing epoch and its guard trigger
// checks the sequence; SQLite keeps a snapshot in chunk rows behind a pointer row), SQLite's commit
// at synchronous=NORMAL made durable by a WAL sync on the thread pool and its snapshot written a
// step per turn, PostgreSQL's batch statement, pipelining, fencing and column arrays.

import { decodeJournalRow, entryTexts } from "../engine/journal-chain.js";
import type { JournalEntry, StateSnapshot } from "../engine/store.js";
import type { IntegerColumn } from "./sql.js";

/** Rows fetched per page of readJournal, so recovery never loads the whole journal at once. */
export const journalPageEntriesMax = 1024;
/** Snapshots kept; the older ones are deleted when a new one is written. */
export const snapshotsKeptMax = 2;

/** A journal row as either driver hands it back (sequences as bigint on both). */
export interface JournalRow {
  readonly sequence: bigint;
  readonly now_ms: IntegerColumn;
  readonly command: string;
  readonly events: string;
  readonly prev_hash: string | null;
  readonly hash: string | null;
}

/** A stored row as the entry it was written from; its texts are decoded by the journal's codec. */
export function journalEntryOf<Command, Event>(row: JournalRow): JournalEntry<Command, Event> {
  return decodeJournalRow<Command, Event>({
    sequence: row.sequence,
    nowMs: Number(row.now_ms),
    command: row.command,
    events: row.events,
    prevHash: row.prev_hash,
    hash: row.hash,
  });
}

/** What an entry's journal row holds; the hashes are null on an entry written before the chain. */
export interface JournalRowValues {
  readonly sequence: bigint;
  readonly nowMs: number;
  readonly command: string;
  readonly events: string;
  readonly prevHash: string | null;
  readonly hash: string | null;
}

export function journalRowValuesOf(entry: JournalEntry<unknown, unknown>): JournalRowValues {
  // The texts the engine encoded to hash the entry (journal-chain.ts), not encoded again.
  const texts = entryTexts(entry);
  return {
    sequence: entry.sequence,
    nowMs: entry.nowMs,
    command: texts.command,
    events: texts.events,
    prevHash: entry.prevHash ?? null,
    hash: entry.hash ?? null,
  };
}

/** One page of the journal: at most `limit` rows with sequence > `after`, ascending. */
export type JournalPageReader = (
  after: bigint,
  limit: number,
) => readonly JournalRow[] | Promise<readonly JournalRow[]>;

/**
 * The journal after `afterSequence`, a page per query (keyset pagination): no cursor or connection
 * is held while the caller awaits a page, and a short page is the last.
 */
export async function* journalPages<Command, Event>(
  afterSequence: bigint,
  readPage: JournalPageReader,
): AsyncGenerator<readonly JournalEntry<Command, Event>[]> {
  let after = afterSequence;
  for (;;) {
    const rows = await readPage(after, journalPageEntriesMax);
    if (rows.length === 0) return;
    yield rows.map((row) => journalEntryOf<Command, Event>(row));
    after = rows.at(-1)!.sequence;
    if (rows.length < journalPageEntriesMax) return;
  }
}

/** Refuses a batch that does not continue a journal ending at `lastSequence` exactly. */
export function assertContinuesJournal(
  lastSequence: bigint,
  entries: readonly { readonly sequence: bigint }[],
): void {
  let expected = lastSequence + 1n;
  for (const entry of entries) {
    if (entry.sequence !== expected) {
      throw new Error(`Journal write out of order: expected sequence ${expected}, got ${entry.sequence}`);
    }
    expected += 1n;
  }
}

/**
 * Refuses to delete the journal through `sequence` past the latest snapshot or up to the last
 * entry (deleteJournalThrough): recovery starts from the snapshot and replays what follows it, and
 * the last entry stays so that the journal never looks empty.
 */
export function assertJournalDeletable(through: {
  readonly sequence: bigint;
  readonly lastSequence: bigint;
  readonly snapshotSequence: bigint;
}): void {
  const { sequence, lastSequence, snapshotSequence } = through;
  if (sequence >= lastSequence || sequence > snapshotSequence) {
    throw new Error(
      `Journal entries through ${sequence} are still needed: the journal ends at ${lastSequence}, the latest snapshot is at ${snapshotSequence}`,
    );
  }
}

/** The columns of a snapshot row both stores keep beside its state. */
export interface SnapshotHeaderRow {
  readonly sequence: bigint;
  readonly now_ms: IntegerColumn;
  readonly hash: string;
  readonly chain_hash: string | null;
}

/** A snapshot row's header with its state's text. */
export function snapshotOf(row: SnapshotHeaderRow, state: string): StateSnapshot {
  return {
    sequence: row.sequence,
    nowMs: Number(row.now_ms),
    state,
    hash: row.hash,
    // A snapshot written before the chain has none.
    ...(row.chain_hash === null ? {} : { chainHash: row.chain_hash }),
  };
}
