import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { hashEncodedState } from "../../src/engine/recovery.js";
import { packEncodedState } from "../../src/engine/snapshot-packing.js";
import type { StateSnapshot } from "../../src/engine/store.js";
import { openDatabase, type SqliteDatabase } from "../../src/store/sqlite/database.js";
import { engineMigrations } from "../../src/store/sqlite/engine-schema.js";
import { SqliteEngineStore } from "../../src/store/sqlite/engine-store.js";
import { PowerCut, withPowerCut } from "../sim/power-cut-database.js";
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
  it("keeps each engine migration's text as databases first ran it", () => {
    // SHA-256 of each text as src/store/sqlite/engine-store.ts held it before the schema moved to
    // engine-schema.ts (issue #32): an applied migration is never edited.
    const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");
    assert.deepEqual(engineMigrations.map(sha256), [
      "942a9eee1c07eb617dd837910db9e635f943fdf0c411c39dca819c8d7a732519",
      "785ccc3d4d170f154c6f65caa968f4cb6003d841e95792834debc24580a64896",
      "e1b0dcb7843606f77d5182b202a21acaaf0127a3cfaeb28e58d4a0beec601594",
    ]);
  });

  it("refuses an asynchronous projector, whose writes would land outside the transaction", async () => {
    const store = storeAt(join(directory, "async-projector.sqlite"));
    const entry = { sequence: 1n, nowMs: 1, command: { type: "noop" }, events: [] };
    await assert.rejects(store.commitBatch([entry], [async () => {}]), /must be synchronous/);
    assert.equal(await store.lastSequence(), 0n);
    (store as SqliteEngineStore<ContractCommand, ContractEvent>).db.close();
  });
});

