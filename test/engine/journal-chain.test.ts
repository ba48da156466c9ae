// The journal as a hash chain (src/engine/journal-chain.ts): any edit, drop or reorder of an entry is
// detected, whether the stored hashes are left as they were (a replay from the start refuses the
// journal) or the history after the change is rehashed as a new primary's leader would after an
// asynchronous failover (a copy holding the old history sees the fork at its own position). The
// engine chains what it journals, snapshots carry the chain hash, a start from a snapshot continues
// the chain, and a journal written before the chain keeps working.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { JournalCorruptionError } from "../../src/engine/errors.js";
import {
  chainEntry,
  checkHeldEntry,
  JournalForkError,
  journalEntryHash,
  nextChainHash,
} from "../../src/engine/journal-chain.js";
import { decodePlainData } from "../../src/engine/journal-codec.js";
import { initialPosition, recoverState, replayJournal } from "../../src/engine/recovery.js";
import type { JournalEntry } from "../../src/engine/store.js";
import { accountsCodec, accountsDecider } from "./accounts-domain.js";
import { memoryStore, openAccountsEngine } from "./harness.js";

type Command = { readonly type: string; readonly n: number; readonly note: string; readonly big: bigint };
type Event = { readonly type: string; readonly amount: bigint };
type Entry = JournalEntry<Command, Event>;

const payload = fc.record({
  command: fc.record({
    type: fc.constantFrom("place", "cancel", "deposit"),
    n: fc.integer({ min: -1000, max: 1000 }),
    note: fc.string({ maxLength: 8 }),
    big: fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }),
  }),
  events: fc.array(
    fc.record({ type: fc.constantFrom("a", "b"), amount: fc.bigInt({ min: 0n, max: 10n ** 12n }) }),
    {
      maxLength: 3,
    },
  ),
  stepMs: fc.integer({ min: 0, max: 5 }),
});

/** Entries 1..n chained from the start, as the engine writes them. */
function chainOf(payloads: readonly { command: Command; events: Event[]; stepMs: number }[]): Entry[] {
  const entries: Entry[] = [];
  let prevHash: string | null = null;
  let nowMs = 1_700_000_000_000;
  payloads.forEach((item, index) => {
    nowMs += item.stepMs;
    const entry = chainEntry(prevHash, BigInt(index + 1), nowMs, item.command, item.events);
    prevHash = entry.hash!;
    entries.push(entry);
  });
  return entries;
}

/** Entries as a store gives them back: fresh objects with the stored fields (no remembered texts). */
function asStored(entries: readonly Entry[]): Entry[] {
  return entries.map((entry) => decodePlainData<Entry>(JSON.stringify(toPlain(entry))));
}

function toPlain(entry: Entry): unknown {
  return JSON.parse(
    JSON.stringify(entry, (_key, value) => (typeof value === "bigint" ? { $bigint: String(value) } : value)),
  );
}

/** Folds the whole journal from the start; returns the final chain hash or throws. */
function verifyFromStart(entries: readonly Entry[]): string | null {
  let held: string | null = null;
  for (const entry of entries) held = nextChainHash(held, entry);
  return held;
}

/** The same history from `from` on, each entry's hashes recomputed after the one before. */
function rehashFrom(entries: readonly Entry[], from: number): Entry[] {
  const out = entries.slice(0, from);
  let prevHash = from === 0 ? null : out[from - 1]!.hash!;
  for (const entry of entries.slice(from)) {
    const rehashed = chainEntry(prevHash, entry.sequence, entry.nowMs, entry.command, entry.events);
    prevHash = rehashed.hash!;
    out.push(rehashed);
  }
  return out;
}

type Tamper =
  | { kind: "edit-command"; index: number; n: number }
  | { kind: "edit-events"; index: number }
  | { kind: "edit-time"; index: number; deltaMs: number }
  | { kind: "drop"; index: number }
  | { kind: "swap"; index: number };

/** The journal after `tamper`, renumbered so that it is still gapless (a plain gap is caught anyway). */
function tampered(entries: readonly Entry[], tamper: Tamper): Entry[] {
  const out = [...entries];
  const at = tamper.index % entries.length;
  const entry = out[at]!;
  switch (tamper.kind) {
    case "edit-command":
      out[at] = { ...entry, command: { ...entry.command, n: entry.command.n + tamper.n } };
      break;
    case "edit-events":
      out[at] = { ...entry, events: [...entry.events, { type: "forged", amount: 1n }] };
      break;
    case "edit-time":
      out[at] = { ...entry, nowMs: entry.nowMs + tamper.deltaMs };
      break;
    case "drop":
      out.splice(at, 1);
      break;
    case "swap": {
      const other = at + 1 < out.length ? at + 1 : at - 1;
      [out[at], out[other]] = [out[other]!, out[at]!];
      break;
    }
  }
  return out.map((kept, index) => ({ ...kept, sequence: BigInt(index + 1) }));
}

