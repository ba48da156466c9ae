// The SQLite engine store writes a batch at synchronous=NORMAL and resolves its commit after an
// fdatasync of the WAL on the thread pool (src/store/sqlite/engine-store.ts, commitBatch). Between
// the write and the sync the batch is readable on the connection but perhaps not durable: these
// tests hold the sync (an injected fdatasync) and check that nothing shows the batch meanwhile (no
// answer, no committed listener — the realtime feeds and the read-model projection —, no read of
// the engine's state), that the next batch is written behind it (pipelining, bounded), and that a
// failed sync stops the engine with the outcome of its commands unknown.

import assert from "node:assert/strict";
import { fdatasync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { tryAgainLaterOf } from "../../src/api/shared/try-again-later.js";
import type { SubmitResult } from "../../src/engine/engine.js";
import { EngineFatalError, EngineStoppedError } from "../../src/engine/errors.js";
import { openDatabase } from "../../src/store/sqlite/database.js";
import { SqliteEngineStore, sqliteCommitsInFlightMax } from "../../src/store/sqlite/engine-store.js";
import type { FdatasyncFunction } from "../../src/store/sqlite/wal-sync.js";
import type { AccountCommand, AccountEvent } from "./accounts-domain.js";
import { openAccountsEngine } from "./harness.js";

const directory = mkdtempSync(join(tmpdir(), "predex-engine-wal-sync-"));
after(() => rmSync(directory, { recursive: true, force: true }));
let fileNumber = 0;
const nextPath = () => join(directory, `engine-${++fileNumber}.sqlite`);

/** An fdatasync that holds each call until the test lets it run (the real one) or fail. */
function heldFdatasync() {
  const held: { fd: number; done: (error: Error | null) => void }[] = [];
  const sync: FdatasyncFunction = (fd, done) => {
    held.push({ fd, done });
  };
  return {
    sync,
    held,
    release(): Promise<void> {
      const call = held.shift();
      assert.ok(call, "a sync is held");
      return new Promise((resolve) =>
        fdatasync(call.fd, (error) => {
          call.done(error);
          resolve();
        }),
      );
    },
    fail(): void {
      const call = held.shift();
      assert.ok(call, "a sync is held");
      call.done(Object.assign(new Error("EIO: i/o error, fdatasync"), { code: "EIO" }));
    },
  };
}

const turns = async (count: number) => {
  for (let turn = 0; turn < count; turn++) await new Promise((resolve) => setImmediate(resolve));
};

async function until(condition: () => boolean, what: string): Promise<void> {
  for (let turn = 0; turn < 200; turn++) {
    if (condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  assert.fail(`timed out waiting until ${what}`);
}

/** Tracks a promise's settling without awaiting it. */
function track<T>(promise: Promise<T>) {
  const state: { settled: boolean; value?: T; error?: unknown } = { settled: false };
  promise.then(
    (value) => Object.assign(state, { settled: true, value }),
    (error: unknown) => Object.assign(state, { settled: true, error }),
  );
  return state;
}

function open(fdatasyncFunction: FdatasyncFunction) {
  const db = openDatabase({ path: nextPath() });
  const store = new SqliteEngineStore<AccountCommand, AccountEvent>(db, { fdatasync: fdatasyncFunction });
  const journalRows = () => db.prepare("SELECT count(*) FROM journal").pluck().get() as number;
  return { db, store, journalRows };
}

describe("engine on SQLite: the batch's WAL sync off the event loop", () => {
  it("shows no batch (answer, listener, read) before its sync completes, and writes the next behind it", async () => {
    const syncs = heldFdatasync();
    const { db, store, journalRows } = open(syncs.sync);
    assert.equal(store.commitsInFlightMax, sqliteCommitsInFlightMax);
    const { engine, fatalErrors } = await openAccountsEngine(store);
    const committed: bigint[] = [];
    engine.onCommitted((entries) => committed.push(...entries.map((entry) => entry.sequence)));

    const first = track(engine.submit({ type: "open", accountId: "alice" }));
    await until(() => syncs.held.length === 1, "the first batch's sync starts");
    // Written (readable on the connection) but not synced: nothing shows it.
    assert.equal(journalRows(), 1);
    await turns(5);
    assert.equal(first.settled, false, "answered before its sync completed");
    assert.deepEqual(committed, [], "a listener (realtime feed, projection) saw it before its sync");
    assert.equal(engine.committedSequence, 0n);

    // The next batch is decided and written while the first one's sync runs (pipelining) …
    const second = track(engine.submit({ type: "open", accountId: "bob" }));
    await until(() => journalRows() === 2, "the second batch is written behind the first");
    // … and a third waits: two batches in flight at most.
    const third = track(engine.submit({ type: "open", accountId: "carol" }));
    await turns(5);
    assert.equal(journalRows(), 2, "more batches in flight than commitsInFlightMax");
    // A read waits for the committed state: nothing decided may still be committing under it.
    const read = track(engine.read((state, position) => ({ accounts: state.accounts.size, position })));
    await turns(5);
    assert.equal(read.settled, false, "a read saw state whose sync had not completed");

    await syncs.release();
    await until(() => first.settled, "the first answer");
    assert.deepEqual((first.value as SubmitResult<AccountEvent>).ok, true);
    assert.deepEqual(committed, [1n]);
    assert.equal(engine.committedSequence, 1n);
    assert.equal(second.settled, false, "the second batch answered on the first one's sync");
    // The second batch's sync started after the first's ended (one at a time).
    await until(() => syncs.held.length === 1, "the second batch's sync starts");
    await syncs.release();
    await until(() => second.settled, "the second answer");
    assert.deepEqual(committed, [1n, 2n]);
    await until(() => syncs.held.length === 1, "the third batch's sync starts");
    assert.equal(third.settled, false);
    await syncs.release();
    await until(() => third.settled && read.settled, "the third answer and the read");
    assert.deepEqual(committed, [1n, 2n, 3n]);
    assert.equal(fatalErrors.length, 0);
    await engine.close({ snapshot: false });
    await store.close();
    db.close();
  });

  it("a failed sync stops the engine: its commands' outcome is unknown, later ones were never done", async () => {
    const syncs = heldFdatasync();
    const { db, store, journalRows } = open(syncs.sync);
    const { engine, fatalErrors } = await openAccountsEngine(store);
    const committed: bigint[] = [];
    engine.onCommitted((entries) => committed.push(...entries.map((entry) => entry.sequence)));

    const written = track(engine.submit({ type: "open", accountId: "alice" }));
    await until(() => syncs.held.length === 1, "the batch's sync starts");
    const behind = track(engine.submit({ type: "open", accountId: "bob" }));
    await until(() => journalRows() === 2, "the next batch is written behind it");
    syncs.fail();
    await until(() => written.settled && behind.settled, "both batches' commands are answered");

    // Both batches are in the WAL, perhaps on disk: "unknown outcome" (504/2001), never "retry".
    for (const outcome of [written, behind]) {
      assert.ok(outcome.error instanceof EngineFatalError, String(outcome.error));
      assert.equal(tryAgainLaterOf(outcome.error)?.outcome, "unknown");
    }
    assert.equal((written.error as EngineFatalError).origin, "store");
    assert.equal(fatalErrors.length, 1, "the host is told to exit");
    assert.equal(engine.phase, "failed");
    assert.deepEqual(committed, [], "a batch whose sync failed was shown");
    assert.equal(engine.committedSequence, 0n);
    // What comes after was never done: "nothing was done, retry" (502/2002).
    const later = await engine.submit({ type: "open", accountId: "carol" }).then(
      () => undefined,
      (error: unknown) => error,
    );
    assert.ok(later instanceof EngineStoppedError);
    assert.equal(tryAgainLaterOf(later)?.outcome, "nothing-done");
    await engine
      .read(() => undefined)
      .then(
        () => assert.fail("a failed engine served a read"),
        (error: unknown) => assert.ok(error instanceof EngineStoppedError),
      );
    // The second batch's sync started when the first failed; the store's close waits for it.
    while (syncs.held.length > 0) await syncs.release();
    await store.close();
    db.close();
  });
});