describe("SQLite engine store: snapshots in chunks", () => {
  const chunkBytes = 1_000;
  const textOf = (label: string) =>
    JSON.stringify({ label, rows: Array.from({ length: 3_000 }, (_, index) => `${label}-${index * 7919}`) });
  const snapshotOf = (sequence: bigint, label: string): StateSnapshot => {
    const state = textOf(label);
    return { sequence, nowMs: Number(sequence), state, hash: hashEncodedState(state) };
  };
  const packed = (snapshot: StateSnapshot) => ({
    sequence: snapshot.sequence,
    nowMs: snapshot.nowMs,
    hash: snapshot.hash,
    packedState: packEncodedState(snapshot.state),
  });
  const chunkRows = (db: SqliteDatabase) =>
    db.prepare("SELECT count(*) FROM snapshot_chunks").pluck().get() as number;
  const namedChunkRows = (db: SqliteDatabase) =>
    db
      .prepare("SELECT count(*) FROM snapshot_chunks WHERE write_id IN (SELECT write_id FROM snapshots)")
      .pluck()
      .get() as number;
  const journal = (count: number) =>
    Array.from({ length: count }, (_, index) => ({
      sequence: BigInt(index + 1),
      nowMs: index + 1,
      command: { type: "noop" },
      events: [],
    }));

  it("survives a power cut at every write of a chunked snapshot: the previous one stays whole", async () => {
    const path = join(directory, "chunk-crash.sqlite");
    const first = new SqliteEngineStore<ContractCommand, ContractEvent>(openDatabase({ path }), {
      snapshotChunkBytes: chunkBytes,
    });
    await first.commitBatch(journal(40), []);
    await first.saveSnapshot(packed(snapshotOf(10n, "ten")));
    first.db.close();

    // The inline form (UTF-8 chunks) and the worker's (packed), each cut at every write boundary
    // of one uncut save of it (chunks, the pointer row, the sweep).
    const next = snapshotOf(20n, "twenty");
    for (const form of [next, packed(next)]) {
      const probe = withPowerCut(openDatabase({ path: join(directory, "chunk-probe.sqlite") }));
      const probeStore = new SqliteEngineStore<ContractCommand, ContractEvent>(probe.db, {
        snapshotChunkBytes: chunkBytes,
      });
      await probeStore.commitBatch(journal(40), []);
      await probeStore.saveSnapshot(packed(snapshotOf(10n, "ten")));
      const before = probe.power.writes;
      await probeStore.saveSnapshot(form);
      const saveWrites = probe.power.writes - before;
      probe.db.close();
      rmSync(join(directory, "chunk-probe.sqlite"), { force: true });
      assert.ok(saveWrites > 4, `the save spans many writes (${saveWrites})`);

      for (let cut = 1; cut <= saveWrites; cut++) {
        const copy = join(directory, `chunk-crash-${cut}.sqlite`);
        const source = openDatabase({ path });
        await source.backup(copy);
        source.close();
        const { db, power } = withPowerCut(openDatabase({ path: copy }));
        const store = new SqliteEngineStore<ContractCommand, ContractEvent>(db, {
          snapshotChunkBytes: chunkBytes,
        });
        power.cutAt(power.writes + cut);
        await assert.rejects(store.saveSnapshot(form), PowerCut);
        db.close();

        const reopened = new SqliteEngineStore<ContractCommand, ContractEvent>(openDatabase({ path: copy }), {
          snapshotChunkBytes: chunkBytes,
        });
        const latest = await reopened.loadLatestSnapshot();
        // Cut before the pointer's commit: the old snapshot; at or after it: the new one, whole.
        assert.ok(
          latest?.sequence === 10n ? latest.state === textOf("ten") : latest?.state === textOf("twenty"),
          `cut ${cut}: the latest snapshot is whole (${latest?.sequence})`,
        );
        assert.equal(latest!.hash, hashEncodedState(latest!.state));
        // The next save sweeps whatever the cut left behind.
        await reopened.saveSnapshot(packed(snapshotOf(30n, "thirty")));
        assert.equal(chunkRows(reopened.db), namedChunkRows(reopened.db), `cut ${cut}: no orphaned chunks`);
        assert.equal((await reopened.loadLatestSnapshot())?.state, textOf("thirty"));
        reopened.db.close();
        rmSync(copy, { force: true });
      }
    }
  });

  it("slices a snapshot's steps by the step clock it is given, not by how fast the machine is", async () => {
    // A counter advancing 1 ms at each look: a step (sqliteSnapshotStepMsMax = 2 ms) writes or sweeps
    // two chunk rows, however long they take; the crash simulation relies on it to replay a seed.
    let stepClockMs = 0;
    const steps: string[] = [];
    const store = new SqliteEngineStore<ContractCommand, ContractEvent>(
      openDatabase({ path: join(directory, "chunk-step-clock.sqlite") }),
      {
        snapshotChunkBytes: chunkBytes,
        stepClock: () => stepClockMs++,
        onSnapshotStep: (step) => steps.push(step),
      },
    );
    await store.commitBatch(journal(40), []);
    const chunksOf = (snapshot: StateSnapshot) => Math.ceil(Buffer.byteLength(snapshot.state) / chunkBytes);
    const saves = [snapshotOf(10n, "ten"), snapshotOf(20n, "twenty"), snapshotOf(30n, "thirty")];
    const expected: string[] = [];
    for (const [index, snapshot] of saves.entries()) {
      steps.length = 0;
      await store.saveSnapshot(snapshot);
      // Two snapshots are kept: the third's row prunes the first, whose chunks the sweep deletes.
      const orphans = index === 2 ? chunksOf(saves[0]!) : 0;
      expected.length = 0;
      for (let step = 0; step < Math.ceil(chunksOf(snapshot) / 2); step++) expected.push("chunks");
      expected.push("pointer");
      for (let step = 0; step < Math.ceil((orphans + 1) / 2); step++) expected.push("sweep");
      assert.deepEqual(steps, expected, `save of ${snapshot.sequence}`);
    }
    assert.ok(chunksOf(saves[0]!) > 10, "a snapshot spans many chunks");
    assert.equal(chunkRows(store.db), namedChunkRows(store.db));
    assert.equal((await store.loadLatestSnapshot())?.state, textOf("thirty"));
    store.db.close();
  });

  it("keeps two snapshots and deletes the chunks of the pruned ones", async () => {
    const store = new SqliteEngineStore<ContractCommand, ContractEvent>(
      openDatabase({ path: join(directory, "chunk-prune.sqlite") }),
      { snapshotChunkBytes: chunkBytes },
    );
    await store.commitBatch(journal(40), []);
    for (const sequence of [10n, 20n, 30n, 40n])
      await store.saveSnapshot(packed(snapshotOf(sequence, `s${sequence}`)));
    await store.saveSnapshot(snapshotOf(40n, "forty again"));
    const sequences = store.db.prepare("SELECT sequence FROM snapshots ORDER BY sequence").pluck().all();
    assert.deepEqual(sequences, [30, 40]);
    assert.equal(chunkRows(store.db), namedChunkRows(store.db));
    assert.ok(chunkRows(store.db) > 2);
    assert.equal((await store.loadLatestSnapshot())?.state, textOf("forty again"));
    // Snapshot steps commit without an fsync; the connection is back to FULL for the engine's batches.
    assert.equal(store.db.pragma("synchronous", { simple: true }), 2);
    store.db.close();
  });

  it("refuses a snapshot whose chunks are missing, and reads one written before chunks existed", async () => {
    const store = new SqliteEngineStore<ContractCommand, ContractEvent>(
      openDatabase({ path: join(directory, "chunk-missing.sqlite") }),
      { snapshotChunkBytes: chunkBytes },
    );
    await store.commitBatch(journal(40), []);
    const legacy = snapshotOf(5n, "legacy");
    store.db
      .prepare("INSERT INTO snapshots (sequence, now_ms, state, hash) VALUES (?, ?, ?, ?)")
      .run(legacy.sequence, legacy.nowMs, legacy.state, legacy.hash);
    assert.deepEqual(await store.loadLatestSnapshot(), legacy);
    await store.saveSnapshot(packed(snapshotOf(10n, "ten")));
    store.db
      .prepare(
        "DELETE FROM snapshot_chunks WHERE chunk = 1 AND write_id = (SELECT write_id FROM snapshots WHERE sequence = 10)",
      )
      .run();
    await assert.rejects(store.loadLatestSnapshot(), { name: "JournalCorruptionError" });
    store.db.close();
  });
});
