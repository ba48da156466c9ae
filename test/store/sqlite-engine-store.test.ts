import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { openDatabase, type SqliteDatabase } from "../../src/store/sqlite/database.js";
import { SqliteEngineStore } from "../../src/store/sqlite/engine-store.js";
import {
  type ContractCommand,
  type ContractEvent,
  type ContractStore,
  describeEngineStoreContract,
} from "./engine-store-contract.js";

const directory = mkdtempSync(join(tmpdir(), "predex-engine-store-"));
after(() => rmSync(directory, { recursive: true, force: true }));

let fileNumber = 0;
const open = new Set<SqliteDatabase>();
const paths = new WeakMap<ContractStore<SqliteDatabase>, string>();

function storeAt(path: string): ContractStore<SqliteDatabase> {
  const db = openDatabase({ path });
  open.add(db);
  db.exec("CREATE TABLE IF NOT EXISTS contract_projection (sequence INTEGER PRIMARY KEY) STRICT");
  const store = new SqliteEngineStore<ContractCommand, ContractEvent>(db);
  paths.set(store, path);
  return store;
}

describeEngineStoreContract<SqliteDatabase>("sqlite", {
  async create() {
    fileNumber += 1;
    return storeAt(join(directory, `store-${fileNumber}.sqlite`));
  },
  async reopen(store) {
    const db = (store as SqliteEngineStore<ContractCommand, ContractEvent>).db;
    db.close();
    open.delete(db);
    return storeAt(paths.get(store)!);
  },
  recordSequences(db, entries) {
    const insert = db.prepare("INSERT INTO contract_projection (sequence) VALUES (?)");
    for (const entry of entries) insert.run(entry.sequence);
  },
  async readRecordedSequences(store) {
    const db = (store as SqliteEngineStore<ContractCommand, ContractEvent>).db;
    return db
      .prepare<[], bigint>("SELECT sequence FROM contract_projection ORDER BY sequence")
      .pluck()
      .safeIntegers(true)
      .all();
  },
  async disposeAll() {
    for (const db of open) db.close();
    open.clear();
  },
});

describe("SQLite engine store", () => {
  it("refuses an asynchronous projector, whose writes would land outside the transaction", async () => {
    const store = storeAt(join(directory, "async-projector.sqlite"));
    const entry = { sequence: 1n, nowMs: 1, command: { type: "noop" }, events: [] };
    await assert.rejects(store.commitBatch([entry], [async () => {}]), /must be synchronous/);
    assert.equal(await store.lastSequence(), 0n);
    (store as SqliteEngineStore<ContractCommand, ContractEvent>).db.close();
  });
});
