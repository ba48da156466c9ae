// The journal archive in PostgreSQL itself (engine migration 4, engine_journal_archive): the same
// segments as the embedded deployment's directory (src/engine/journal-archive.ts: brotli JSON
// lines with each entry's chain hashes, sha256-checked on every read), one row each, so no engine
// node depends on another's disk: whichever node leads archives, `predex journal verify` replays
// from sequence 1 from any machine, and a copy of the database (pg_basebackup, pg_dump) carries its
// whole history with it.
//
// One step is one transaction on one connection: under a transaction-scoped advisory lock (so
// archivers on several nodes, the leader's minute and an operator's request, take turns), it reads
// where the archive ends and what the journal and the latest snapshot hold, reads the next entries
// (checking their chain), writes the segment row and deletes those journal rows. Nothing is ever
// both archived and live, or neither, whatever fails; and since every bound is read in the same
// transaction from the database itself, any node may run a step, leader or not: it never deletes
// past the latest snapshot or the journal's last entry.
//
// A journal that starts after the archive's end (its beginning was archived into a directory by an
// earlier build) is refused with the remedy: `predex journal import-archive DIR` copies such a
// directory's segments into the table (importDirectoryArchive), each checked first.

import { JournalCorruptionError } from "../../engine/errors.js";
import {
  type ArchiveManifest,
  type ArchiveSegment,
  type ArchiveStepResult,
  archiveHistory,
  DirectoryJournalArchive,
  decodeSegment,
  encodeSegment,
  type JournalArchive,
  journalArchiveSegmentEntriesMax,
  minimum,
  readSegments,
} from "../../engine/journal-archive.js";
import { nextChainHash } from "../../engine/journal-chain.js";
import type { EngineStore, JournalEntry, JournalSource } from "../../engine/store.js";
import { type JournalRow, journalEntryOf } from "../engine-journal.js";
import { inTransaction, type PostgresClient, type PostgresPool } from "./database.js";

export const postgresJournalArchiveLocation = "postgresql:engine_journal_archive";

/** pg_advisory_xact_lock key of archive steps and imports ("predex archive", arbitrary but fixed). */
const archiveLockKey = 7_357_201_944_011n;

interface SegmentRow {
  first_sequence: bigint;
  last_sequence: bigint;
  entries: number;
  first_now_ms: bigint;
  last_now_ms: bigint;
  raw_bytes: bigint;
  bytes: bigint;
  sha256: string;
}

interface HeadRow {
  archived_through: bigint;
  archived_hash: string | null;
  first_live: bigint | null;
  last_live: bigint;
  snapshot: bigint;
}

