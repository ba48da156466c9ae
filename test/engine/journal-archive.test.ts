// The journal archive on the platform's own exchange host: entries older than the latest snapshot
// leave the database for checksummed segments, the whole history still replays from sequence 1
// to the running engine's state hash, a restart recovers without reading the archive, and a
// corrupted segment is refused.

import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { pino } from "pino";
import {
  type ExchangeCommand,
  type ExchangeEvent,
  exchangeDecider,
  stateHash,
} from "../../src/core/exchange.js";
import { JournalCorruptionError } from "../../src/engine/errors.js";
import { initialPosition, replayJournal } from "../../src/engine/recovery.js";
import { openExchangeHost } from "../../src/exchange/exchange-host.js";
import { openDatabase } from "../../src/store/sqlite/database.js";
import { SqliteEngineStore } from "../../src/store/sqlite/engine-store.js";
import { CommandStream } from "../sim/command-stream.js";

const directory = mkdtempSync(join(tmpdir(), "predex-archive-"));
after(() => rmSync(directory, { recursive: true, force: true }));

async function openHost(path: string, archiveDir: string, clock: () => number) {
  const db = openDatabase({ path });
  const host = await openExchangeHost({
    db,
    clock,
    logger: pino({ level: "silent" }),
    journalArchiveDir: archiveDir,
    limits: { snapshotEveryCommands: 50 },
    onFatal: (error) => {
      throw error;
    },
  });
  return { db, host };
}

describe("journal archive", () => {
  it("archives through the latest snapshot and still replays archive + journal to the running engine's state", async () => {
    const path = join(directory, "predex.db");
    const archiveDir = join(directory, "archive");
    let nowMs = 1_800_000_000_000;
    const clock = () => (nowMs += 250);
    const { db, host } = await openHost(path, archiveDir, clock);
    const stream = new CommandStream(5);
    for (let group = 0; group < 120; group++) {
      const commands = await host.engine.read((state) => stream.next(state, nowMs, 4));
      await Promise.all(commands.map((command) => host.engine.submit(command)));
    }
    // Snapshots are encoded on the worker thread while the engine goes on: wait for one.
    for (let waited = 0; host.engine.snapshotSequence <= 100n && waited < 30_000; waited += 20) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.ok(
      host.engine.snapshotSequence > 100n,
      `snapshots were written (${host.engine.snapshotSequence})`,
    );
    const run = await host.journalArchiver!.runNow();
    // Through the snapshot the run started from (the worker may have written a newer one since),
    // except the journal's last entry, which always stays: when the engine was idle long enough for
    // the snapshot to be taken at the journal's end, the run stops one short of it.
    const snapshotThrough = BigInt(run.snapshotSequence);
    const lastKept = BigInt(run.committedSequence) - 1n;
    assert.equal(BigInt(run.archivedThrough), snapshotThrough < lastKept ? snapshotThrough : lastKept);
    assert.ok(run.archivedEntries > 100 && run.segments > 0);
    const store = new SqliteEngineStore<ExchangeCommand, ExchangeEvent>(db);
    assert.equal(
      await store.firstSequence(),
      BigInt(run.archivedThrough) + 1n,
      "archived rows left the journal",
    );

    // Archive + live journal from sequence 1 rebuild exactly the running engine's state.
    const verification = await host.engine.verifyReplay();
    assert.ok(verification.identical);
    const history = host.journalArchiver!.archive.history(store);
    const replayed = await replayJournal(
      exchangeDecider,
      history,
      initialPosition(exchangeDecider),
      host.engine.committedSequence,
    );
    const live = await host.engine.read((state) => stateHash(state));
    assert.equal(stateHash(replayed.state), live);

    // A restart recovers from the snapshot and the journal after it, without the archive.
    await host.close();
    db.close();
    rmSync(join(directory, "moved-away"), { recursive: true, force: true });
    const reopened = await openHost(path, join(directory, "moved-away"), clock);
    assert.equal(await reopened.host.engine.read((state) => stateHash(state)), live);
    await reopened.host.close();
    reopened.db.close();

    // A segment that does not match its sha256 is refused on read.
    const segment = readdirSync(archiveDir).find((name) => name.endsWith(".br"))!;
    const bytes = readFileSync(join(archiveDir, segment));
    bytes[bytes.length - 1] = bytes[bytes.length - 1]! ^ 0xff;
    writeFileSync(join(archiveDir, segment), bytes);
    const tampered = host.journalArchiver!.archive;
    await assert.rejects(async () => {
      for await (const _ of tampered.readArchived(0n)) {
        // reading is enough
      }
    }, JournalCorruptionError);
  });

  it("refuses to delete journal entries after the latest snapshot", async () => {
    const db = openDatabase({ path: ":memory:" });
    const store = new SqliteEngineStore(db);
    await assert.rejects(store.deleteJournalThrough(1n), /still needed/);
    db.close();
  });
});
