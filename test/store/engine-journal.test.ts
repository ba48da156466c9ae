// The engine store's part written once for both databases (src/store/engine-journal.ts): an entry
// survives its row, the journal's pages hand out every entry after a sequence exactly once, and a
// batch is accepted exactly when it continues the journal. The contract suite
// (engine-store-contract.ts) runs the same rules through every adapter.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { chainEntry } from "../../src/engine/journal-chain.js";
import type { JournalEntry } from "../../src/engine/store.js";
import {
  assertContinuesJournal,
  type JournalRow,
  journalEntryOf,
  journalPageEntriesMax,
  journalPages,
  journalRowValuesOf,
} from "../../src/store/engine-journal.js";

type Command = { readonly type: string; readonly [field: string]: unknown };

function rowOf(entry: JournalEntry<unknown, unknown>): JournalRow {
  const values = journalRowValuesOf(entry);
  return {
    sequence: values.sequence,
    now_ms: BigInt(values.nowMs),
    command: values.command,
    events: values.events,
    prev_hash: values.prevHash,
    hash: values.hash,
  };
}

const plainEntry = (sequence: bigint): JournalEntry<Command, Command> => ({
  sequence,
  nowMs: 1_700_000_000_000 + Number(sequence),
  command: { type: "place", sequence },
  events: [{ type: "placed", size: sequence * 10n }],
});

describe("the engine journal's rows, written once for both stores", () => {
  it("gives back each entry from its row, with its chain hashes or without them", () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 1n, max: 2n ** 62n }),
        fc.dictionary(
          fc.constantFrom("price", "size", "note"),
          fc.oneof(fc.string(), fc.integer(), fc.bigInt()),
        ),
        // Unchained (written before the chain), where the chain starts (null before it), or inside it.
        fc.option(fc.option(fc.stringMatching(/^[0-9a-f]{64}$/), { nil: null }), { nil: undefined }),
        (sequence, fields, prevHash) => {
          const command = { type: "place", ...fields };
          const entry =
            prevHash !== undefined
              ? chainEntry(prevHash, sequence, 1_700_000_000_000, command, [{ type: "placed", ...fields }])
              : { sequence, nowMs: 1_700_000_000_000, command, events: [{ type: "placed", ...fields }] };
          assert.deepEqual(journalEntryOf(rowOf(entry)), entry);
        },
      ),
    );
  });

  it("reads every entry after a sequence once, in order, in pages of at most the bound, none empty", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: journalPageEntriesMax * 3 + 5 }),
        fc.integer({ min: 0, max: journalPageEntriesMax * 3 + 10 }),
        async (length, after) => {
          const rows = Array.from({ length }, (_, index) => rowOf(plainEntry(BigInt(index + 1))));
          let reads = 0;
          const sequences: bigint[] = [];
          for await (const page of journalPages(BigInt(after), (from, limit) => {
            reads += 1;
            return rows.filter((row) => row.sequence > from).slice(0, limit);
          })) {
            assert.ok(page.length > 0 && page.length <= journalPageEntriesMax);
            sequences.push(...page.map((entry) => entry.sequence));
          }
          const expected = Array.from({ length: Math.max(0, length - after) }, (_, index) =>
            BigInt(after + index + 1),
          );
          assert.deepEqual(sequences, expected);
          // A short page is the last: no read after it.
          assert.equal(reads, Math.floor(expected.length / journalPageEntriesMax) + 1);
        },
      ),
      { numRuns: 40 },
    );
  });

  it("accepts a batch exactly when it continues the journal", () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: 1_000n }),
        fc.integer({ min: 0, max: 8 }),
        // A contiguous batch as it is, or with one sequence moved (a gap, a repeat, one behind).
        fc.option(fc.tuple(fc.nat(), fc.constantFrom(-2n, -1n, 1n, 2n)), { nil: undefined }),
        (last, count, change) => {
          const sequences = Array.from({ length: count }, (_, index) => last + 1n + BigInt(index));
          if (change !== undefined && count > 0) sequences[change[0] % count]! += change[1];
          const continues = sequences.every((sequence, index) => sequence === last + 1n + BigInt(index));
          assert.equal(continues, change === undefined || count === 0);
          const batch = sequences.map((sequence) => ({ sequence }));
          if (continues) assertContinuesJournal(last, batch);
          else assert.throws(() => assertContinuesJournal(last, batch), /Journal write out of order/);
        },
      ),
    );
  });
});
