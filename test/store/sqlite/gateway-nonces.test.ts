// The SQLite gateway nonce table's own schema: a database written before the table was keyed by
// expiry is carried over whole, so a nonce answered before the upgrade is still refused after it.
// And its durability on a file: a batch is written at synchronous=NORMAL and answered only once an
// fdatasync of the WAL that started after the write has completed (held and failed here by an
// injected fdatasync), while the connection stays at FULL for every other commit.

import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { databaseFaultOf } from "../../../src/store/database-faults.js";
import { openDatabase } from "../../../src/store/sqlite/database.js";
import { createSqliteGatewayNonceStore } from "../../../src/store/sqlite/gateway-nonces.js";
import type { FdatasyncFunction } from "../../../src/store/sqlite/wal-sync.js";
import { waitUntil } from "../../support/wait-until.js";

const directory = mkdtempSync(join(tmpdir(), "predex-gateway-nonces-"));
after(() => rmSync(directory, { recursive: true, force: true }));
let databases = 0;
const fileDatabase = () => {
  databases += 1;
  return openDatabase({ path: join(directory, `nonces-${databases}.db`) });
};

/** An fdatasync the test completes by hand: each call waits in `calls` until done(error?) runs. */
function heldFdatasync() {
  const calls: { fd: number; done: (error: Error | null) => void }[] = [];
  const fdatasync: FdatasyncFunction = (fd, done) => calls.push({ fd, done });
  return { calls, fdatasync };
}

/** Whether a promise has settled, after the microtasks and one turn of the event loop. */
async function settled(answer: unknown): Promise<boolean> {
  let done = false;
  Promise.resolve(answer).then(
    () => (done = true),
    () => (done = true),
  );
  await new Promise((resolve) => setImmediate(resolve));
  await new Promise((resolve) => setImmediate(resolve));
  return done;
}

