// Chain version 2's compact journal text (src/engine/journal-compact-codec.ts): every value comes
// back exactly (bigints at their edges, strings that look like bigints, every command and event
// type the exchange decides, every shape of the table), and a journal written by the build before
// (version 1, JSON) is still read, verified, archived and replayed, alone or followed by version 2.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import {
  type ExchangeCommand,
  type ExchangeEvent,
  type ExchangeState,
  exchangeDecider,
  stateHash,
} from "../../src/core/exchange.js";
import { JournalCorruptionError } from "../../src/engine/errors.js";
import { decodeSegment, encodeSegment } from "../../src/engine/journal-archive.js";
import {
  chainEntry,
  decodeJournalRow,
  entryTextFormat,
  entryTexts,
  nextChainHash,
} from "../../src/engine/journal-chain.js";
import { encodePlainData } from "../../src/engine/journal-codec.js";
import { decodeCompactData, encodeCompactData } from "../../src/engine/journal-compact-codec.js";
import { journalShapes } from "../../src/engine/journal-shapes.js";
import { initialPosition, replayJournal } from "../../src/engine/recovery.js";
import type { JournalEntry } from "../../src/engine/store.js";
import { openDatabase } from "../../src/store/sqlite/database.js";
import { SqliteEngineStore } from "../../src/store/sqlite/engine-store.js";
import { CommandStream } from "../sim/command-stream.js";
import { chainEntryVersion1 } from "../support/journal-v1.js";
import { encodeCompactReference } from "../support/journal-v2-reference.js";

type Entry = JournalEntry<ExchangeCommand, ExchangeEvent>;

const roundTrip = (value: unknown) => decodeCompactData(encodeCompactData(value));

const edgeBigints = [
  0n,
  1n,
  -1n,
  2n ** 53n,
  -(2n ** 53n),
  2n ** 63n - 1n,
  -(2n ** 63n),
  2n ** 64n,
  -(10n ** 40n),
];
const bigints = fc.oneof(fc.constantFrom(...edgeBigints), fc.bigInt());
// Strings a bigint could be mistaken for, and the escape character itself.
const strings = fc.oneof(
  fc.string(),
  fc.constantFrom("", "0", "-", "-1", "12", "'", "''5", "~", "7 o'clock", "-abc", "0x10", "$bigint"),
);
const numbers = fc.oneof(
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }).filter((value) => !Object.is(value, -0)),
);

const plainData: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    strings,
    numbers,
    fc.boolean(),
    fc.constant(null),
    bigints,
    fc.array(tie("value")),
    fc.dictionary(
      fc
        .oneof(fc.string(), fc.constantFrom("type", "0", "-1"))
        // "$bigint" is refused as a key, as version 1 refuses it (the archive's lines are JSON).
        .filter((key) => key !== "__proto__" && key !== "$bigint"),
      tie("value"),
      { noNullPrototype: true },
    ),
  ),
})).value;

/** Values as the table's shapes hold them, nested shapes included. */
const fieldValue: fc.Arbitrary<unknown> = fc.oneof(
  { depthSize: "small" },
  strings,
  numbers,
  fc.boolean(),
  fc.constant(null),
  bigints,
  fc.array(fc.oneof(bigints, strings, numbers), { maxLength: 3 }),
);

/** An object of exactly one shape of the table: its keys, in order, and its type. */
function ofShape(index: number): fc.Arbitrary<Record<string, unknown>> {
  const shape = journalShapes[index]!;
  const keys = shape.keys.split(",");
  return fc.tuple(...keys.map(() => fieldValue)).map((values) => {
    const record: Record<string, unknown> = {};
    keys.forEach((key, at) => {
      record[key] = key === "type" && shape.type !== undefined ? shape.type : values[at];
    });
    return record;
  });
}

/** Commands and what they decided, from the crash simulation's stream (every model, every workflow). */
function decidedStream(seed: number, groups: number) {
  const stream = new CommandStream(seed);
  let state: ExchangeState = exchangeDecider.initialState();
  let nowMs = 1_800_000_000_000;
  const decided: { command: ExchangeCommand; events: ExchangeEvent[]; nowMs: number }[] = [];
  for (let group = 0; group < groups; group++) {
    nowMs += 997;
    for (const command of stream.next(state, nowMs, 4)) {
      const sequence = BigInt(decided.length + 1);
      const decision = exchangeDecider.decide(state, command, { nowMs, sequence });
      if (!decision.ok) continue;
      for (const event of decision.events) state = exchangeDecider.evolve(state, event);
      decided.push({ command, events: [...decision.events], nowMs });
    }
  }
  return { decided, state };
}

