import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { openDatabase } from "../../../src/store/sqlite/database.js";
import { sharedWalSync } from "../../../src/store/sqlite/wal-sync.js";

const directory = mkdtempSync(join(tmpdir(), "predex-wal-sync-shared-"));
after(() => rmSync(directory, { recursive: true, force: true }));

describe("the connection's shared WAL sync", () => {
  it("serves every store writing on the connection and closes its descriptor with the last one", async () => {
    const db = openDatabase({ path: join(directory, "shared.sqlite") });
    db.exec("CREATE TABLE t (x INTEGER)");
    const engine = sharedWalSync(db);
    const nonces = sharedWalSync(db);
    assert.ok(engine !== undefined && nonces !== undefined);
    db.exec("INSERT INTO t VALUES (1)");
    // Written meanwhile by both: every waiter resolves (the ones during a sync share the next).
    await Promise.all([engine.afterWrite(), nonces.afterWrite(), engine.afterWrite()]);
    await engine.close();
    await assert.rejects(engine.afterWrite(), /closed/);
    // The other store's handle still syncs: the descriptor stays open until its last user closes.
    await nonces.afterWrite();
    await nonces.close();
    await assert.rejects(nonces.afterWrite(), /closed/);
    // A new user after the last close opens a fresh one.
    const again = sharedWalSync(db);
    assert.ok(again !== undefined);
    await again.afterWrite();
    await again.close();
    db.close();
  });

  it("is absent for a database with no WAL file to sync apart", () => {
    const db = openDatabase({ path: ":memory:" });
    assert.equal(sharedWalSync(db), undefined);
    db.close();
  });
});
