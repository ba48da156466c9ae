// `predex backup FILE` and `predex restore FILE` (src/store/sqlite/backup.ts does the work).
//
// backup runs beside a running platform (or a stopped one): it reads the data directory's SQLite
// file through SQLite's online backup and writes FILE. The master key is NOT in the database: a
// backup without its key cannot decrypt the partners' APP Secrets, webhook secrets or MFA secrets.
// When the key lives in the data directory (the demo, development), it is copied to
// FILE.master.key beside the backup; when it comes from PREDEX_MASTER_KEY (production), the
// operator keeps it, once, in their secret store, and the backup files alone reveal nothing.
//
// restore needs the platform stopped (it refuses while a process has the database open), keeps the
// database it replaces beside it, and puts FILE.master.key back when the backup has one.

import { copyFileSync, existsSync, readFileSync, renameSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { loadConfig } from "../config.js";
import { databaseFileName, masterKeyFileName } from "../server.js";
import { BackupError, backupDatabase, restoreDatabase } from "../store/sqlite/backup.js";

export const backupUsage = `  backup FILE               copy the running platform's database to FILE (consistent, online);
                            a master key kept in the data dir is copied to FILE.master.key
  restore FILE              put a backup back into PREDEX_DATA_DIR (the platform must be stopped;
                            the database it replaces is kept as predex.db.before-restore-<time>)`;

/** The file beside a backup that holds the data dir's master key, when the key lives there. */
export function backupMasterKeyPath(backupPath: string): string {
  return `${backupPath}.master.key`;
}

/**
 * On PostgreSQL there is no SQLite file to copy: the database's own tools back it up (and a restore
 * here would silently put back a file nobody reads).
 */
function refuseOnPostgres(command: "backup" | "restore", databaseUrl: string | undefined): boolean {
  if (databaseUrl === undefined) return false;
  console.error(
    `predex ${command}: PREDEX_DATABASE_URL is set, so the platform's data is in PostgreSQL, not in a SQLite file. Use PostgreSQL's tools: pg_basebackup with WAL archiving for point-in-time recovery (docs/deployment.md, "Backups and point-in-time recovery").`,
  );
  return true;
}

export async function runBackup(args: readonly string[]): Promise<number> {
  const file = onlyFile(args, "backup");
  if (file === undefined) return 2;
  const config = loadConfig();
  if (refuseOnPostgres("backup", config.databaseUrl)) return 2;
  try {
    const summary = await backupDatabase(join(config.dataDir, databaseFileName), file);
    console.log(
      `backup written to ${file} (${summary.bytes} bytes, journal up to sequence ${summary.journalSequence})`,
    );
  } catch (error) {
    return fail(error);
  }
  const keyInDataDir = join(config.dataDir, masterKeyFileName);
  if (config.masterKey === undefined && existsSync(keyInDataDir)) {
    copyFileSync(keyInDataDir, backupMasterKeyPath(file));
    console.log(
      `master key copied to ${backupMasterKeyPath(file)}: whoever holds both files holds the partners' secrets; store them apart`,
    );
  } else {
    console.log(
      "the master key (PREDEX_MASTER_KEY) is not in the backup: keep it in your secret store; without it the backup's secrets cannot be read",
    );
  }
  return 0;
}

export async function runRestore(args: readonly string[]): Promise<number> {
  const file = onlyFile(args, "restore");
  if (file === undefined) return 2;
  const config = loadConfig();
  if (refuseOnPostgres("restore", config.databaseUrl)) return 2;
  let restored: Awaited<ReturnType<typeof restoreDatabase>>;
  try {
    restored = await restoreDatabase(file, join(config.dataDir, databaseFileName), Date.now());
  } catch (error) {
    return fail(error);
  }
  if (restored.previousPath !== undefined)
    console.log(`the database it replaces is kept as ${restored.previousPath}`);
  const keyBackup = backupMasterKeyPath(file);
  const keyInDataDir = join(config.dataDir, masterKeyFileName);
  if (existsSync(keyBackup)) {
    if (config.masterKey !== undefined) {
      console.log(
        `PREDEX_MASTER_KEY is set and wins over ${keyBackup}: it must be the key the backup was made with`,
      );
    } else {
      const sameKey = existsSync(keyInDataDir) && readFileSync(keyInDataDir).equals(readFileSync(keyBackup));
      if (!sameKey) {
        if (existsSync(keyInDataDir))
          renameSync(keyInDataDir, `${restored.previousPath ?? keyInDataDir}.master.key`);
        copyFileSync(keyBackup, keyInDataDir);
        console.log(`master key restored from ${keyBackup}`);
      }
    }
  } else if (config.masterKey === undefined) {
    console.log(
      "this backup has no master key beside it: set PREDEX_MASTER_KEY to the key it was made with before starting",
    );
  }
  console.log(
    `restored ${file} into ${config.dataDir} (journal up to sequence ${restored.summary.journalSequence})`,
  );
  return 0;
}

function onlyFile(args: readonly string[], command: string): string | undefined {
  const { positionals } = parseArgs({ args: [...args], allowPositionals: true, options: {} });
  if (positionals.length !== 1) {
    console.error(`Usage: predex ${command} FILE`);
    return undefined;
  }
  return positionals[0];
}

function fail(error: unknown): number {
  if (!(error instanceof BackupError)) throw error;
  console.error(`predex: ${error.message}`);
  return 1;
}
