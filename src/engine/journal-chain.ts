// The journal as a hash chain. Each entry carries the chain hash of the entry before it (`prevHash`)
// and its own (`hash`): sha256 over a version tag, `prevHash`, and the entry's canonical encoding
// (its sequence, its commit time, and the journal codec's text of its command and of its events,
// the very text every store keeps). A node that follows the journal holds the hash of the last
// entry it folded in; an entry whose `prevHash` is not that hash belongs to another history (a
// database promoted after an asynchronous failover lost entries this node had, the other side of a
// split brain): a fork. Any edit, drop or reorder of an entry changes every hash after it.
//
// The engine computes the hashes when it journals (chainEntry); snapshots record the chain hash at
// their sequence (StateSnapshot.chainHash), so a copy started from a snapshot continues the chain;
// archived segments keep both hashes of every entry.
//
// Journals written before the chain: their entries carry no hash. Such an entry is accepted and
// leaves the copy holding "no hash" (null); the first entry written after it by this build starts
// the chain with `prevHash` null, and so does sequence 1. A `prevHash` of null is therefore accepted
// whatever the copy holds (it starts the chain over); a copy holding no hash accepts any `prevHash`
// (it cannot tell) and takes the entry's hash from there. Forks are caught once both sides hash.
//
// Chain versions: version 1 entries hold journal-codec.ts's JSON and hash with the tag
// "predex-journal-chain/1"; version 2 entries (every entry written from issue #31 on) hold
// journal-compact-codec.ts's text, about a quarter of the bytes, and hash with "…/2". A stored text
// says its own form (a version 2 text starts with "~", JSON never does), so a journal holding both
// (old entries, then new ones) is read, replayed and verified entry by entry, and an entry known
// only as data (an archive line) records which form its hash covers (`textFormat`).
//
// Encoding each entry once: the texts the hash covers are what the stores write and read, so they
// are remembered per entry object (a WeakMap): the engine's encoding is reused by the store's
// append, and a store's row text by whoever checks the chain on read.

import * as crypto from "node:crypto";
import { JournalCorruptionError } from "./errors.js";
import { decodePlainData, encodePlainData } from "./journal-codec.js";
import { decodeCompactData, encodeCompactData, isCompactText } from "./journal-compact-codec.js";
import type { JournalEntry } from "./store.js";

/** Tags the hash input of a version 1 entry (JSON texts), so no other encoding is mistaken for it. */
export const journalChainVersion = "predex-journal-chain/1";
/** Tags the hash input of a version 2 entry (compact texts). */
export const journalChainVersion2 = "predex-journal-chain/2";

/** Which text form an entry's texts are in: 1 (JSON) or 2 (compact, written from now on). */
export type JournalTextFormat = 1 | 2;

/** The form entries are written in. */
export const currentTextFormat: JournalTextFormat = 2;

/** The plain data of one stored text, in whichever form it is. */
export function decodeJournalText<T>(text: string): T {
  return isCompactText(text) ? decodeCompactData<T>(text) : decodePlainData<T>(text);
}

function encodeTexts(format: JournalTextFormat, command: unknown, events: unknown): EntryTexts {
  return format === 2
    ? { command: encodeCompactData(command), events: encodeCompactData(events) }
    : { command: encodePlainData(command), events: encodePlainData(events) };
}

/** The form of texts: both must be in the same one (else the row was pieced together). */
export function textFormatOf(texts: EntryTexts): JournalTextFormat {
  const compact = isCompactText(texts.command);
  if (compact !== isCompactText(texts.events)) {
    throw new JournalCorruptionError("A journal entry's command and events are in different text forms");
  }
  return compact ? 2 : 1;
}

/** The codec's text of an entry's command and events: what is written, read and hashed. */
export interface EntryTexts {
  readonly command: string;
  readonly events: string;
}

/**
 * The journal and the copy that follows it hold different histories from some sequence on: the
 * copy must be rebuilt from the database's own snapshot and journal, and serve nothing meanwhile.
 */
export class JournalForkError extends JournalCorruptionError {
  constructor(
    message: string,
    /** The sequence of the first entry the two histories disagree on (or the copy's position). */
    readonly sequence: bigint,
  ) {
    super(message);
    this.name = "JournalForkError";
  }
}

const textsOfEntry = new WeakMap<object, EntryTexts>();
/** The form of an entry known only as data (an archive line), when it is not the current one. */
const formatOfEntry = new WeakMap<object, JournalTextFormat>();

/**
 * The entry's texts: remembered from whoever made or read it, else encoded now (and remembered) in
 * the form recorded for it (markTextFormat), by default the current one.
 */
export function entryTexts(entry: JournalEntry<unknown, unknown>): EntryTexts {
  const known = textsOfEntry.get(entry);
  if (known !== undefined) return known;
  const texts = encodeTexts(formatOfEntry.get(entry) ?? currentTextFormat, entry.command, entry.events);
  textsOfEntry.set(entry, texts);
  return texts;
}

/** The form an entry's texts are (or will be) in: what its hash covers. */
export function entryTextFormat(entry: JournalEntry<unknown, unknown>): JournalTextFormat {
  const known = textsOfEntry.get(entry);
  if (known !== undefined) return textFormatOf(known);
  return formatOfEntry.get(entry) ?? currentTextFormat;
}

