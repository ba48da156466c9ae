// The journal archive: entries older than the latest snapshot leave the live journal for
// compressed, checksummed segments, so the journal (80% of what the platform writes) stops growing,
// and the whole history stays replayable from sequence 1 for audit. A segment is the journal
// codec's JSON lines, one entry a line with its chain hashes (journal-chain.ts), brotli-compressed,
// with its sha256 checked before every read.
//
// Two places keep segments (JournalArchive): a directory (DirectoryJournalArchive, below: the
// embedded SQLite deployment, one process) and PostgreSQL itself (src/store/postgres/
// journal-archive.ts: every engine node and any restore of the database reach it, and a segment is
// written in the same transaction as the journal rows it replaces are deleted).
//
// The directory's layout: `<directory>/manifest.json` lists the segments in order; each segment
// `journal-<first>-<last>.jsonl.br` is brotli-compressed JSON lines, one entry a line (the journal
// codec's text), and the manifest holds its sha256, checked before every read.
//
// One archive step is crash-safe by its order of writes: the segment file is written, fsynced and
// renamed into place, then the manifest the same way (the directory fsynced after each rename), and
// only then are the rows deleted from the journal. A crash before the manifest leaves an orphan
// file (removed by the next step); a crash after it leaves rows that are archived and still in the
// journal (deleted by the next step). Recovery never reads the archive: it starts from the latest
// snapshot, and the store refuses to delete an entry after it.

import { createHash } from "node:crypto";
import { mkdir, open, readdir, readFile, rename, rm } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { brotliCompress, brotliDecompress, constants as zlibConstants } from "node:zlib";
import { JournalCorruptionError } from "./errors.js";
import { entryTextFormat, markTextFormat } from "./journal-chain.js";
import { decodePlainData, encodePlainData } from "./journal-codec.js";
import type { EngineStore, JournalEntry, JournalSource } from "./store.js";

const compress = promisify(brotliCompress);
const decompress = promisify(brotliDecompress);

/** Entries per segment, so one step's work (read, encode, compress, delete) stays bounded. */
export const journalArchiveSegmentEntriesMax = 10_000;
/** Brotli quality: 5 compresses journal JSON ~10x at a small fraction of quality 11's time. */
export const journalArchiveBrotliQuality = 5;
/** Entries handed out per step when reading a segment back. */
const archiveReadBatchEntriesMax = 1024;
const manifestFileName = "manifest.json";
const segmentFilePattern = /^journal-\d{20}-\d{20}\.jsonl\.br$/;

export interface ArchiveSegment {
  readonly file: string;
  /** Decimal strings: sequences are bigint. */
  readonly firstSequence: string;
  readonly lastSequence: string;
  readonly entries: number;
  readonly firstNowMs: number;
  readonly lastNowMs: number;
  /** Bytes of the JSON lines before compression, and of the file. */
  readonly rawBytes: number;
  readonly bytes: number;
  /** sha256 of the file, hex. */
  readonly sha256: string;
}

export interface ArchiveManifest {
  readonly version: 1;
  /** The last archived sequence ("0" when nothing is archived). */
  readonly archivedThrough: string;
  readonly segments: readonly ArchiveSegment[];
}

export interface ArchiveStepResult {
  /** Entries written to a new segment by this step (0 when there was nothing to archive). */
  readonly archivedEntries: number;
  readonly archivedThrough: bigint;
  readonly segment: ArchiveSegment | undefined;
}