const tamper: fc.Arbitrary<Tamper> = fc.oneof(
  fc.record({
    kind: fc.constant("edit-command" as const),
    index: fc.nat(),
    n: fc.integer({ min: 1, max: 9 }),
  }),
  fc.record({ kind: fc.constant("edit-events" as const), index: fc.nat() }),
  fc.record({
    kind: fc.constant("edit-time" as const),
    index: fc.nat(),
    deltaMs: fc.integer({ min: 1, max: 9 }),
  }),
  fc.record({ kind: fc.constant("drop" as const), index: fc.nat() }),
  fc.record({ kind: fc.constant("swap" as const), index: fc.nat() }),
);

/** The first position (0-based) where two journals differ in what an entry holds. */
function firstDifference(a: readonly Entry[], b: readonly Entry[]): number {
  const length = Math.min(a.length, b.length);
  for (let index = 0; index < length; index++) {
    const x = a[index]!;
    const y = b[index]!;
    if (
      JSON.stringify(toPlain({ ...x, prevHash: null, hash: "" })) !==
      JSON.stringify(toPlain({ ...y, prevHash: null, hash: "" }))
    )
      return index;
  }
  return length;
}

describe("journal chain", () => {
  it("an untouched journal verifies, as written and as read back from a store", () => {
    fc.assert(
      fc.property(fc.array(payload, { minLength: 1, maxLength: 30 }), (payloads) => {
        const entries = chainOf(payloads);
        const end = verifyFromStart(entries);
        assert.equal(end, entries.at(-1)!.hash);
        assert.equal(
          verifyFromStart(asStored(entries)),
          end,
          "re-encoding a read entry gives the hashed text",
        );
      }),
    );
  });

  it("any edit, drop or reorder of an entry whose hashes are left as stored is refused from the start", () => {
    fc.assert(
      fc.property(fc.array(payload, { minLength: 2, maxLength: 30 }), tamper, (payloads, change) => {
        const entries = chainOf(payloads);
        const forged = tampered(entries, change);
        // Nothing changed (two equal entries swapped), or the journal was only cut short (the last
        // entry dropped): a copy that holds the lost entry sees that the journal ends before it.
        if (firstDifference(entries, forged) === forged.length) return;
        assert.throws(() => verifyFromStart(asStored(forged)), JournalCorruptionError);
      }),
    );
  });

  it("a history rewritten from some entry on (an asynchronous failover) is a fork to every copy that holds the old one there", () => {
    fc.assert(
      fc.property(
        fc.array(payload, { minLength: 2, maxLength: 30 }),
        tamper,
        fc.nat(),
        (payloads, change, positionSeed) => {
          const entries = chainOf(payloads);
          const changed = tampered(entries, change);
          const from = firstDifference(entries, changed);
          if (from >= Math.min(entries.length, changed.length)) return;
          const rewritten = asStored(rehashFrom(changed, from));
          // The rewritten journal is a valid chain on its own: only a copy's own hash shows the fork.
          assert.equal(verifyFromStart(rewritten), rewritten.at(-1)!.hash);
          // A copy that folded the old history through `position` (past the change) holds its hash there.
          const position = from + (positionSeed % (Math.min(entries.length, rewritten.length) - from));
          const held = entries[position]!.hash!;
          assert.throws(() => checkHeldEntry(held, rewritten[position]!), JournalForkError);
          // A copy one entry before the change folds the new history on without a fork.
          const before = from === 0 ? null : entries[from - 1]!.hash!;
          assert.doesNotThrow(() => nextChainHash(before, rewritten[from]!));
          // One that folded the old history through the change meets the next new entry as a fork.
          if (from + 1 < rewritten.length)
            assert.throws(() => nextChainHash(entries[from]!.hash!, rewritten[from + 1]!), JournalForkError);
        },
      ),
    );
  });

  it("the hash covers the version, the link, the sequence, the time and both texts", () => {
    const texts = { command: '{"type":"a"}', events: "[]" };
    const base = journalEntryHash(null, 1n, 5, texts);
    assert.match(base, /^[0-9a-f]{64}$/);
    assert.notEqual(journalEntryHash("0".repeat(64), 1n, 5, texts), base);
    assert.notEqual(journalEntryHash(null, 2n, 5, texts), base);
    assert.notEqual(journalEntryHash(null, 1n, 6, texts), base);
    assert.notEqual(journalEntryHash(null, 1n, 5, { ...texts, events: '[{"x":1}]' }), base);
    assert.notEqual(journalEntryHash(null, 1n, 5, { ...texts, command: '{"type":"b"}' }), base);
  });

  it("entries written before the chain are accepted; the chain starts at the first hashed entry", () => {
    const legacy: Entry[] = [1n, 2n].map((sequence) => ({
      sequence,
      nowMs: 1,
      command: { type: "x", n: 0, note: "", big: 0n },
      events: [],
    }));
    const anchor = chainEntry<Command, Event>(null, 3n, 2, { type: "y", n: 1, note: "", big: 1n }, []);
    const next = chainEntry<Command, Event>(anchor.hash!, 4n, 2, { type: "z", n: 2, note: "", big: 2n }, []);
    assert.equal(verifyFromStart([...legacy, anchor, next]), next.hash);
    // A copy that holds no hash cannot tell, and takes the journal's from there.
    assert.equal(checkHeldEntry(null, anchor), anchor.hash);
    // A copy that holds a hash where the journal now has an unhashed entry holds another history.
    assert.throws(() => checkHeldEntry(anchor.hash!, { ...legacy[0]!, sequence: 3n }), JournalForkError);
  });
});

