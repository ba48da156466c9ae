// Journal entries as a build before chain version 2 wrote them: the commands and events as
// journal-codec.ts's JSON, hashed with the "predex-journal-chain/1" tag. Tests write these directly
// to a store (or archive them) to prove the current build still reads and verifies them.

import { decodeJournalRow, journalEntryHash } from "../../src/engine/journal-chain.js";
import { encodePlainData } from "../../src/engine/journal-codec.js";
import type { JournalEntry } from "../../src/engine/store.js";

/** A version 1 entry chained after `prevHash`, its JSON texts remembered for the store's append. */
export function chainEntryVersion1<Command, Event>(
  prevHash: string | null,
  sequence: bigint,
  nowMs: number,
  command: Command,
  events: readonly Event[],
): JournalEntry<Command, Event> {
  const texts = { command: encodePlainData(command), events: encodePlainData(events) };
  return decodeJournalRow<Command, Event>({
    sequence,
    nowMs,
    ...texts,
    prevHash,
    hash: journalEntryHash(prevHash, sequence, nowMs, texts),
  });
}
