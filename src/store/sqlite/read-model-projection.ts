// The read models' side of the deferred projection on SQLite (src/engine/deferred-projection.ts):
// each step runs the projectors over a run of committed journal entries and records the last
// sequence projected, in one transaction. The journal's own commits stay synchronous=FULL; a step
// commits with synchronous=NORMAL (no fsync of its own): after a power cut it may be lost, but then
// its recorded sequence is lost with it (the WAL is recovered as a prefix), and the next start
// projects those entries again from the durable journal. The next journal commit's fsync makes
// the step's frames durable too, since the WAL is written in order.

import type { ProjectionTarget } from "../../engine/deferred-projection.js";
import type { JournalEntry } from "../../engine/store.js";
import { applyMigrations, type SqliteDatabase } from "./database.js";
import { engineMigrations, type SqliteProjector } from "./engine-store.js";
import { withoutFsync } from "./synchronous-normal.js";

export const readModelPositionMigrations: readonly string[] = [
  // Read models written before this table existed were projected in each journal commit: they hold
  // the whole journal.
  `CREATE TABLE read_model_position (
     id INTEGER PRIMARY KEY CHECK (id = 1),
     projected_through INTEGER NOT NULL
   ) STRICT;
   INSERT INTO read_model_position (id, projected_through)
     SELECT 1, coalesce(max(sequence), 0) FROM journal;`,
];

export class SqliteReadModelProjection<Command, Event> implements ProjectionTarget<Command, Event> {
  readonly #selectPosition: () => bigint;
  readonly #step: (entries: readonly JournalEntry<Command, Event>[]) => void;

  constructor(
    readonly db: SqliteDatabase,
    projectors: readonly SqliteProjector<Command, Event>[],
  ) {
    // The position starts at the journal's end: the journal table must be there first.
    applyMigrations(db, "engine", engineMigrations);
    applyMigrations(db, "read-model-position", readModelPositionMigrations);
    const selectPosition = db
      .prepare<[], bigint>("SELECT projected_through FROM read_model_position WHERE id = 1")
      .pluck()
      .safeIntegers(true);
    const updatePosition = db.prepare<[bigint]>(
      "UPDATE read_model_position SET projected_through = ? WHERE id = 1",
    );
    this.#selectPosition = () => selectPosition.get()!;
    const step = db.transaction((entries: readonly JournalEntry<Command, Event>[]) => {
      const through = selectPosition.get()!;
      if (entries[0]!.sequence !== through + 1n) {
        throw new Error(
          `Projection out of order: the read models hold up to ${through}, the step starts at ${entries[0]!.sequence}`,
        );
      }
      for (const projector of projectors) {
        const returned: unknown = projector(db, entries);
        // A Promise would finish after COMMIT, outside the transaction: refuse it loudly.
        if (typeof (returned as PromiseLike<void> | undefined)?.then === "function") {
          throw new TypeError("SQLite projectors must be synchronous");
        }
      }
      updatePosition.run(entries.at(-1)!.sequence);
    });
    this.#step = (entries) => withoutFsync(db, () => step.immediate(entries));
  }

  projectedSequence(): bigint {
    return this.#selectPosition();
  }

  project(entries: readonly JournalEntry<Command, Event>[]): void {
    if (entries.length === 0) return;
    this.#step(entries);
  }
}
