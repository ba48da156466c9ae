// One journal archive for the cluster (src/store/postgres/journal-archive.ts): engine node A leads
// and archives; B takes over and archives on from where A stopped (each node used to archive into
// its own directory, and B failed every minute with "Journal ends before sequence …"); any node,
// leader or not, archives on request; `predex journal verify` in a third process with no archive of
// its own replays from sequence 1 and matches the snapshot and the leader's state; and so does it
// on copies of the database: pg_dump into a new database, and pg_basebackup into a new cluster
// (a streaming replica promoted). Segments are written in the same transaction as the rows they
// replace are deleted: nothing is ever in both, or in neither. A directory archive an earlier build
// wrote is imported with `predex journal import-archive`.

import assert from "node:assert/strict";
import { execFile as execFileCallback } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import { pino } from "pino";
import {
  type ExchangeCommand,
  type ExchangeEvent,
  exchangeDecider,
  exchangeStateCodec,
  stateHash,
} from "../../src/core/exchange.js";
import { Engine } from "../../src/engine/engine.js";
import { DirectoryJournalArchive } from "../../src/engine/journal-archive.js";
import type { JournalEntry } from "../../src/engine/store.js";
import { openPostgresPool, type PostgresPool } from "../../src/store/postgres/database.js";
import { PostgresEngineStore } from "../../src/store/postgres/engine-store.js";
import {
  PostgresJournalArchive,
  postgresJournalArchiveLocation,
} from "../../src/store/postgres/journal-archive.js";
import { openDatabase } from "../../src/store/sqlite/database.js";
import { SqliteEngineStore } from "../../src/store/sqlite/engine-store.js";
import { type EngineNode, type LeaderState, startEngineNode } from "../../src/topology/engine-node.js";
import { testMasterKeyHex } from "../e2e/harness.js";
import {
  findPostgresBinaries,
  type PostgresCluster,
  postgresSkipReason,
  startPostgresCluster,
  waitForReplay,
} from "../support/postgres-cluster.js";

const execFile = promisify(execFileCallback);
const skipReason = postgresSkipReason();
const masterKey = Buffer.from(testMasterKeyHex, "hex");
const silent = pino({ level: "silent" });
const cliEntry = join(import.meta.dirname, "../../src/cli/main.ts");
const snapshotEveryCommands = 20;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface VerifyReport {
  archive: string;
  archivedThrough: string;
  archiveSegments: number;
  firstLiveSequence: string;
  lastSequence: string;
  snapshotSequence: string | null;
  snapshotMatches: boolean | null;
  stateHash: string;
}

