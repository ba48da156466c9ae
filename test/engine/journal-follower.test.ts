// The follower a standby keeps: it starts where recovery would, folds in what the leader appends,
// and a read that fails half-way leaves its state and position agreeing, so the next wake-up goes
// on from there and ends at exactly the leader's state.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { JournalForkError } from "../../src/engine/journal-chain.js";
import { JournalFollower } from "../../src/engine/journal-follower.js";
import { hashEncodedState } from "../../src/engine/recovery.js";
import type { EngineStore, JournalEntry } from "../../src/engine/store.js";
import { MemoryEngineStore, memoryJournalReadBatchEntriesMax } from "../../src/store/memory/engine-store.js";
import { type AccountCommand, type AccountEvent, accountsCodec, accountsDecider } from "./accounts-domain.js";
import { encodedState, memoryStore, openAccountsEngine, scriptedCommands } from "./harness.js";

type AccountsStore = EngineStore<AccountCommand, AccountEvent, unknown>;

/** The same store, but every readJournal fails after handing out its first batch while `failing`. */
function flakyReads(store: AccountsStore): AccountsStore & { failing: boolean } {
  const flaky = {
    failing: true,
    lastSequence: () => store.lastSequence(),
    loadLatestSnapshot: () => store.loadLatestSnapshot(),
    saveSnapshot: (snapshot: Parameters<AccountsStore["saveSnapshot"]>[0]) => store.saveSnapshot(snapshot),
    commitBatch: (entries: readonly JournalEntry<AccountCommand, AccountEvent>[]) =>
      store.commitBatch(entries, []),
    async *readJournal(after: bigint) {
      let batches = 0;
      for await (const batch of store.readJournal(after)) {
        if (flaky.failing && batches === 1) throw new Error("connection lost");
        batches += 1;
        yield batch;
      }
    },
  };
  return flaky;
}

/** The same store, counting its readJournal calls in `reads`. */
function countingReads(store: AccountsStore): AccountsStore & { reads: number } {
  const counted = {
    ...flakyReads(store),
    reads: 0,
    readJournal(after: bigint) {
      counted.reads += 1;
      return store.readJournal(after);
    },
  };
  return counted;
}

