// `predex journal archive`, `predex journal verify` and `predex journal import-archive`.
//
// archive asks the running platform (POST /admin/journal/archive) to move the journal entries
// older than its latest snapshot to the archive now: on SQLite the platform is the only archiver,
// so a manual run and the scheduled one never race over the manifest; on PostgreSQL any node runs
// it (the archive's own lock in the database makes runs take turns).
//
// verify needs no running platform and changes nothing: it opens the database beside it (SQLite's
// WAL lets a reader run next to the platform; with PREDEX_DATABASE_URL, PostgreSQL's journal as a
// reader without a fence, as a standby follows it) and the archive (the directory beside the SQLite
// file; on PostgreSQL the database's own archive table, so it runs from any machine and on any
// restored copy of the database), replays every entry from sequence 1 (archive segments, each
// checked against its sha256, then the live journal, every entry checked against its chain hash)
// and compares the state at the latest snapshot with that snapshot's hash, then replays to the
// journal's end and prints the state hash there.
//
// import-archive (PostgreSQL) copies a directory archive an earlier build wrote
// (PREDEX_JOURNAL_ARCHIVE_DIR) into the database's archive table, each segment checked.

import { existsSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { loadConfig, type PlatformConfig } from "../config.js";
import {
  type ExchangeCommand,
  type ExchangeEvent,
  exchangeDecider,
  exchangeStateCodec,
  stateHash,
} from "../core/exchange.js";
import { DirectoryJournalArchive, type JournalArchive } from "../engine/journal-archive.js";
import { hashEncodedState, initialPosition, replayJournal } from "../engine/recovery.js";
import type { EngineStore } from "../engine/store.js";
import { databaseFileName } from "../server.js";
import { openPostgresPool } from "../store/postgres/database.js";
import { PostgresEngineStore } from "../store/postgres/engine-store.js";
import { importDirectoryArchive, PostgresJournalArchive } from "../store/postgres/journal-archive.js";
import { openDatabase } from "../store/sqlite/database.js";
import { SqliteEngineStore } from "../store/sqlite/engine-store.js";
import { adminConnection } from "./admin.js";

export const journalUsage = `  journal archive [--admin-url URL]
                            move journal entries older than the latest snapshot to the archive now
                            (SQLite: PREDEX_JOURNAL_ARCHIVE_DIR; PostgreSQL: the database's own
                            archive table); the platform also does it every minute
  journal verify            replay archive + journal from sequence 1 and check the state against the
                            latest snapshot's hash (reads the data dir or PREDEX_DATABASE_URL; the
                            platform may be running)
  journal import-archive [DIR]
                            PostgreSQL: copy a directory archive an earlier build wrote (default
                            PREDEX_JOURNAL_ARCHIVE_DIR) into the database's archive table`;

export async function runJournal(args: readonly string[]): Promise<number> {
  const [action, ...rest] = args;
  const { values, positionals } = parseArgs({
    args: rest,
    options: { "admin-url": { type: "string" } },
    allowPositionals: action === "import-archive",
  });
  if (action === "archive") return archiveNow(values["admin-url"]);
  if (action === "verify") return verify();
  if (action === "import-archive") return importArchive(positionals[0]);
  console.error(`predex journal: unknown action "${action ?? ""}"\n\n${journalUsage}`);
  return 2;
}

async function archiveNow(adminUrl: string | undefined): Promise<number> {
  const { url, token } = adminConnection(adminUrl);
  const response = await fetch(new URL("/admin/journal/archive", url), {
    method: "POST",
    headers: { authorization: `Bearer ${token}` },
  });
  const text = await response.text();
  if (response.status !== 200) {
    console.error(`predex journal archive: HTTP ${response.status}: ${text}`);
    return 1;
  }
  console.log(JSON.stringify((JSON.parse(text) as { data: unknown }).data, null, 2));
  return 0;
}

type VerifiedStore = EngineStore<ExchangeCommand, ExchangeEvent, unknown>;

interface VerifiedHistory {
  readonly store: VerifiedStore;
  readonly archive: JournalArchive<ExchangeCommand, ExchangeEvent>;
  close(): Promise<void>;
}

/**
 * The platform's engine store and archive, read only: SQLite's file in the data dir and the archive
 * directory, or PostgreSQL's journal and its archive table.
 */
async function openVerifiedStore(config: PlatformConfig): Promise<VerifiedHistory | string> {
  if (config.databaseUrl !== undefined) {
    const pool = openPostgresPool({ url: config.databaseUrl, applicationName: "predex-journal-verify" });
    try {
      // No fence: a reader, every write would fail.
      const store = await PostgresEngineStore.open<ExchangeCommand, ExchangeEvent>(pool);
      return {
        store,
        archive: new PostgresJournalArchive<ExchangeCommand, ExchangeEvent>(pool),
        close: () => pool.end(),
      };
    } catch (error) {
      await pool.end();
      throw error;
    }
  }
  const path = join(config.dataDir, databaseFileName);
  if (!existsSync(path)) return `no database at ${path}`;
  const db = openDatabase({ path });
  return {
    store: new SqliteEngineStore<ExchangeCommand, ExchangeEvent>(db),
    archive: new DirectoryJournalArchive<ExchangeCommand, ExchangeEvent>(config.journalArchiveDir),
    close: async () => {
      db.close();
    },
  };
}

async function importArchive(directoryArgument: string | undefined): Promise<number> {
  const config = loadConfig();
  if (config.databaseUrl === undefined) {
    console.error(
      "predex journal import-archive: needs PREDEX_DATABASE_URL (on SQLite the archive is a directory already)",
    );
    return 2;
  }
  const directory = directoryArgument ?? config.journalArchiveDir;
  const pool = openPostgresPool({ url: config.databaseUrl, applicationName: "predex-journal-import" });
  try {
    // The engine's migrations make the archive table.
    await PostgresEngineStore.open<ExchangeCommand, ExchangeEvent>(pool);
    const imported = await importDirectoryArchive(pool, directory);
    console.log(
      JSON.stringify({ directory, ...imported, archivedThrough: String(imported.archivedThrough) }, null, 2),
    );
    return 0;
  } catch (error) {
    console.error(`predex journal import-archive: ${(error as Error).message}`);
    return 1;
  } finally {
    await pool.end();
  }
}

async function verify(): Promise<number> {
  const config = loadConfig();
  let opened: Awaited<ReturnType<typeof openVerifiedStore>>;
  try {
    opened = await openVerifiedStore(config);
  } catch (error) {
    console.error(`predex journal verify: ${(error as Error).message}`);
    return 1;
  }
  if (typeof opened === "string") {
    console.error(`predex journal verify: ${opened}`);
    return 1;
  }
  const { store, archive } = opened;
  try {
    const history = archive.history(store);
    const manifest = await archive.readManifest();
    const snapshot = await store.loadLatestSnapshot();
    const lastSequence = await store.lastSequence();
    let position = initialPosition(exchangeDecider);
    let snapshotMatches: boolean | null = null;
    if (snapshot !== undefined) {
      position = await replayJournal(exchangeDecider, history, position, snapshot.sequence);
      snapshotMatches = hashEncodedState(exchangeStateCodec.encode(position.state)) === snapshot.hash;
    }
    position = await replayJournal(exchangeDecider, history, position, lastSequence);
    const report = {
      archive: archive.location,
      archivedThrough: manifest.archivedThrough,
      archiveSegments: manifest.segments.length,
      firstLiveSequence: String(await store.firstSequence!()),
      lastSequence: String(lastSequence),
      snapshotSequence: snapshot === undefined ? null : String(snapshot.sequence),
      snapshotMatches,
      stateHash: stateHash(position.state),
    };
    console.log(JSON.stringify(report, null, 2));
    return snapshotMatches === false ? 1 : 0;
  } catch (error) {
    console.error(`predex journal verify: ${(error as Error).message}`);
    return 1;
  } finally {
    await opened.close();
  }
}