describe("the engine chains what it journals", () => {
  it("links every entry, records the chain hash in snapshots, continues it after a restart, and recovery refuses a changed entry", async () => {
    const store = memoryStore();
    const { engine } = await openAccountsEngine(store, { limits: { snapshotEveryCommands: 4 } });
    await engine.submit({ type: "open", accountId: "a" });
    for (let index = 0; index < 9; index++)
      await engine.submit({ type: "deposit", accountId: "a", amount: 5n });
    await engine.close();
    const journal = store.durableImage.journal;
    assert.equal(journal.length, 10);
    assert.equal(journal[0]!.prevHash, null, "the chain starts at sequence 1");
    for (let index = 1; index < journal.length; index++) {
      assert.equal(
        journal[index]!.prevHash,
        journal[index - 1]!.hash,
        `entry ${index + 1} links to the one before`,
      );
    }
    const snapshot = store.durableImage.snapshots.at(-1)!;
    assert.equal(
      snapshot.chainHash,
      journal[Number(snapshot.sequence) - 1]!.hash,
      "a snapshot records the chain hash",
    );
    assert.equal(engine.chainHash, journal.at(-1)!.hash);

    // A restart from the latest snapshot (at the end: taken on close) continues the chain.
    const reopened = await openAccountsEngine(store);
    await reopened.engine.submit({ type: "deposit", accountId: "a", amount: 1n });
    await reopened.engine.close();
    assert.equal(store.durableImage.journal.at(-1)!.prevHash, journal[9]!.hash);

    // An entry changed on disk is refused by recovery, even with a snapshot in front of it.
    const recovered = await recoverState(accountsDecider, accountsCodec, store);
    assert.equal(recovered.chainHash, store.durableImage.journal.at(-1)!.hash);
    const stored = store.durableImage.journal[4]!;
    // Chain version 2's text: a bigint is a string of its digits.
    const altered = stored.events.replace('"amount":"5"', '"amount":"500"');
    assert.notEqual(altered, stored.events);
    store.durableImage.journal[4] = { ...stored, events: altered };
    await assert.rejects(
      replayJournal(accountsDecider, store, initialPosition(accountsDecider), 11n),
      JournalCorruptionError,
    );
  });

  it("a journal written before the chain recovers, and the engine starts the chain after it", async () => {
    const store = memoryStore();
    await store.commitBatch(
      [
        {
          sequence: 1n,
          nowMs: 1_700_000_000_000,
          command: { type: "open", accountId: "a" },
          events: [{ type: "opened", accountId: "a", atMs: 1_700_000_000_000 }],
        },
        {
          sequence: 2n,
          nowMs: 1_700_000_000_000,
          command: { type: "deposit", accountId: "a", amount: 3n },
          events: [{ type: "deposited", accountId: "a", amount: 3n }],
        },
      ],
      [],
    );
    const { engine } = await openAccountsEngine(store);
    assert.equal(engine.chainHash, null, "no hash is known for a journal written before the chain");
    await engine.submit({ type: "deposit", accountId: "a", amount: 4n });
    await engine.submit({ type: "deposit", accountId: "a", amount: 4n });
    await engine.close();
    const journal = store.durableImage.journal;
    assert.equal(journal[1]!.hash, null);
    assert.equal(journal[2]!.prevHash, null, "the first hashed entry starts the chain");
    assert.equal(journal[3]!.prevHash, journal[2]!.hash);
    const recovered = await recoverState(accountsDecider, accountsCodec, store);
    assert.equal(recovered.sequence, 4n);
    assert.equal(recovered.chainHash, journal[3]!.hash);
  });
});
