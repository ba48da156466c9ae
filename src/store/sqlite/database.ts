// Opens the embedded SQLite store. Every module that keeps tables here brings its own numbered
// migrations and applies them through applyMigrations, so modules never edit a shared schema file.

import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from "node:fs";
import { dirname } from "node:path";
import Database from "better-sqlite3";

export type SqliteDatabase = Database.Database;

export interface OpenOptions {
  /** A file path, or ":memory:" for tests that need no durability. */
  readonly path: string;
}

export function openDatabase({ path }: OpenOptions): SqliteDatabase {
  if (path !== ":memory:") {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    // The database holds secrets (encrypted) and every balance: owner only. SQLite gives the WAL
    // and shared-memory files the database file's mode, so creating it 0600 first covers them.
    closeSync(openSync(path, "a", 0o600));
    restrictToOwner(path);
  }
  const db = new Database(path);
  // WAL lets readers run beside the single writer; synchronous=FULL makes a committed
  // transaction survive power loss, which is what "acknowledged means durable" needs.
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = FULL");
  db.pragma("foreign_keys = ON");
  db.pragma("busy_timeout = 5000");
  // Files an earlier version created with the default umask are narrowed too.
  if (path !== ":memory:") for (const suffix of ["-wal", "-shm"]) restrictToOwner(`${path}${suffix}`);
  db.exec(
    "CREATE TABLE IF NOT EXISTS schema_migrations (module TEXT NOT NULL, version INTEGER NOT NULL, PRIMARY KEY (module, version))",
  );
  return db;
}

/**
 * Applies the migrations of one module that have not run yet, each in its own transaction.
 * `migrations[i]` is version i + 1; append new ones, never edit an applied one.
 */
export function applyMigrations(db: SqliteDatabase, module: string, migrations: readonly string[]): void {
  const applied = new Set(
    db.prepare("SELECT version FROM schema_migrations WHERE module = ?").pluck().all(module) as number[],
  );
  const record = db.prepare("INSERT INTO schema_migrations (module, version) VALUES (?, ?)");
  migrations.forEach((sql, index) => {
    const version = index + 1;
    if (applied.has(version)) return;
    db.transaction(() => {
      db.exec(sql);
      record.run(module, version);
    })();
  });
}

function restrictToOwner(path: string): void {
  if (existsSync(path)) chmodSync(path, 0o600);
}