describe("SQLite gateway nonces", () => {
  it("keeps the live nonces of a table written before it was keyed by expiry", async () => {
    const db = openDatabase({ path: ":memory:" });
    // The table as its first migration made it, with one live and one expired nonce.
    db.exec(`CREATE TABLE gateway_nonces (
       app_key TEXT NOT NULL,
       nonce TEXT NOT NULL,
       expires_at_ms INTEGER NOT NULL,
       PRIMARY KEY (app_key, nonce)
     ) WITHOUT ROWID;
     CREATE INDEX gateway_nonces_by_expiry ON gateway_nonces (expires_at_ms);
     INSERT INTO schema_migrations (module, version) VALUES ('gateway_nonces', 1);
     INSERT INTO gateway_nonces VALUES ('p', 'live', 5000), ('p', 'expired', 900);`);

    const store = createSqliteGatewayNonceStore(db, { windowMs: 4_000, nowMs: () => 1_000 });

    assert.equal(await store.remember("p", "live", 1_000), "replayed");
    assert.equal(await store.remember("p", "expired", 1_000), "fresh");
    const key = db
      .prepare<[], { name: string; pk: number }>("SELECT name, pk FROM pragma_table_info('gateway_nonces')")
      .all()
      .filter((column) => column.pk > 0)
      .sort((left, right) => left.pk - right.pk)
      .map((column) => column.name);
    assert.deepEqual(key, ["expires_at_ms", "app_key", "nonce"]);
    const rows = db
      .prepare("SELECT app_key, nonce, expires_at_ms FROM gateway_nonces ORDER BY 1, 2, 3")
      .all();
    assert.deepEqual(rows, [
      { app_key: "p", nonce: "expired", expires_at_ms: 900 },
      { app_key: "p", nonce: "expired", expires_at_ms: 5_000 },
      { app_key: "p", nonce: "live", expires_at_ms: 5_000 },
    ]);
  });

  it("answers fresh only after a WAL sync that started after the batch was written", async () => {
    const db = fileDatabase();
    const sync = heldFdatasync();
    // No spacing of syncs here (its own tests are below): the next batch is written at once.
    const store = createSqliteGatewayNonceStore(db, {
      windowMs: 60_000,
      fdatasync: sync.fdatasync,
      syncIntervalMsMin: 0,
    });
    const first = store.remember("p", "one", 0);
    const second = store.remember("p", "two", 0);
    assert.equal(await settled(first), false, "not answered before the sync");
    assert.equal(sync.calls.length, 1, "one sync for the batch of two");
    // Written (at NORMAL) before the sync was asked for, and the connection is back at FULL.
    assert.equal(db.prepare("SELECT count(*) FROM gateway_nonces").pluck().get(), 2);
    assert.equal(db.pragma("synchronous", { simple: true }), 2);
    // A nonce of the next turn, written while that sync runs, waits for a sync of its own.
    const third = store.remember("p", "three", 0);
    assert.equal(await settled(third), false);
    assert.equal(sync.calls.length, 1, "the next sync waits for the one under way");
    sync.calls[0]!.done(null);
    assert.deepEqual(await Promise.all([first, second]), ["fresh", "fresh"]);
    assert.equal(await settled(third), false, "the sync under way began before its write");
    assert.equal(sync.calls.length, 2);
    sync.calls[1]!.done(null);
    assert.equal(await third, "fresh");
    assert.equal(await store.remember("p", "one", 1), "replayed");
    await store.close();
    db.close();
  });

  it("gathers the nonces asked while a batch awaits its sync, and writes them in one commit after it", async () => {
    const db = fileDatabase();
    const sync = heldFdatasync();
    const store = createSqliteGatewayNonceStore(db, { windowMs: 60_000, fdatasync: sync.fdatasync });
    const rows = () => db.prepare("SELECT count(*) FROM gateway_nonces").pluck().get();
    const first = store.remember("p", "one", 0);
    assert.equal(await settled(first), false);
    // Three more turns while the first batch's sync is held: none of them commits.
    const later = [];
    for (const nonce of ["two", "three", "four"]) {
      later.push(store.remember("p", nonce, 0));
      assert.equal(await settled(later.at(-1)), false);
    }
    assert.equal(rows(), 1, "nothing written while a batch awaits its sync");
    sync.calls[0]!.done(null);
    assert.equal(await first, "fresh");
    assert.equal(rows(), 4, "the three written together once the sync was done");
    assert.equal(sync.calls.length, 2, "and one sync for them");
    sync.calls[1]!.done(null);
    assert.deepEqual(await Promise.all(later), ["fresh", "fresh", "fresh"]);
    await store.close();
    db.close();
  });

  it("spaces the syncs under concurrency: after a batch of several nonces the next waits the interval", async () => {
    const db = fileDatabase();
    const sync = heldFdatasync();
    const store = createSqliteGatewayNonceStore(db, {
      windowMs: 60_000,
      fdatasync: sync.fdatasync,
      // Far longer than the few turns the checks below take on a loaded machine: at 40 ms a process
      // preempted that long between the first batch's write and the checks saw the next sync start.
      syncIntervalMsMin: 1_000,
    });
    const rows = () => db.prepare("SELECT count(*) FROM gateway_nonces").pluck().get();
    const concurrent = [store.remember("p", "one", 0), store.remember("p", "two", 0)];
    assert.equal(await settled(concurrent[0]), false);
    sync.calls[0]!.done(null);
    assert.deepEqual(await Promise.all(concurrent), ["fresh", "fresh"]);
    // The sync is done and nothing else awaits one, yet the next batch is held back for the rest of
    // the interval, gathering whatever is asked meanwhile.
    const gathered = [store.remember("p", "three", 0)];
    assert.equal(await settled(gathered[0]), false);
    gathered.push(store.remember("p", "four", 0));
    assert.equal(await settled(gathered[1]), false);
    assert.equal(sync.calls.length, 1, "no sync before the interval is over");
    assert.equal(rows(), 2, "and nothing written");
    await waitUntil(() => sync.calls.length === 2, { what: "the interval is over: the next sync" });
    assert.equal(rows(), 4, "the two written together");
    sync.calls[1]!.done(null);
    assert.deepEqual(await Promise.all(gathered), ["fresh", "fresh"]);
    await store.close();
    db.close();
  });

  it("never holds back a lone client's nonce: a batch of one is followed by a sync at once", async () => {
    const db = fileDatabase();
    const sync = heldFdatasync();
    const store = createSqliteGatewayNonceStore(db, {
      windowMs: 60_000,
      fdatasync: sync.fdatasync,
      syncIntervalMsMin: 60_000,
    });
    for (let index = 0; index < 5; index += 1) {
      const answer = store.remember("p", `alone-${index}`, 0);
      assert.equal(await settled(answer), false);
      assert.equal(
        sync.calls.length,
        index + 1,
        "its batch was written and its sync asked for in the next turn",
      );
      sync.calls[index]!.done(null);
      assert.equal(await answer, "fresh");
    }
    await store.close();
    db.close();
  });

  it("writes and syncs the nonces held back by the spacing when it is closed", async () => {
    const db = fileDatabase();
    const store = createSqliteGatewayNonceStore(db, { windowMs: 60_000, syncIntervalMsMin: 60_000 });
    assert.deepEqual(await Promise.all([store.remember("p", "one", 0), store.remember("p", "two", 0)]), [
      "fresh",
      "fresh",
    ]);
    const held = store.remember("p", "three", 0);
    assert.equal(await settled(held), false, "held back by the interval");
    await store.close();
    assert.equal(await held, "fresh");
    assert.equal(db.prepare("SELECT count(*) FROM gateway_nonces").pluck().get(), 3);
    db.close();
  });

  it("refuses the batch when the WAL sync fails, and forgets its nonces so a retry is fresh", async () => {
    const db = fileDatabase();
    const sync = heldFdatasync();
    const store = createSqliteGatewayNonceStore(db, { windowMs: 60_000, fdatasync: sync.fdatasync });
    const failed = store.remember("p", "lost", 0);
    assert.equal(await settled(failed), false);
    sync.calls[0]!.done(Object.assign(new Error("EIO: i/o error, fdatasync"), { code: "EIO" }));
    const error = await Promise.resolve(failed).then(
      () => assert.fail("answered fresh after a failed sync"),
      (failure: unknown) => failure,
    );
    assert.match(String(error), /fdatasync of the SQLite WAL failed: EIO/);
    // Answered as "nothing was done, retry" (the request did not run), as a database fault.
    assert.deepEqual(databaseFaultOf(error)?.outcome, "nothing-done");
    const retried = store.remember("p", "lost", 1);
    assert.equal(await settled(retried), false);
    sync.calls[1]!.done(null);
    assert.equal(await retried, "fresh");
    await store.close();
    db.close();
  });

  it("syncs the WAL file itself, with node's fdatasync by default", async () => {
    const db = fileDatabase();
    const seen: number[] = [];
    const { fdatasync, fstatSync, statSync } = await import("node:fs");
    const store = createSqliteGatewayNonceStore(db, {
      windowMs: 60_000,
      fdatasync: (fd, done) => {
        seen.push(fd);
        fdatasync(fd, done);
      },
    });
    assert.equal(await store.remember("p", "synced", 0), "fresh");
    assert.equal(seen.length, 1);
    assert.equal(fstatSync(seen[0]!).ino, statSync(`${db.name}-wal`).ino, "the descriptor is the WAL's");
    await store.close();
    db.close();
  });
});