const manifestStatement = {
  name: "predex-archive-manifest",
  text: `SELECT first_sequence, last_sequence, entries, first_now_ms, last_now_ms, raw_bytes, bytes, sha256
         FROM engine_journal_archive ORDER BY first_sequence`,
};
const segmentBytesStatement = {
  name: "predex-archive-segment-bytes",
  text: "SELECT segment FROM engine_journal_archive WHERE first_sequence = $1",
};
const headStatement = {
  name: "predex-archive-head",
  text: `SELECT (SELECT coalesce(max(last_sequence), 0) FROM engine_journal_archive)::bigint AS archived_through,
                (SELECT last_hash FROM engine_journal_archive ORDER BY first_sequence DESC LIMIT 1) AS archived_hash,
                (SELECT min(sequence) FROM engine_journal)::bigint AS first_live,
                (SELECT coalesce(max(sequence), 0) FROM engine_journal)::bigint AS last_live,
                (SELECT coalesce(max(sequence), 0) FROM engine_snapshots)::bigint AS snapshot`,
};
const entriesStatement = {
  name: "predex-archive-entries",
  text: `SELECT sequence, now_ms, command, events, prev_hash, hash FROM engine_journal
         WHERE sequence > $1 AND sequence <= $2 ORDER BY sequence`,
};
const insertSegmentStatement = {
  name: "predex-archive-insert",
  text: `INSERT INTO engine_journal_archive
           (first_sequence, last_sequence, entries, first_now_ms, last_now_ms, raw_bytes, bytes, sha256, last_hash, segment)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
};
const latestSnapshotStatement = {
  name: "predex-archive-latest-snapshot",
  text: "SELECT coalesce(max(sequence), 0)::bigint AS sequence FROM engine_snapshots",
};
const deleteArchivedStatement = {
  name: "predex-archive-delete-journal",
  text: "DELETE FROM engine_journal WHERE sequence <= $1",
};

/** The latest snapshot's sequence (0 with none): the archive's limit, read from the database. */
export async function latestSnapshotSequence(pool: PostgresPool): Promise<bigint> {
  return (await pool.query<{ sequence: bigint }>(latestSnapshotStatement)).rows[0]!.sequence;
}

function segmentName(first: bigint | string, last: bigint | string): string {
  return `segment ${first}..${last}`;
}

function segmentOf(row: SegmentRow): ArchiveSegment {
  return {
    file: segmentName(row.first_sequence, row.last_sequence),
    firstSequence: String(row.first_sequence),
    lastSequence: String(row.last_sequence),
    entries: row.entries,
    firstNowMs: Number(row.first_now_ms),
    lastNowMs: Number(row.last_now_ms),
    rawBytes: Number(row.raw_bytes),
    bytes: Number(row.bytes),
    sha256: row.sha256,
  };
}

export class PostgresJournalArchive<Command, Event> implements JournalArchive<Command, Event> {
  readonly location = postgresJournalArchiveLocation;

  /** The engine's migrations (4 makes the table) must have run: PostgresEngineStore.open applies them. */
  constructor(
    readonly pool: PostgresPool,
    readonly options: { readonly segmentEntriesMax?: number } = {},
  ) {}

  async readManifest(): Promise<ArchiveManifest> {
    const rows = (await this.pool.query<SegmentRow>(manifestStatement)).rows;
    const segments = rows.map(segmentOf);
    return { version: 1, archivedThrough: segments.at(-1)?.lastSequence ?? "0", segments };
  }

  /**
   * One step in one transaction (see the file's comment). The store is not read: the step reads
   * and deletes the journal of this archive's own database.
   */
  archiveStep(
    _store: EngineStore<Command, Event, unknown>,
    throughSequence: bigint,
  ): Promise<ArchiveStepResult> {
    return inTransaction(this.pool, async (client) => {
      await client.query("SELECT pg_advisory_xact_lock($1)", [archiveLockKey]);
      const head = (await client.query<HeadRow>(headStatement)).rows[0]!;
      const { archived_through: archivedThrough, last_live: lastLive, snapshot } = head;
      if (head.first_live !== null && head.first_live <= archivedThrough) {
        await this.#deleteLeftovers(client, head);
      } else if (head.first_live !== null && head.first_live > archivedThrough + 1n) {
        throw new JournalCorruptionError(
          `The journal starts at ${head.first_live} and the archive ends at ${archivedThrough}: entries ${archivedThrough + 1n}..${head.first_live - 1n} are in neither. An earlier build archived them into a directory (PREDEX_JOURNAL_ARCHIVE_DIR): import it with \`predex journal import-archive DIR\`.`,
        );
      }
      // The last entry always stays, so the journal never looks empty; nothing after the latest
      // snapshot goes, so recovery never needs the archive.
      const target = minimum(minimum(throughSequence, snapshot), lastLive - 1n);
      const limit = BigInt(this.options.segmentEntriesMax ?? journalArchiveSegmentEntriesMax);
      const upTo = minimum(target, archivedThrough + limit);
      if (upTo <= archivedThrough) return { archivedEntries: 0, archivedThrough, segment: undefined };

      const rows = (await client.query<JournalRow>({ ...entriesStatement, values: [archivedThrough, upTo] }))
        .rows;
      const entries = rows.map((row) => journalEntryOf<Command, Event>(row));
      checkContinues(entries, archivedThrough, upTo, head.archived_hash);
      const { segment: encoded, compressed } = await encodeSegment(entries);
      const segment: ArchiveSegment = {
        ...encoded,
        file: segmentName(encoded.firstSequence, encoded.lastSequence),
      };
      await client.query({
        ...insertSegmentStatement,
        values: [
          segment.firstSequence,
          segment.lastSequence,
          segment.entries,
          segment.firstNowMs,
          segment.lastNowMs,
          segment.rawBytes,
          segment.bytes,
          segment.sha256,
          entries.at(-1)!.hash ?? null,
          compressed,
        ],
      });
      await client.query({ ...deleteArchivedStatement, values: [upTo] });
      return { archivedEntries: entries.length, archivedThrough: upTo, segment };
    });
  }

  readArchived(afterSequence: bigint): AsyncIterable<readonly JournalEntry<Command, Event>[]> {
    return readSegments(this, afterSequence, async (segment) => {
      const row = (
        await this.pool.query<{ segment: Buffer }>({
          ...segmentBytesStatement,
          values: [segment.firstSequence],
        })
      ).rows[0];
      if (row === undefined) throw new JournalCorruptionError(`Journal archive ${segment.file} is gone`);
      return row.segment;
    });
  }

  history(store: JournalSource<Command, Event>): JournalSource<Command, Event> {
    return archiveHistory(this, store);
  }

  /**
   * Journal rows that are archived already (a directory archive imported after its build wrote the
   * segment but before it deleted the rows): deleted, once their last one is the archive's last.
   */
  async #deleteLeftovers(client: PostgresClient, head: HeadRow): Promise<void> {
    const through = head.archived_through;
    if (through >= head.last_live || through > head.snapshot) {
      throw new JournalCorruptionError(
        `The archive ends at ${through}, past what the journal may lose (it ends at ${head.last_live}, the latest snapshot is at ${head.snapshot})`,
      );
    }
    const row = (await client.query<JournalRow>({ ...entriesStatement, values: [through - 1n, through] }))
      .rows[0];
    if (
      row !== undefined &&
      row.hash !== null &&
      head.archived_hash !== null &&
      row.hash !== head.archived_hash
    ) {
      throw new JournalCorruptionError(
        `The journal and the archive hold different entries at sequence ${through}`,
      );
    }
    await client.query({ ...deleteArchivedStatement, values: [through] });
  }
}

