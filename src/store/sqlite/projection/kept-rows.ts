// Rows a projection step wrote, kept in memory for the next steps, so that a user's balance or
// position moved in every step (under load each step touches most active users) is read from SQLite
// once, not once a step (issue #31, cheaper writes). Only the exchange projector writes those
// columns, so what it last wrote is what the table holds, provided that write committed: the
// projector forgets everything kept when a step fails, and when a step does not continue the one
// before it (a failed commit is never followed by the next entries; see exchange-read-models.ts).
// Bounded: past `max` rows the oldest kept are forgotten (they are read again when next used).

export class KeptRows<Key, Row> {
  readonly #rows = new Map<Key, Row>();

  constructor(readonly max: number) {}

  get(key: Key): Row | undefined {
    return this.#rows.get(key);
  }

  /** Keeps `row` as the table now holds it (the caller passes a copy it will not change). */
  set(key: Key, row: Row): void {
    // Re-inserted last, so the bound forgets the rows least recently written first.
    this.#rows.delete(key);
    this.#rows.set(key, row);
    if (this.#rows.size > this.max) this.#rows.delete(this.#rows.keys().next().value as Key);
  }

  clear(): void {
    this.#rows.clear();
  }
}

/** Rows kept per table: ~100 bytes each, so a few MB at most; more active users are read again. */
export const keptRowsMax = 50_000;
