// WAL checkpoints off the event loop. SQLite copies the write-ahead log back into the database file
// (a checkpoint) in whichever commit pushes the log past 1,000 pages: that commit then writes and
// fsyncs megabytes on the engine's thread, 20–130 ms on a busy disk (bench:snapshot; a 128 KiB
// insert that triggers one takes that long instead of 0.3 ms). A snapshot's chunks add ~4.5 MB of
// log at a million orders, so each snapshot triggered one or two. Here the engine's connection
// never checkpoints (wal_autocheckpoint = 0); a worker thread with its own read-only-in-effect
// connection runs PASSIVE checkpoints on a timer. A PASSIVE checkpoint takes no write lock and
// waits for nobody, so the engine's commits go on while it copies and fsyncs on its own thread
// (SQLite's one-writer rule is about appending to the log, which the checkpointer never does).
//
// Should the worker fail, the engine's connection checkpoints by itself again, as before.

import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";
import type { SqliteDatabase } from "./database.js";

/** How often the worker checkpoints: the log grows by at most this long's commits in between. */
export const walCheckpointIntervalMsDefault = 1_000;
/** SQLite's own default, restored on the engine's connection when the checkpointer stops. */
const sqliteAutocheckpointPagesDefault = 1_000;

export interface WalCheckpointer {
  /** Stops the worker (waiting for a checkpoint in progress) and lets the connection checkpoint again. */
  stop(): Promise<void>;
}

// Plain CommonJS so the worker needs no loader; better-sqlite3 comes from where this module finds it.
const workerSource = `
const { parentPort, workerData } = require("node:worker_threads");
const Database = require(workerData.driverPath);
const db = new Database(workerData.path, { fileMustExist: true });
db.pragma("busy_timeout = 0");
const timer = setInterval(() => {
  try {
    db.pragma("wal_checkpoint(PASSIVE)");
  } catch (error) {
    parentPort.postMessage({ kind: "error", message: String(error && error.message) });
  }
}, workerData.intervalMs);
parentPort.on("message", () => {
  clearInterval(timer);
  db.close();
  parentPort.close();
});
`;

/**
 * Starts checkpointing `db` (a WAL database file at `path`) on a worker thread. `onError` hears a
 * failed checkpoint or a dead worker (the connection then checkpoints by itself again).
 */
export function startWalCheckpointer(
  db: SqliteDatabase,
  path: string,
  options: { intervalMs?: number; onError?: (error: Error) => void } = {},
): WalCheckpointer {
  const onError = options.onError ?? (() => {});
  const driverPath = createRequire(import.meta.url).resolve("better-sqlite3");
  const worker = new Worker(workerSource, {
    eval: true,
    workerData: { path, driverPath, intervalMs: options.intervalMs ?? walCheckpointIntervalMsDefault },
  });
  // A timer in a worker must not keep a stopping process alive.
  worker.unref();
  db.pragma("wal_autocheckpoint = 0");
  let stopped = false;
  let exited = false;
  const exit = new Promise<void>((resolve) =>
    worker.once("exit", () => {
      exited = true;
      resolve();
    }),
  );
  const fallBack = () => {
    if (db.open) db.pragma(`wal_autocheckpoint = ${sqliteAutocheckpointPagesDefault}`);
  };
  worker.on("message", (message: { kind: string; message: string }) => {
    onError(new Error(`WAL checkpoint failed: ${message.message}`));
  });
  worker.on("error", (error) => {
    fallBack();
    onError(error);
  });
  worker.on("exit", (code) => {
    if (stopped) return;
    fallBack();
    onError(new Error(`WAL checkpointer exited with ${code}`));
  });
  return {
    async stop() {
      if (stopped) return;
      stopped = true;
      if (!exited) {
        // Held open until it has exited: a process closing the platform waits for it.
        worker.ref();
        worker.postMessage("stop");
      }
      await exit;
      fallBack();
    },
  };
}