/** The entries continue the archive exactly, and the chain from its last hash. */
function checkContinues(
  entries: readonly JournalEntry<unknown, unknown>[],
  archivedThrough: bigint,
  upTo: bigint,
  archivedHash: string | null,
): void {
  let expected = archivedThrough + 1n;
  let held = archivedHash;
  for (const entry of entries) {
    if (entry.sequence !== expected) {
      throw new JournalCorruptionError(
        `Journal entry ${expected} is neither archived nor in the journal (found ${entry.sequence})`,
      );
    }
    held = nextChainHash(held, entry);
    expected += 1n;
  }
  if (expected !== upTo + 1n) throw new JournalCorruptionError(`Journal ends before sequence ${upTo}`);
}

export interface ImportedArchive {
  /** Segments copied into the table. */
  readonly imported: number;
  /** Segments the table already held (the same bytes). */
  readonly alreadyThere: number;
  readonly archivedThrough: bigint;
}

/**
 * Copies a directory archive (an earlier build's PREDEX_JOURNAL_ARCHIVE_DIR) into the table, each
 * segment checked (sha256, order, count) and kept byte for byte. A segment the table holds already
 * must be the same bytes; one that does not continue the table's run is refused by its guard.
 */
export async function importDirectoryArchive(
  pool: PostgresPool,
  directory: string,
): Promise<ImportedArchive> {
  const source = new DirectoryJournalArchive<unknown, unknown>(directory);
  const manifest = await source.readManifest();
  const target = new PostgresJournalArchive<unknown, unknown>(pool);
  const present = new Map(
    (await target.readManifest()).segments.map((segment) => [segment.firstSequence, segment]),
  );
  let imported = 0;
  let alreadyThere = 0;
  for (const segment of manifest.segments) {
    const existing = present.get(segment.firstSequence);
    if (existing !== undefined) {
      if (existing.sha256 !== segment.sha256 || existing.lastSequence !== segment.lastSequence) {
        throw new JournalCorruptionError(
          `The database's archive holds another ${existing.file} than ${directory} (${segment.file})`,
        );
      }
      alreadyThere += 1;
      continue;
    }
    const bytes = await source.segmentBytes(segment);
    const entries = await decodeSegment(segment, bytes);
    await inTransaction(pool, async (client) => {
      await client.query("SELECT pg_advisory_xact_lock($1)", [archiveLockKey]);
      await client.query({
        ...insertSegmentStatement,
        values: [
          segment.firstSequence,
          segment.lastSequence,
          segment.entries,
          segment.firstNowMs,
          segment.lastNowMs,
          segment.rawBytes,
          segment.bytes,
          segment.sha256,
          entries.at(-1)?.hash ?? null,
          bytes,
        ],
      });
    });
    imported += 1;
  }
  return { imported, alreadyThere, archivedThrough: BigInt((await target.readManifest()).archivedThrough) };
}