describe("journal follower", () => {
  it("follows the leader's appends to exactly the leader's state, from a snapshot", async () => {
    const store = memoryStore();
    const { engine } = await openAccountsEngine(store, { limits: { snapshotEveryCommands: 50 } });
    for (const command of scriptedCommands(120)) await engine.submit(command);
    const follower = await JournalFollower.start({ decider: accountsDecider, codec: accountsCodec, store });
    assert.ok(follower.position.snapshotSequence > 0n, "it started from a snapshot");
    assert.equal(follower.stateHash(), hashEncodedState(await encodedState(engine)));

    await Promise.all(
      scriptedCommands(400)
        .slice(120)
        .map((command) => engine.submit(command)),
    );
    // Three wake-ups at once make one pass, plus one more for those that came during it.
    const reached = await Promise.all([follower.catchUp(), follower.catchUp(), follower.catchUp()]);
    assert.equal(reached[2], engine.committedSequence);
    assert.equal(follower.stateHash(), hashEncodedState(await encodedState(engine)));
  });

  it("catchUpTo joins a running pass that reaches the sequence, and reads no more than needed", async () => {
    const store = memoryStore();
    const { engine } = await openAccountsEngine(store);
    const counted = countingReads(store);
    const follower = await JournalFollower.start({
      decider: accountsDecider,
      codec: accountsCodec,
      store: counted,
    });
    counted.reads = 0;
    for (const command of scriptedCommands(30)) await engine.submit(command);
    const target = engine.committedSequence;
    const running = follower.catchUp();
    assert.equal(await follower.catchUpTo(target), target);
    await running;
    assert.equal(counted.reads, 1, "one pass, not a second one queued behind it");
    assert.equal(await follower.catchUpTo(target), target);
    assert.equal(counted.reads, 1, "already there: no read at all");
    for (const command of scriptedCommands(60).slice(30)) await engine.submit(command);
    assert.ok(engine.committedSequence > target);
    assert.equal(await follower.catchUpTo(engine.committedSequence), engine.committedSequence);
    assert.equal(counted.reads, 2);
    assert.equal(follower.stateHash(), hashEncodedState(await encodedState(engine)));
  });

  it("keeps state and position agreeing when a read fails half-way, and goes on at the next wake-up", async () => {
    const store = memoryStore();
    const { engine } = await openAccountsEngine(store);
    const flaky = flakyReads(store);
    const follower = await JournalFollower.start({
      decider: accountsDecider,
      codec: accountsCodec,
      store: flaky,
    });
    const commands = scriptedCommands(memoryJournalReadBatchEntriesMax * 8);
    for (let first = 0; first < commands.length; first += 256) {
      await Promise.all(commands.slice(first, first + 256).map((command) => engine.submit(command)));
    }
    const end = engine.committedSequence;
    assert.ok(end > BigInt(memoryJournalReadBatchEntriesMax * 2), "the journal spans several read batches");

    await assert.rejects(follower.catchUp(), /connection lost/);
    assert.equal(follower.sequence, BigInt(memoryJournalReadBatchEntriesMax));
    // The state is the state at that sequence: a fresh fold of the same prefix gives the same hash.
    const prefix = await JournalFollower.start({
      decider: accountsDecider,
      codec: accountsCodec,
      store: memoryStore(),
    });
    const entries: JournalEntry<AccountCommand, AccountEvent>[] = [];
    for await (const batch of store.readJournal(0n)) entries.push(...batch);
    const prefixStore = memoryStore();
    await prefixStore.commitBatch(entries.slice(0, memoryJournalReadBatchEntriesMax), []);
    prefix.useStore(prefixStore);
    await prefix.catchUp();
    assert.equal(follower.stateHash(), prefix.stateHash());

    flaky.failing = false;
    assert.equal(await follower.catchUp(), end);
    assert.equal(follower.stateHash(), hashEncodedState(await encodedState(engine)));
  });

  it("folds batches its own engine hands over without reading them, and only those that follow on", async () => {
    const store = memoryStore();
    const { engine } = await openAccountsEngine(store);
    const counted = countingReads(store);
    const folded: bigint[] = [];
    const follower = await JournalFollower.start({
      decider: accountsDecider,
      codec: accountsCodec,
      store: counted,
      onFolded: (entries) => folded.push(...entries.map((entry) => entry.sequence)),
    });
    const handedOver: boolean[] = [];
    engine.onCommitted((entries) => handedOver.push(follower.foldCommitted(structuredClone(entries))));
    counted.reads = 0;
    for (const command of scriptedCommands(40)) await engine.submit(command);
    assert.equal(counted.reads, 0, "nothing read back");
    assert.ok(handedOver.length > 0 && handedOver.every(Boolean));
    assert.equal(follower.sequence, engine.committedSequence);
    assert.deepEqual(
      folded,
      Array.from({ length: folded.length }, (_, i) => BigInt(i + 1)),
    );
    assert.equal(follower.stateHash(), hashEncodedState(await encodedState(engine)));

    // Entries it already holds are nothing new; entries past a gap are refused and change nothing.
    const last = engine.committedSequence;
    const entries: JournalEntry<AccountCommand, AccountEvent>[] = [];
    for await (const batch of store.readJournal(0n)) entries.push(...batch);
    assert.equal(follower.foldCommitted(entries.slice(-3)), true);
    const ahead = entries.slice(-2).map((entry) => ({ ...entry, sequence: entry.sequence + 5n }));
    assert.equal(follower.foldCommitted(ahead), false);
    assert.equal(follower.sequence, last);

    // A hand-over while a read runs folds at once; the read then skips what is already folded.
    handedOver.length = 0;
    const running = follower.catchUp();
    for (const command of scriptedCommands(60).slice(40)) await engine.submit(command);
    await running;
    await follower.catchUp();
    assert.ok(handedOver.every(Boolean));
    assert.equal(follower.sequence, engine.committedSequence);
    assert.deepEqual(
      folded,
      Array.from({ length: folded.length }, (_, i) => BigInt(i + 1)),
      "each entry folded (and told) once, in order",
    );
    assert.equal(follower.stateHash(), hashEncodedState(await encodedState(engine)));
  });
});

/** A store whose reads can be pointed at another store: the database after a failover. */
function switchable(store: AccountsStore): AccountsStore & { target: AccountsStore } {
  const switched = {
    target: store,
    lastSequence: () => switched.target.lastSequence(),
    loadLatestSnapshot: () => switched.target.loadLatestSnapshot(),
    saveSnapshot: (snapshot: Parameters<AccountsStore["saveSnapshot"]>[0]) =>
      switched.target.saveSnapshot(snapshot),
    commitBatch: (entries: readonly JournalEntry<AccountCommand, AccountEvent>[]) =>
      switched.target.commitBatch(entries, []),
    readJournal: (after: bigint) => switched.target.readJournal(after),
  };
  return switched;
}

/**
 * What an asynchronous failover leaves: the journal (and snapshots) through `keep` only, and a new
 * leader that goes on from there with other commands, so the same sequences hold other entries.
 */
async function failedOverAt(
  store: MemoryEngineStore<AccountCommand, AccountEvent>,
  keep: bigint,
  newCommands: readonly AccountCommand[],
): Promise<MemoryEngineStore<AccountCommand, AccountEvent>> {
  const image = store.durableImage;
  const promoted = new MemoryEngineStore<AccountCommand, AccountEvent>(
    {},
    {
      journal: image.journal.filter((entry) => entry.sequence <= keep),
      snapshots: image.snapshots.filter((snapshot) => snapshot.sequence <= keep),
      readModels: new Map(),
    },
  );
  const { engine } = await openAccountsEngine(promoted, { clock: () => 1_700_000_100_000 });
  for (const command of newCommands) await engine.submit(command);
  await engine.close();
  return promoted;
}