/** Where archived segments are kept, and the whole history read back from sequence 1. */
export interface JournalArchive<Command, Event> {
  /** Where it lives, for the operator: a directory, or the database's table. */
  readonly location: string;
  /** The segments in order, and the last archived sequence. */
  readManifest(): Promise<ArchiveManifest>;
  /**
   * Moves the next entries through `throughSequence` (at most a segment's worth, never past the
   * latest snapshot or the journal's last entry) out of the live journal into a new segment. Call
   * again until archivedEntries is 0 to catch up.
   */
  archiveStep(
    store: EngineStore<Command, Event, unknown>,
    throughSequence: bigint,
  ): Promise<ArchiveStepResult>;
  /** Archived entries with sequence > afterSequence, in order; each segment's checksum is verified first. */
  readArchived(afterSequence: bigint): AsyncIterable<readonly JournalEntry<Command, Event>[]>;
  /** The archive, then the store's live journal: the whole history from sequence 1. */
  history(store: JournalSource<Command, Event>): JournalSource<Command, Event>;
}

const emptyManifest: ArchiveManifest = { version: 1, archivedThrough: "0", segments: [] };

/** The archive in a directory: the embedded deployment's (one process, its own disk). */
export class DirectoryJournalArchive<Command, Event> implements JournalArchive<Command, Event> {
  constructor(
    readonly directory: string,
    readonly options: {
      readonly segmentEntriesMax?: number;
      /** Called before each file write (a segment, the manifest); the crash simulation throws here. */
      readonly beforeFileWrite?: (name: string) => void;
    } = {},
  ) {}

  get location(): string {
    return this.directory;
  }

  async readManifest(): Promise<ArchiveManifest> {
    let text: string;
    try {
      text = await readFile(join(this.directory, manifestFileName), "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return emptyManifest;
      throw error;
    }
    const manifest = JSON.parse(text) as ArchiveManifest;
    if (manifest.version !== 1)
      throw new JournalCorruptionError(`Unknown journal archive version ${manifest.version}`);
    return manifest;
  }

  /**
   * Moves the next entries through `throughSequence` (at most a segment's worth) from the store's
   * journal to a new segment. `throughSequence` is the latest snapshot's sequence or less; the store
   * refuses anything later. Call again until archivedEntries is 0 to catch up.
   */
  async archiveStep(
    store: EngineStore<Command, Event, unknown>,
    throughSequence: bigint,
  ): Promise<ArchiveStepResult> {
    if (store.deleteJournalThrough === undefined || store.firstSequence === undefined) {
      throw new Error("This store cannot archive its journal");
    }
    await mkdir(this.directory, { recursive: true });
    const manifest = await this.readManifest();
    const archivedThrough = BigInt(manifest.archivedThrough);
    // A crash after the last manifest write but before its delete left archived rows behind.
    if ((await store.firstSequence()) <= archivedThrough) await store.deleteJournalThrough(archivedThrough);
    await this.#removeOrphans(manifest);
    const lastSequence = await store.lastSequence();
    // The last entry always stays, so the journal never looks empty (and lastSequence never resets).
    const target = minimum(throughSequence, lastSequence - 1n);
    const limit = BigInt(this.options.segmentEntriesMax ?? journalArchiveSegmentEntriesMax);
    const upTo = minimum(target, archivedThrough + limit);
    if (upTo <= archivedThrough) return { archivedEntries: 0, archivedThrough, segment: undefined };

    const entries: JournalEntry<Command, Event>[] = [];
    let expected = archivedThrough + 1n;
    read: for await (const batch of store.readJournal(archivedThrough)) {
      for (const entry of batch) {
        if (entry.sequence > upTo) break read;
        if (entry.sequence !== expected) {
          throw new JournalCorruptionError(
            `Journal entry ${expected} is neither archived nor in the journal (found ${entry.sequence})`,
          );
        }
        entries.push(entry);
        expected += 1n;
      }
    }
    if (expected !== upTo + 1n) throw new JournalCorruptionError(`Journal ends before sequence ${upTo}`);
    const { segment: encoded, compressed } = await encodeSegment(entries);
    const segment: ArchiveSegment = { ...encoded, file: segmentFileName(archivedThrough + 1n, upTo) };
    this.options.beforeFileWrite?.(segment.file);
    await writeDurably(this.directory, segment.file, compressed);
    const next: ArchiveManifest = {
      version: 1,
      archivedThrough: String(upTo),
      segments: [...manifest.segments, segment],
    };
    this.options.beforeFileWrite?.(manifestFileName);
    await writeDurably(this.directory, manifestFileName, Buffer.from(`${JSON.stringify(next, null, 1)}\n`));
    await store.deleteJournalThrough(upTo);
    return { archivedEntries: entries.length, archivedThrough: upTo, segment };
  }

  readArchived(afterSequence: bigint): AsyncIterable<readonly JournalEntry<Command, Event>[]> {
    return readSegments(this, afterSequence, (segment) => this.segmentBytes(segment));
  }

  /** A segment file's bytes as written (whoever decodes them checks them: decodeSegment). */
  segmentBytes(segment: ArchiveSegment): Promise<Buffer> {
    return readFile(join(this.directory, segment.file));
  }

  history(store: JournalSource<Command, Event>): JournalSource<Command, Event> {
    return archiveHistory(this, store);
  }

  /** Segment files the manifest does not list (a step that crashed before its manifest) and temporary files. */
  async #removeOrphans(manifest: ArchiveManifest): Promise<void> {
    const listed = new Set(manifest.segments.map((segment) => segment.file));
    for (const name of await readdir(this.directory)) {
      if ((segmentFilePattern.test(name) && !listed.has(name)) || name.endsWith(".partial")) {
        await rm(join(this.directory, name), { force: true });
      }
    }
  }
}