/** `predex journal verify` in a process of its own, with a data dir that holds no archive. */
async function verifyFromElsewhere(url: string): Promise<VerifyReport> {
  const dataDir = mkdtempSync(join(tmpdir(), "predex-verify-elsewhere-"));
  try {
    const { stdout } = await execFile(process.execPath, ["--import", "tsx", cliEntry, "journal", "verify"], {
      env: { ...process.env, PREDEX_DATA_DIR: dataDir, PREDEX_DATABASE_URL: url },
    });
    return JSON.parse(stdout) as VerifyReport;
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

describe("one journal archive for the cluster, in PostgreSQL", { skip: skipReason }, () => {
  let cluster: PostgresCluster;
  const cleanups: (() => Promise<void>)[] = [];

  before(async () => {
    cluster = await startPostgresCluster();
  });
  after(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
    await cluster?.stop();
  });

  async function engineNode(url: string): Promise<EngineNode> {
    const node = await startEngineNode({
      databaseUrl: url,
      topology: {
        engineHost: "127.0.0.1",
        enginePort: 0,
        engineAdvertiseHost: "127.0.0.1",
        leaseMs: 5_000,
        failoverDeadlineMs: 10_000,
      },
      masterKey,
      logger: silent,
      openProjectors: async () => ({ projectors: [], close: async () => {} }),
      limits: { snapshotEveryCommands },
      pollEveryMs: 100,
      onFatal: () => {},
    });
    cleanups.push(() => node.close());
    return node;
  }

  /**
   * `count` deposits through the leader, then more (one at a time: a snapshot is only started
   * after a commit) until its latest snapshot is within `snapshotEveryCommands` of the end.
   */
  async function depositAndSnapshot(leader: LeaderState, count: number, tag: string): Promise<void> {
    const deposit = async (index: number) => {
      const result = await leader.engine.submit({
        type: "Deposit",
        userId: 1 + (index % 3),
        amount: BigInt(index + 1) * 1_00000000n,
        txHash: `0x${tag}-${index}`,
      });
      assert.ok(result.ok);
    };
    for (let index = 0; index < count; index++) await deposit(index);
    const target = leader.engine.committedSequence - BigInt(snapshotEveryCommands);
    for (let extra = count; leader.engine.snapshotSequence < target; extra++) {
      assert.ok(extra < count + 500, "a snapshot was written");
      await sleep(50);
      await deposit(extra);
    }
  }

  async function journalBounds(pool: PostgresPool): Promise<{ first: bigint; last: bigint }> {
    const row = (
      await pool.query<{ first: bigint; last: bigint }>(
        "SELECT min(sequence)::bigint AS first, max(sequence)::bigint AS last FROM engine_journal",
      )
    ).rows[0]!;
    return row;
  }

  it("A archives, B takes over and archives on, any node archives on request, and verify passes from a third process and on copies of the database", async () => {
    const url = await cluster.createDatabase("archive_nodes");
    const pool = openPostgresPool({ url, applicationName: "predex-test", poolConnectionsMax: 2 });
    cleanups.push(() => pool.end());

    const nodeA = await engineNode(url);
    const leaderA = await nodeA.leading;
    await depositAndSnapshot(leaderA, 50, "a");
    const runA = await leaderA.journalArchiver.runNow();
    assert.ok(runA.archivedEntries > 0, "A archived");
    assert.equal(runA.directory, postgresJournalArchiveLocation);
    assert.equal(runA.archivedThrough, runA.snapshotSequence, "through A's latest snapshot");
    assert.equal(
      (await journalBounds(pool)).first,
      BigInt(runA.archivedThrough) + 1n,
      "and deleted from the journal",
    );

    // B takes over; its archive is the same table, so it goes on where A stopped.
    const nodeB = await engineNode(url);
    await nodeA.close();
    const leaderB = await nodeB.leading;
    await depositAndSnapshot(leaderB, 50, "b");
    const runB = await leaderB.journalArchiver.runNow();
    assert.ok(runB.archivedEntries > 0, "B archived");
    assert.ok(BigInt(runB.archivedThrough) > BigInt(runA.archivedThrough));
    assert.equal(runB.segments, 2, "one run of segments: A's, then B's");

    // A node that does not lead archives on request too (here: nothing new, B just did).
    const elsewhere = new PostgresJournalArchive<ExchangeCommand, ExchangeEvent>(pool);
    const reader = await PostgresEngineStore.open<ExchangeCommand, ExchangeEvent>(pool);
    await depositAndSnapshot(leaderB, 30, "c");
    const step = await elsewhere.archiveStep(reader, 2n ** 62n);
    assert.ok(step.archivedEntries > 0, "archived from outside the leader, bounded by the latest snapshot");
    assert.ok(step.archivedThrough <= leaderB.engine.snapshotSequence);
    assert.ok(step.archivedThrough < (await journalBounds(pool)).last);
    const manifest = await elsewhere.readManifest();
    assert.deepEqual(
      manifest.segments.map((segment) => [segment.firstSequence, segment.lastSequence]),
      [
        ["1", runA.archivedThrough],
        [String(BigInt(runA.archivedThrough) + 1n), runB.archivedThrough],
        [String(BigInt(runB.archivedThrough) + 1n), String(step.archivedThrough)],
      ],
    );
    // Everything is archived or live, once: the live journal starts right after the archive.
    assert.equal((await journalBounds(pool)).first, step.archivedThrough + 1n);

    // The leader's state, as the verify's replay should find it.
    const live = await leaderB.engine.read((state, position) => ({
      sequence: position.sequence,
      hash: stateHash(state),
    }));

    const report = await verifyFromElsewhere(url);
    assert.equal(report.archive, postgresJournalArchiveLocation);
    assert.equal(report.archiveSegments, 3);
    assert.equal(report.snapshotMatches, true);
    assert.equal(report.lastSequence, String(live.sequence));
    assert.equal(report.stateHash, live.hash);

    // A copy by pg_dump, restored into a new database: the archive came with it.
    const binaries = findPostgresBinaries()!;
    const dumpDir = mkdtempSync(join(tmpdir(), "predex-dump-"));
    cleanups.push(async () => rmSync(dumpDir, { recursive: true, force: true }));
    const dumpFile = join(dumpDir, "archive_nodes.dump");
    await execFile(join(binaries.directory, "pg_dump"), ["--format=custom", `--file=${dumpFile}`, url]);
    const restoredUrl = await cluster.createDatabase("archive_nodes_restored");
    await execFile(join(binaries.directory, "pg_restore"), [
      "--exit-on-error",
      `--dbname=${restoredUrl}`,
      dumpFile,
    ]);
    const restored = await verifyFromElsewhere(restoredUrl);
    assert.equal(restored.snapshotMatches, true);
    assert.equal(restored.archiveSegments, 3);
    assert.equal(restored.stateHash, live.hash);

    // A copy by pg_basebackup, in a new cluster (a replica, promoted).
    const replica = await cluster.startReplica({ name: "archive_copy" });
    cleanups.push(() => replica.stop());
    await waitForReplay(url, replica);
    await replica.promote();
    const copied = await verifyFromElsewhere(replica.urlOf("archive_nodes"));
    assert.equal(copied.snapshotMatches, true);
    assert.equal(copied.stateHash, live.hash);
  });

  it("a directory archive an earlier build wrote is refused until imported, then replays from sequence 1", async () => {
    // An embedded deployment's journal with an archive directory: the shape an earlier PostgreSQL
    // build also left (segments on one node's disk, the journal starting after them).
    const work = mkdtempSync(join(tmpdir(), "predex-import-"));
    cleanups.push(async () => rmSync(work, { recursive: true, force: true }));
    const archiveDir = join(work, "journal-archive");
    const db = openDatabase({ path: join(work, "predex.db") });
    const sqlite = new SqliteEngineStore<ExchangeCommand, ExchangeEvent>(db);
    const engine = await Engine.open({
      decider: exchangeDecider,
      codec: exchangeStateCodec,
      store: sqlite,
      limits: { snapshotEveryCommands },
      onFatal: (error) => {
        throw error;
      },
    });
    for (let index = 0; index < 45; index++) {
      await engine.submit({ type: "Deposit", userId: 1, amount: 1_00000000n, txHash: `0xold-${index}` });
    }
    await engine.close();
    const directory = new DirectoryJournalArchive<ExchangeCommand, ExchangeEvent>(archiveDir, {
      segmentEntriesMax: 15,
    });
    while ((await directory.archiveStep(sqlite, engine.snapshotSequence)).archivedEntries > 0) {}
    const archivedThrough = BigInt((await directory.readManifest()).archivedThrough);
    assert.ok(archivedThrough >= 30n);

    // The same journal and snapshot in PostgreSQL, without the archived entries.
    const url = await cluster.createDatabase("archive_import");
    const pool = openPostgresPool({ url, applicationName: "predex-test", poolConnectionsMax: 2 });
    cleanups.push(() => pool.end());
    await PostgresEngineStore.open(pool);
    await pool.query("UPDATE engine_leader SET epoch = 1");
    const writer = await PostgresEngineStore.open<ExchangeCommand, ExchangeEvent>(pool, { epoch: 1n });
    const live: JournalEntry<ExchangeCommand, ExchangeEvent>[] = [];
    for await (const batch of sqlite.readJournal(archivedThrough)) live.push(...batch);
    // The guard refuses a first row whose predecessor is missing: this journal starts after the
    // archived stretch, as it did when the old build deleted it. Seeded with the guard off.
    await pool.query("ALTER TABLE engine_journal DISABLE TRIGGER engine_journal_guard");
    await writer.commitBatch(live, []);
    await pool.query("ALTER TABLE engine_journal ENABLE TRIGGER engine_journal_guard");
    await writer.saveSnapshot((await sqlite.loadLatestSnapshot())!);
    db.close();

    // Before the import the archive refuses, naming the remedy; verify cannot replay from 1.
    const archive = new PostgresJournalArchive<ExchangeCommand, ExchangeEvent>(pool);
    await assert.rejects(archive.archiveStep(writer, 2n ** 62n), /predex journal import-archive/);

    const { stdout } = await execFile(
      process.execPath,
      ["--import", "tsx", cliEntry, "journal", "import-archive", archiveDir],
      { env: { ...process.env, PREDEX_DATA_DIR: work, PREDEX_DATABASE_URL: url } },
    );
    const imported = JSON.parse(stdout) as {
      imported: number;
      alreadyThere: number;
      archivedThrough: string;
    };
    assert.equal(imported.archivedThrough, String(archivedThrough));
    assert.ok(imported.imported >= 2);
    // Importing again changes nothing.
    const again = await execFile(
      process.execPath,
      ["--import", "tsx", cliEntry, "journal", "import-archive", archiveDir],
      { env: { ...process.env, PREDEX_DATA_DIR: work, PREDEX_DATABASE_URL: url } },
    );
    assert.equal(JSON.parse(again.stdout).imported, 0);

    const report = await verifyFromElsewhere(url);
    assert.equal(report.archivedThrough, String(archivedThrough));
    assert.equal(report.snapshotMatches, true);
    assert.equal(report.lastSequence, "45");
  });
});
