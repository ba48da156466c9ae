// Which journal entry a forwarded command became. The leader writes (forward id → sequence) in the
// same transaction as the journal rows (a projector), so an API node whose answer was lost with a
// dead leader can ask, once another leader leads, whether its command committed: the row exists
// exactly when the command is in the journal. Identical commands from two submitters (two partners'
// same order, two nodes opening the same market) are never mistaken for each other, as matching by
// the command's text would.
//
// The rows are written by the engine store's journal append statement itself (the projector carries
// `forwardIdInAppendOf`, see ForwardIdsInAppend in engine-store.ts): one round trip fewer per batch.
//
// Rows are only needed while a retry can still come (the API node's failover deadline, seconds);
// they are kept for an hour and pruned by the projector itself, a bounded delete every few hundred
// batches.

import type { JournalEntry } from "../../engine/store.js";
import type { BatchStatementWriter, OneStatementRider } from "./batch-statement.js";
import type { PostgresClient, PostgresPool } from "./database.js";
import type { ForwardIdsInAppend, PostgresProjector } from "./engine-store.js";
import { applyPostgresMigrations } from "./migrations.js";

export const forwardedCommandsKeptMs = 60 * 60 * 1000;
const pruneEveryBatches = 500;
const pruneRowsMax = 10_000;

const forwardedCommandsMigrations: readonly string[] = [
  `CREATE TABLE engine_forwarded_commands (
     forward_id text PRIMARY KEY,
     sequence bigint NOT NULL,
     committed_at_ms bigint NOT NULL
   );
   CREATE INDEX engine_forwarded_commands_committed ON engine_forwarded_commands (committed_at_ms);`,
];

export async function applyForwardedCommandsMigrations(pool: PostgresPool): Promise<void> {
  await applyPostgresMigrations(pool, "engine_forwarding", forwardedCommandsMigrations);
}

const pruneStatement = {
  name: "predex-forwarding-prune",
  text: `DELETE FROM engine_forwarded_commands WHERE forward_id IN (
           SELECT forward_id FROM engine_forwarded_commands WHERE committed_at_ms < $1 LIMIT $2)`,
};
export const findForwardedStatement = {
  name: "predex-forwarding-find",
  text: `SELECT j.sequence, j.now_ms, j.command, j.events
         FROM engine_forwarded_commands f JOIN engine_journal j ON j.sequence = f.sequence
         WHERE f.forward_id = $1`,
};

/**
 * The projector that records forward ids; `forwardIdOf` gives the id a command object arrived with
 * (the engine journals the very object the command port submitted). The PostgreSQL engine store
 * writes the rows in its append statement; this projector prunes old ones.
 */
export async function createForwardedCommandsProjector<Command, Event>(
  pool: PostgresPool,
  forwardIdOf: (command: Command) => string | undefined,
): Promise<
  PostgresProjector<Command, Event> & ForwardIdsInAppend<Command> & OneStatementRider<Command, Event>
> {
  await applyForwardedCommandsMigrations(pool);
  let batches = 0;
  /** The prune's cutoff when this batch is one that prunes (every pruneEveryBatches-th). */
  const pruneCutoffMs = (entries: readonly JournalEntry<Command, Event>[]) => {
    batches += 1;
    return batches % pruneEveryBatches === 0 && entries.length > 0
      ? entries.at(-1)!.nowMs - forwardedCommandsKeptMs
      : undefined;
  };
  const projector = async (client: PostgresClient, entries: readonly JournalEntry<Command, Event>[]) => {
    const cutoffMs = pruneCutoffMs(entries);
    if (cutoffMs !== undefined) await client.query({ ...pruneStatement, values: [cutoffMs, pruneRowsMax] });
  };
  const oneStatement: BatchStatementWriter<Command, Event> = {
    writesInOneStatement: () => true,
    async prepare(_reader, entries) {
      const cutoffMs = pruneCutoffMs(entries);
      const part =
        cutoffMs === undefined
          ? undefined
          : { ctes: `forwarded_pruned AS (${pruneStatement.text})`, values: [cutoffMs, pruneRowsMax] };
      return { part, committed: () => {} };
    },
  };
  return Object.assign(projector, { forwardIdInAppendOf: forwardIdOf, oneStatement });
}
