// The WAL checkpointer (src/store/sqlite/wal-checkpointer.ts): the engine's connection stops
// checkpointing, a worker thread's connection does it instead while the writer goes on, and a
// failed worker hands checkpoints back to the connection.

import assert from "node:assert/strict";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { openDatabase } from "../../../src/store/sqlite/database.js";
import { startWalCheckpointer } from "../../../src/store/sqlite/wal-checkpointer.js";
import { waitUntil } from "../../support/wait-until.js";

const directory = mkdtempSync(join(tmpdir(), "predex-wal-checkpointer-"));
after(() => rmSync(directory, { recursive: true, force: true }));

const blob = Buffer.alloc(64 * 1024, 1);

function writeMegabytes(db: ReturnType<typeof openDatabase>, megabytes: number): void {
  db.exec("CREATE TABLE IF NOT EXISTS rows (id INTEGER PRIMARY KEY, bytes BLOB NOT NULL) STRICT");
  const insert = db.prepare("INSERT INTO rows (bytes) VALUES (?)");
  for (let index = 0; index < megabytes * 16; index++) db.transaction(() => insert.run(blob))();
}

describe("WAL checkpointer", () => {
  it("checkpoints on its own thread while the connection never does", async () => {
    const path = join(directory, "checkpointed.sqlite");
    const db = openDatabase({ path });
    const checkpointer = startWalCheckpointer(db, path, { intervalMs: 20 });
    assert.equal(db.pragma("wal_autocheckpoint", { simple: true }), 0);
    writeMegabytes(db, 4);
    // The pages reach the database file only through a checkpoint, and the connection does none.
    await waitUntil(() => statSync(path).size > 3 * 1024 * 1024, { what: "the worker checkpointed" });
    await checkpointer.stop();
    assert.equal(db.pragma("wal_autocheckpoint", { simple: true }), 1000, "the connection checkpoints again");
    db.close();
  });

  it("without it (the control), a connection that does not checkpoint leaves the pages in the log", async () => {
    const path = join(directory, "control.sqlite");
    const db = openDatabase({ path });
    db.pragma("wal_autocheckpoint = 0");
    writeMegabytes(db, 4);
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.ok(statSync(path).size < 1024 * 1024, `database file ${statSync(path).size} bytes`);
    assert.ok(statSync(`${path}-wal`).size > 3 * 1024 * 1024);
    db.close();
  });

  it("hands checkpoints back to the connection when its worker fails", async () => {
    const path = join(directory, "failing.sqlite");
    const db = openDatabase({ path });
    const errors: Error[] = [];
    const checkpointer = startWalCheckpointer(db, join(directory, "no-such-file.sqlite"), {
      onError: (error) => errors.push(error),
    });
    await waitUntil(() => errors.length > 0, { what: "the failure is reported" });
    assert.equal(db.pragma("wal_autocheckpoint", { simple: true }), 1000);
    await checkpointer.stop();
    db.close();
  });
});