/** A segment of these entries (contiguous, in order): its description (no name yet) and its bytes. */
export async function encodeSegment(
  entries: readonly JournalEntry<unknown, unknown>[],
): Promise<{ segment: Omit<ArchiveSegment, "file">; compressed: Buffer }> {
  const first = entries[0];
  const last = entries.at(-1);
  if (first === undefined || last === undefined) throw new Error("A journal archive segment holds entries");
  const raw = Buffer.from(`${entries.map(encodeLine).join("\n")}\n`, "utf8");
  // zlib's asynchronous calls compress on libuv's thread pool, off the event loop.
  const compressed = await compress(raw, {
    params: {
      [zlibConstants.BROTLI_PARAM_QUALITY]: journalArchiveBrotliQuality,
      [zlibConstants.BROTLI_PARAM_SIZE_HINT]: raw.length,
    },
  });
  return {
    segment: {
      firstSequence: String(first.sequence),
      lastSequence: String(last.sequence),
      entries: entries.length,
      firstNowMs: first.nowMs,
      lastNowMs: last.nowMs,
      rawBytes: raw.length,
      bytes: compressed.length,
      sha256: sha256(compressed),
    },
    compressed,
  };
}

/** A segment's entries from its bytes, checked against its sha256, its range and its count. */
export async function decodeSegment<Command, Event>(
  segment: ArchiveSegment,
  compressed: Buffer,
): Promise<JournalEntry<Command, Event>[]> {
  if (sha256(compressed) !== segment.sha256) {
    throw new JournalCorruptionError(`Journal archive segment ${segment.file} does not match its sha256`);
  }
  const text = (await decompress(compressed)).toString("utf8");
  const entries = text
    .split("\n")
    .filter((line) => line.length > 0)
    .map((line) => decodeLine<Command, Event>(line));
  let expected = BigInt(segment.firstSequence);
  for (const entry of entries) {
    if (entry.sequence !== expected) {
      throw new JournalCorruptionError(
        `Journal archive segment ${segment.file} is out of order at ${expected}`,
      );
    }
    expected += 1n;
  }
  if (expected !== BigInt(segment.lastSequence) + 1n || entries.length !== segment.entries) {
    throw new JournalCorruptionError(`Journal archive segment ${segment.file} is incomplete`);
  }
  return entries;
}

/**
 * Every archived entry after `afterSequence`, segment by segment in the manifest's order (which must
 * run from 1 without a gap), each segment's bytes fetched only when needed and checked.
 */