describe("compact journal text (chain version 2)", () => {
  it("gives back any plain data exactly (property)", () => {
    fc.assert(
      fc.property(plainData, (value) => {
        assert.deepStrictEqual(roundTrip(value), value);
      }),
      { numRuns: 500 },
    );
  });

  it("gives back every shape of the table exactly, written without its keys (property)", () => {
    for (let index = 0; index < journalShapes.length; index++) {
      fc.assert(
        fc.property(ofShape(index), (record) => {
          const text = encodeCompactData(record);
          assert.ok(text.startsWith(`~[${index + 1},`) || text === `~[${index + 1}]`, text);
          const decoded = decodeCompactData<Record<string, unknown>>(text);
          assert.deepStrictEqual(decoded, record);
          // In the shape's order, so the decoded object encodes to the same text again.
          assert.deepStrictEqual(Object.keys(decoded), Object.keys(record));
          assert.equal(encodeCompactData(decoded), text);
          // The same object nested, in an array and as a field of an unknown object.
          assert.deepStrictEqual(roundTrip([record, { inner: record }]), [record, { inner: record }]);
        }),
        { numRuns: 30 },
      );
    }
  });

  it("gives back every command and event the exchange decides, in about a quarter of the JSON bytes", () => {
    const types = new Set<string>();
    let compactBytes = 0;
    let jsonBytes = 0;
    for (const seed of [1, 2, 3, 4]) {
      for (const { command, events } of decidedStream(seed, 150).decided) {
        for (const value of [command, events]) {
          const text = encodeCompactData(value);
          assert.deepStrictEqual(decodeCompactData(text), value);
          compactBytes += text.length;
          jsonBytes += encodePlainData(value).length;
        }
        types.add(command.type);
        for (const event of events) types.add(event.type);
      }
    }
    // The stream decides most of the table's types; the rest are covered by the shape property.
    assert.ok(types.size >= 40, `only ${types.size} types decided`);
    for (const type of types) {
      assert.ok(
        journalShapes.some((shape) => shape.type === type),
        `${type} has no shape: add it at the end of journal-shapes.ts`,
      );
    }
    assert.ok(compactBytes * 2 < jsonBytes, `${compactBytes} bytes compact, ${jsonBytes} JSON`);
  });

  it("writes the text the first version 2 encoder wrote, byte for byte (property)", () => {
    const same = (value: unknown) => assert.equal(encodeCompactData(value), encodeCompactReference(value));
    fc.assert(fc.property(plainData, same), { numRuns: 500 });
    for (let index = 0; index < journalShapes.length; index++) {
      // Each shape, and each with a field left undefined (dropped, so it may match another shape).
      const shaped = ofShape(index).chain((record) =>
        fc.subarray(Object.keys(record)).map((absent) => {
          const copy: Record<string, unknown> = { ...record };
          for (const key of absent) copy[key] = undefined;
          return [record, copy, { inner: copy }];
        }),
      );
      fc.assert(fc.property(shaped, same), { numRuns: 20 });
    }
    for (const { command, events } of decidedStream(5, 150).decided) {
      same(command);
      same(events);
    }
    // Keys JSON.parse makes own properties, which an object literal would not.
    same(JSON.parse('{"__proto__":{"a":1},"b":[1,"x"],"2":3,"1":"y"}'));
    same(Object.assign(Object.create(null), { type: "Deposit", userId: 1, amount: 5n, txHash: "0x" }));
  });

  it("writes bigints as digits and escapes strings that could be read as them", () => {
    assert.equal(encodeCompactData([5n, -12n, "5", "'x", "x"]), `~[0,"5","-12","'5","''x","x"]`);
    for (const value of edgeBigints) assert.equal(roundTrip(value), value);
    assert.deepStrictEqual(roundTrip({ type: "Unknown", amount: 2n ** 64n }), {
      type: "Unknown",
      amount: 2n ** 64n,
    });
  });

  it("drops undefined properties (an object of a shape but for an absent optional field is still one)", () => {
    const deposit = { type: "Deposit", userId: 1, amount: 5n, txHash: "0xab", note: undefined };
    assert.equal(
      encodeCompactData(deposit),
      encodeCompactData({ type: "Deposit", userId: 1, amount: 5n, txHash: "0xab" }),
    );
    assert.ok(encodeCompactData(deposit).startsWith("~["));
  });

  it("refuses what would not come back the same, and a shape it does not know", () => {
    for (const value of [
      { at: new Date(0) },
      { $bigint: "1" },
      new Map(),
      [undefined],
      { n: Number.NaN },
      { n: Infinity },
      () => 1,
      undefined,
    ]) {
      assert.throws(() => encodeCompactData(value), TypeError);
    }
    assert.throws(() => decodeCompactData(`~[${journalShapes.length + 1},1]`), /Unknown journal shape/);
    assert.throws(() => decodeCompactData('~[5,"1"]'), /fields/);
    assert.throws(() => decodeCompactData('~[5,"1",2,3]'), /fields/);
    assert.throws(() => decodeCompactData("~[1.5]"), /Unknown journal shape/);
    assert.throws(() => decodeCompactData('{"type":"x"}'), SyntaxError);
  });
});