describe("journal follower: forks", () => {
  async function followed(count: number) {
    const store = memoryStore();
    const { engine } = await openAccountsEngine(store, { limits: { snapshotEveryCommands: 10 } });
    for (const command of scriptedCommands(count)) await engine.submit(command);
    await engine.close();
    const reads = switchable(store);
    const follower = await JournalFollower.start({
      decider: accountsDecider,
      codec: accountsCodec,
      store: reads,
    });
    return { store, reads, follower, end: follower.sequence };
  }
  const otherCommands = (count: number): AccountCommand[] =>
    Array.from({ length: count }, (_, index) => ({ type: "open", accountId: `other-${index}` }));

  it("a journal that now ends before the copy's position is a fork on the next catch-up", async () => {
    const { store, reads, follower, end } = await followed(40);
    reads.target = await failedOverAt(store, end - 6n, otherCommands(3));
    assert.equal(
      await reads.target.lastSequence(),
      end - 3n,
      "the new primary's journal ends before the copy",
    );
    const before = follower.stateHash();
    await assert.rejects(follower.catchUp(), (error: unknown) => {
      assert.ok(error instanceof JournalForkError);
      assert.match(error.message, new RegExp(`ends before sequence ${end}`));
      return true;
    });
    assert.equal(follower.sequence, end, "nothing was folded");
    assert.equal(follower.stateHash(), before);
  });

  it("a journal that holds another entry at the copy's position is a fork, before the new primary passes it", async () => {
    const { store, reads, follower, end } = await followed(40);
    reads.target = await failedOverAt(store, end - 5n, otherCommands(5));
    assert.equal(await reads.target.lastSequence(), end, "exactly as long as the copy: nothing new to read");
    await assert.rejects(follower.catchUp(), JournalForkError);
    reads.target = await failedOverAt(store, end - 5n, otherCommands(9));
    await assert.rejects(follower.catchUp(), JournalForkError);
    assert.equal(follower.sequence, end);
  });

  it("an entry that links to another hash than the copy holds is a fork, and so is one handed over", async () => {
    const { store, reads, follower, end } = await followed(40);
    const promoted = await failedOverAt(store, end - 1n, otherCommands(4));
    // The entry at the copy's position is archived (gone), so only the next entry's link can tell.
    const entries: JournalEntry<AccountCommand, AccountEvent>[] = [];
    for await (const batch of promoted.readJournal(end)) entries.push(...batch);
    reads.target = {
      ...reads.target,
      readJournal: async function* (after: bigint) {
        for await (const batch of promoted.readJournal(after))
          yield batch.filter((entry) => entry.sequence !== end);
      },
      lastSequence: () => promoted.lastSequence(),
    } as AccountsStore;
    await assert.rejects(follower.catchUp(), /Journal fork at sequence/);
    assert.throws(() => follower.foldCommitted(entries), JournalForkError);
    assert.equal(follower.sequence, end);
  });

  it("a journal without hashes that forked is caught when its entry does not apply to the copy", async () => {
    const { store, end } = await followed(12);
    // The same shapes written by a build before the chain: no hashes to compare.
    const promoted = await failedOverAt(store, end - 4n, [
      { type: "open", accountId: "zed" },
      { type: "deposit", accountId: "zed", amount: 5n },
      { type: "deposit", accountId: "zed", amount: 6n },
      { type: "deposit", accountId: "zed", amount: 7n },
      { type: "deposit", accountId: "zed", amount: 8n },
    ]);
    for (const entry of [...store.durableImage.journal, ...promoted.durableImage.journal]) {
      Object.assign(entry, { prevHash: null, hash: null });
    }
    for (const snapshot of [...store.durableImage.snapshots, ...promoted.durableImage.snapshots]) {
      Object.assign(snapshot, { chainHash: null });
    }
    const unhashed = await JournalFollower.start({ decider: accountsDecider, codec: accountsCodec, store });
    assert.equal(unhashed.sequence, end);
    unhashed.useStore(promoted);
    // "zed" was never opened in the copy's history: the deposit does not apply to it.
    await assert.rejects(unhashed.catchUp(), (error: unknown) => {
      assert.ok(error instanceof JournalForkError);
      assert.match(error.message, /does not apply to this copy/);
      return true;
    });
  });

  it("a history that goes on from the copy's position is no fork", async () => {
    const { store, reads, follower, end } = await followed(40);
    reads.target = await failedOverAt(store, end, otherCommands(3));
    assert.equal(await follower.catchUp(), end + 3n);
  });
});