export async function* readSegments<Command, Event>(
  archive: Pick<JournalArchive<Command, Event>, "readManifest">,
  afterSequence: bigint,
  bytesOf: (segment: ArchiveSegment) => Promise<Buffer>,
): AsyncIterable<readonly JournalEntry<Command, Event>[]> {
  const manifest = await archive.readManifest();
  let expected = 1n;
  for (const segment of manifest.segments) {
    if (BigInt(segment.firstSequence) !== expected) {
      throw new JournalCorruptionError(`Journal archive gap before segment ${segment.file}`);
    }
    expected = BigInt(segment.lastSequence) + 1n;
    if (BigInt(segment.lastSequence) <= afterSequence) continue;
    const entries = await decodeSegment<Command, Event>(segment, await bytesOf(segment));
    for (let index = 0; index < entries.length; index += archiveReadBatchEntriesMax) {
      const batch = entries
        .slice(index, index + archiveReadBatchEntriesMax)
        .filter((entry) => entry.sequence > afterSequence);
      if (batch.length > 0) yield batch;
    }
  }
}

/** The archive, then the store's live journal: the whole history from sequence 1. */
export function archiveHistory<Command, Event>(
  archive: Pick<JournalArchive<Command, Event>, "readManifest" | "readArchived">,
  store: JournalSource<Command, Event>,
): JournalSource<Command, Event> {
  return {
    async *readJournal(afterSequence) {
      const manifest = await archive.readManifest();
      const archivedThrough = BigInt(manifest.archivedThrough);
      if (afterSequence < archivedThrough) yield* archive.readArchived(afterSequence);
      yield* store.readJournal(afterSequence > archivedThrough ? afterSequence : archivedThrough);
    },
  };
}

export function minimum(a: bigint, b: bigint): bigint {
  return a < b ? a : b;
}

export function sha256(data: Buffer): string {
  return createHash("sha256").update(data).digest("hex");
}

function segmentFileName(first: bigint, last: bigint): string {
  return `journal-${String(first).padStart(20, "0")}-${String(last).padStart(20, "0")}.jsonl.br`;
}

/**
 * One entry a line; its chain hashes too (journal-chain.ts), so the archive replays as a chain, and
 * the text form its hash covers when it is version 2's (`textFormat: 2`; absent: version 1, as every
 * line archived before version 2 existed).
 */
function encodeLine(entry: JournalEntry<unknown, unknown>): string {
  return encodePlainData({
    sequence: String(entry.sequence),
    nowMs: entry.nowMs,
    command: entry.command,
    events: entry.events,
    ...(entryTextFormat(entry) === 2 ? { textFormat: 2 } : {}),
    ...(entry.hash === undefined ? {} : { prevHash: entry.prevHash ?? null, hash: entry.hash }),
  });
}

function decodeLine<Command, Event>(line: string): JournalEntry<Command, Event> {
  const decoded = decodePlainData<{
    sequence: string;
    nowMs: number;
    command: Command;
    events: Event[];
    prevHash?: string | null;
    hash?: string;
    textFormat?: number;
  }>(line);
  const entry = {
    sequence: BigInt(decoded.sequence),
    nowMs: decoded.nowMs,
    command: decoded.command,
    events: decoded.events,
  };
  const chained: JournalEntry<Command, Event> =
    decoded.hash === undefined ? entry : { ...entry, prevHash: decoded.prevHash ?? null, hash: decoded.hash };
  return markTextFormat(chained, decoded.textFormat === 2 ? 2 : 1);
}

/** Writes `name` so that after a crash it is either absent or complete: temporary file, fsync, rename, fsync of the directory. */
async function writeDurably(directory: string, name: string, data: Buffer): Promise<void> {
  const partial = join(directory, `${name}.partial`);
  const file = await open(partial, "w", 0o600);
  try {
    await file.writeFile(data);
    await file.sync();
  } finally {
    await file.close();
  }
  await rename(partial, join(directory, name));
  const folder = await open(directory, "r");
  try {
    await folder.sync();
  } finally {
    await folder.close();
  }
}