/** Records the form of an entry read as data (an archive line), before its texts are needed. */
export function markTextFormat<E extends JournalEntry<unknown, unknown>>(
  entry: E,
  format: JournalTextFormat,
): E {
  if (format !== currentTextFormat) formatOfEntry.set(entry, format);
  return entry;
}

/** sha256 (hex) of one link of the chain. */
export function journalEntryHash(
  prevHash: string | null,
  sequence: bigint,
  nowMs: number,
  texts: EntryTexts,
): string {
  // Either form's JSON holds no raw newline (JSON escapes it), so the fields cannot run together.
  const version = textFormatOf(texts) === 2 ? journalChainVersion2 : journalChainVersion;
  const input = `${version}\n${prevHash ?? ""}\n${sequence}\n${nowMs}\n${texts.command}\n${texts.events}`;
  return sha256Hex(input);
}

/**
 * One-shot sha256 where Node has it (20.12+): half the cost of a Hash object and its updates, for
 * every journaled command (bench:maker). The same digest either way.
 */
const sha256Hex: (input: string) => string =
  typeof crypto.hash === "function"
    ? (input) => crypto.hash("sha256", input, "hex")
    : (input) => crypto.createHash("sha256").update(input).digest("hex");

/** A new journal entry chained after `prevHash` (the engine's, as it decides). */
export function chainEntry<Command, Event>(
  prevHash: string | null,
  sequence: bigint,
  nowMs: number,
  command: Command,
  events: readonly Event[],
): JournalEntry<Command, Event> {
  const texts = encodeTexts(currentTextFormat, command, events);
  const entry: JournalEntry<Command, Event> = {
    sequence,
    nowMs,
    command,
    events,
    prevHash,
    hash: journalEntryHash(prevHash, sequence, nowMs, texts),
  };
  textsOfEntry.set(entry, texts);
  return entry;
}

/** A stored row as an entry, its texts remembered so checking its hash decodes nothing twice. */
export function decodeJournalRow<Command, Event>(row: {
  readonly sequence: bigint;
  readonly nowMs: number;
  readonly command: string;
  readonly events: string;
  readonly prevHash?: string | null | undefined;
  readonly hash?: string | null | undefined;
}): JournalEntry<Command, Event> {
  const entry: JournalEntry<Command, Event> =
    row.hash === null || row.hash === undefined
      ? {
          sequence: row.sequence,
          nowMs: row.nowMs,
          command: decodeJournalText<Command>(row.command),
          events: decodeJournalText<Event[]>(row.events),
        }
      : {
          sequence: row.sequence,
          nowMs: row.nowMs,
          command: decodeJournalText<Command>(row.command),
          events: decodeJournalText<Event[]>(row.events),
          prevHash: row.prevHash ?? null,
          hash: row.hash,
        };
  textsOfEntry.set(entry, { command: row.command, events: row.events });
  return entry;
}

/** The entry's chain hash, or null for an entry written before the chain. */
export function chainHashOf(entry: JournalEntry<unknown, unknown>): string | null {
  return typeof entry.hash === "string" ? entry.hash : null;
}

/**
 * Checks `entry` as the next one after a copy holding chain hash `held` (null: no hash known) and
 * returns the hash the copy holds after it. Throws JournalCorruptionError when the entry does not
 * match its own hash (it was altered), JournalForkError when it follows another history.
 * `verifyContent` false skips recomputing the entry's own hash (entries handed over in-process by
 * the engine that hashed them).
 */
export function nextChainHash(
  held: string | null,
  entry: JournalEntry<unknown, unknown>,
  verifyContent = true,
): string | null {
  const hash = chainHashOf(entry);
  if (hash === null) return null;
  const prevHash = entry.prevHash ?? null;
  if (verifyContent && journalEntryHash(prevHash, entry.sequence, entry.nowMs, entryTexts(entry)) !== hash) {
    throw new JournalCorruptionError(`Journal entry ${entry.sequence} does not match its chain hash`);
  }
  if (prevHash !== null && held !== null && prevHash !== held) {
    throw new JournalForkError(
      `Journal fork at sequence ${entry.sequence}: the entry follows chain hash ${prevHash.slice(0, 16)}…, this copy holds ${held.slice(0, 16)}… for sequence ${entry.sequence - 1n}`,
      entry.sequence,
    );
  }
  return hash;
}

/**
 * Compares the journal's entry at the copy's own position with what the copy holds there, and
 * returns the hash the copy holds from now on. A different hash, or no hash where the copy has
 * one, is a fork; a copy holding no hash takes the journal's.
 */
export function checkHeldEntry(held: string | null, entry: JournalEntry<unknown, unknown>): string | null {
  const stored = chainHashOf(entry);
  if (held === null) return stored;
  if (stored !== held) {
    throw new JournalForkError(
      `Journal fork at sequence ${entry.sequence}: the journal holds ${stored === null ? "an entry without a chain hash" : `chain hash ${stored.slice(0, 16)}…`} there, this copy holds ${held.slice(0, 16)}…`,
      entry.sequence,
    );
  }
  return held;
}
