// Backups of the embedded SQLite file, for `predex backup` and `predex restore` (src/cli/backup.ts).
//
// A backup is taken from a RUNNING platform by another process: it opens the file read-only and
// runs SQLite's online backup API. In WAL mode a reader sees one committed transaction and is never
// blocked by the writer, so the copy is a consistent image at a group-commit boundary: journal,
// snapshots and every read model agree. The backup is copied in one step (one read transaction),
// so the engine's commits cannot restart it over and over under load.
//
// A restore needs the platform stopped: a running server holds the file open, and restoring under it
// would swap the data a live engine has in memory. `isDatabaseInUse` asks SQLite itself: an
// exclusive lock cannot be had while any other connection has a WAL database open.

import { chmodSync, existsSync, mkdirSync, renameSync, rmSync } from "node:fs";
import { dirname } from "node:path";
import Database from "better-sqlite3";

/** Pages copied per backup step: more than any predex file holds, so the copy is one step. */
const backupPagesPerStep = 2 ** 30;

export interface BackupSummary {
  /** The last journal sequence inside the copy (0n for a platform that never took a command). */
  readonly journalSequence: bigint;
  readonly bytes: number;
}

/** Copies the database at `sourcePath` (which may be in use) to `targetPath`, consistently. */
export async function backupDatabase(sourcePath: string, targetPath: string): Promise<BackupSummary> {
  if (!existsSync(sourcePath)) throw new BackupError(`no database at ${sourcePath}`);
  if (existsSync(targetPath)) throw new BackupError(`${targetPath} exists; choose a new file`);
  const source = new Database(sourcePath, { readonly: true, fileMustExist: true });
  try {
    source.pragma("busy_timeout = 5000");
    await source.backup(targetPath, { progress: () => backupPagesPerStep });
  } finally {
    source.close();
  }
  // The copy holds everything the database holds (encrypted secrets, hashed sessions): owner only.
  chmodSync(targetPath, 0o600);
  return inspectBackup(targetPath);
}

/** Checks that `path` is an intact predex database and says where its journal ends. */
export function inspectBackup(path: string): BackupSummary {
  if (!existsSync(path)) throw new BackupError(`no backup at ${path}`);
  let db: Database.Database;
  try {
    db = new Database(path, { readonly: true, fileMustExist: true });
  } catch (error) {
    throw new BackupError(`${path} is not a SQLite database: ${(error as Error).message}`);
  }
  try {
    const check = db.pragma("quick_check", { simple: true });
    if (check !== "ok") throw new BackupError(`${path} is damaged: ${String(check)}`);
    const hasJournal = db
      .prepare("SELECT count(*) AS count FROM sqlite_master WHERE type = 'table' AND name = 'journal'")
      .get() as { count: number };
    if (hasJournal.count !== 1) throw new BackupError(`${path} is not a predex database (no journal)`);
    const sequence = db
      .prepare<[], bigint>("SELECT coalesce(max(sequence), 0) FROM journal")
      .pluck()
      .safeIntegers(true)
      .get()!;
    const pages = db.pragma("page_count", { simple: true }) as number;
    const pageSize = db.pragma("page_size", { simple: true }) as number;
    return { journalSequence: sequence, bytes: pages * pageSize };
  } catch (error) {
    if (error instanceof BackupError) throw error;
    throw new BackupError(`${path} cannot be read: ${(error as Error).message}`);
  } finally {
    db.close();
  }
}

/** True while another connection (a running platform) has the database open. */
export function isDatabaseInUse(path: string): boolean {
  if (!existsSync(path)) return false;
  const db = new Database(path, { fileMustExist: true });
  try {
    db.pragma("busy_timeout = 0");
    db.pragma("locking_mode = EXCLUSIVE");
    db.exec("BEGIN EXCLUSIVE");
    db.exec("COMMIT");
    return false;
  } catch (error) {
    if ((error as { code?: string }).code?.startsWith("SQLITE_BUSY")) return true;
    throw error;
  } finally {
    db.close();
  }
}

/**
 * Replaces the database at `targetPath` with the backup at `backupPath` (the platform stopped).
 * The database it replaces is kept beside it as `<target>.before-restore-<time>`; stale WAL files
 * are removed so SQLite cannot replay them over the restored pages.
 */
export async function restoreDatabase(
  backupPath: string,
  targetPath: string,
  nowMs: number,
): Promise<{ summary: BackupSummary; previousPath: string | undefined }> {
  const summary = inspectBackup(backupPath);
  if (isDatabaseInUse(targetPath)) {
    throw new BackupError("the platform is running on this data directory; stop it before restoring");
  }
  let previousPath: string | undefined;
  if (existsSync(targetPath)) {
    previousPath = `${targetPath}.before-restore-${new Date(nowMs).toISOString().replace(/[:.]/g, "-")}`;
    renameSync(targetPath, previousPath);
  }
  for (const suffix of ["-wal", "-shm"]) rmSync(`${targetPath}${suffix}`, { force: true });
  mkdirSync(dirname(targetPath), { recursive: true, mode: 0o700 });
  // Copied through the backup API as well: the result is a clean database file without WAL frames.
  const source = new Database(backupPath, { readonly: true, fileMustExist: true });
  try {
    await source.backup(targetPath, { progress: () => backupPagesPerStep });
  } finally {
    source.close();
  }
  chmodSync(targetPath, 0o600);
  return { summary, previousPath };
}

export class BackupError extends Error {
  override name = "BackupError";
}
