// `predex journal archive` and `predex journal verify`.
//
// archive asks the running platform (POST /admin/journal/archive) to move the journal entries
// older than its latest snapshot to the archive now: the platform is the only archiver, so a
// manual run and the scheduled one never race over the manifest.
//
// verify needs no running platform and changes nothing: it opens the database beside it (SQLite's
// WAL lets a reader run next to the platform; with PREDEX_DATABASE_URL, PostgreSQL's journal as a
// reader without a fence, as a standby follows it) and the archive directory, replays every entry from
// sequence 1 (archive segments, each checked against its sha256, then the live journal) and
// compares the state at the latest snapshot with that snapshot's hash, then replays to the
// journal's end and prints the state hash there.

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
import { JournalArchive } from "../engine/journal-archive.js";
import { hashEncodedState, initialPosition, replayJournal } from "../engine/recovery.js";
import type { EngineStore } from "../engine/store.js";
import { databaseFileName } from "../server.js";
import { openPostgresPool } from "../store/postgres/database.js";
import { PostgresEngineStore } from "../store/postgres/engine-store.js";
import { openDatabase } from "../store/sqlite/database.js";
import { SqliteEngineStore } from "../store/sqlite/engine-store.js";
import { adminConnection } from "./admin.js";

export const journalUsage = `  journal archive [--admin-url URL]
                            move journal entries older than the latest snapshot to the archive
                            (PREDEX_JOURNAL_ARCHIVE_DIR) now; the platform also does it every minute
  journal verify            replay archive + journal from sequence 1 and check the state against the
                            latest snapshot's hash (reads the data dir; the platform may be running)`;

export async function runJournal(args: readonly string[]): Promise<number> {
  const [action, ...rest] = args;
  const { values } = parseArgs({ args: rest, options: { "admin-url": { type: "string" } } });
  if (action === "archive") return archiveNow(values["admin-url"]);
  if (action === "verify") return verify();
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

/** The platform's engine store, read only: SQLite's file in the data dir, or PostgreSQL's journal. */
async function openVerifiedStore(
  config: PlatformConfig,
): Promise<{ store: VerifiedStore; close(): Promise<void> } | string> {
  if (config.databaseUrl !== undefined) {
    const pool = openPostgresPool({ url: config.databaseUrl, applicationName: "predex-journal-verify" });
    try {
      // No fence: a reader, every write would fail.
      const store = await PostgresEngineStore.open<ExchangeCommand, ExchangeEvent>(pool);
      return { store, close: () => pool.end() };
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
    close: async () => {
      db.close();
    },
  };
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
  const { store } = opened;
  try {
    const archive = new JournalArchive<ExchangeCommand, ExchangeEvent>(config.journalArchiveDir);
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