describe("journals written before chain version 2", () => {
  /** The stream's entries chained from 1: version 1 (JSON) up to `switchAt`, version 2 after it. */
  function mixedChain(decided: ReturnType<typeof decidedStream>["decided"], switchAt: number): Entry[] {
    const entries: Entry[] = [];
    let prevHash: string | null = null;
    decided.forEach(({ command, events, nowMs }, index) => {
      const sequence = BigInt(index + 1);
      const entry =
        index < switchAt
          ? chainEntryVersion1(prevHash, sequence, nowMs, command, events)
          : chainEntry(prevHash, sequence, nowMs, command, events);
      prevHash = entry.hash!;
      entries.push(entry);
    });
    return entries;
  }

  it("an old journal, then one continued by this build, replays to the same state and verifies (SQLite)", async () => {
    const { decided, state } = decidedStream(11, 120);
    for (const switchAt of [decided.length, Math.floor(decided.length / 2)]) {
      const db = openDatabase({ path: ":memory:" });
      const writer = new SqliteEngineStore<ExchangeCommand, ExchangeEvent>(db);
      const entries = mixedChain(decided, switchAt);
      for (let at = 0; at < entries.length; at += 37)
        await writer.commitBatch(entries.slice(at, at + 37), []);
      // A fresh store over the same rows: nothing remembered from the writing.
      const reader = new SqliteEngineStore<ExchangeCommand, ExchangeEvent>(db);
      const formats = new Set<number>();
      for await (const batch of reader.readJournal(0n))
        for (const entry of batch) formats.add(entryTextFormat(entry));
      assert.deepEqual([...formats].sort(), switchAt === decided.length ? [1] : [1, 2]);
      const replayed = await replayJournal(
        exchangeDecider,
        reader,
        initialPosition(exchangeDecider),
        BigInt(decided.length),
      );
      assert.equal(stateHash(replayed.state), stateHash(state));
      assert.equal(replayed.chainHash, entries.at(-1)!.hash);
      db.close();
    }
  });

  it("archives a mixed journal and verifies it from the archive (old lines carry no text form)", async () => {
    const { decided } = decidedStream(12, 60);
    const switchAt = Math.floor(decided.length / 2);
    const written = mixedChain(decided, switchAt);
    // As the archiver reads them: entries decoded from stored rows.
    const stored = written.map((entry) =>
      decodeJournalRow<ExchangeCommand, ExchangeEvent>({ ...entry, ...entryTexts(entry) }),
    );
    const { segment, compressed } = await encodeSegment(stored);
    const archived = await decodeSegment<ExchangeCommand, ExchangeEvent>(
      { ...segment, file: "s" },
      compressed,
    );
    assert.deepStrictEqual(archived, written);
    let held: string | null = null;
    for (const entry of archived) held = nextChainHash(held, entry);
    assert.equal(held, written.at(-1)!.hash);
    assert.equal(entryTextFormat(archived[0]!), 1);
    assert.equal(entryTextFormat(archived.at(-1)!), 2);
    // A version 2 entry taken for version 1 does not verify: the form is part of what is checked.
    const lastAsVersion1 = decodeJournalRow<ExchangeCommand, ExchangeEvent>({
      ...written.at(-1)!,
      command: encodePlainData(written.at(-1)!.command),
      events: encodePlainData(written.at(-1)!.events),
    });
    assert.throws(() => nextChainHash(written.at(-2)!.hash!, lastAsVersion1), JournalCorruptionError);
  });

  it("refuses an entry whose command and events are in different forms", () => {
    const entry = chainEntry(null, 1n, 1, { type: "ExpireOrders" }, []);
    const pieced = decodeJournalRow({
      ...entry,
      command: encodePlainData(entry.command),
      events: entryTexts(entry).events,
    });
    assert.throws(() => nextChainHash(null, pieced), JournalCorruptionError);
  });
});
