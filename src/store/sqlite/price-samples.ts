// SQLite adapter of the price samples (port: src/store/price-samples.ts): derived data in a table of
// its own, never journaled, never updated.

import type { PriceSample, PriceSampleStore } from "../price-samples.js";
import { applyMigrations, type SqliteDatabase } from "./database.js";

const migrations = [
  `CREATE TABLE realtime_price_samples (
     option_id INTEGER NOT NULL,
     time_ms INTEGER NOT NULL,
     price INTEGER NOT NULL,
     PRIMARY KEY (option_id, time_ms)
   ) WITHOUT ROWID`,
];

export function openPriceSampleStore(db: SqliteDatabase): PriceSampleStore {
  applyMigrations(db, "realtime-price-samples", migrations);
  const insert = db.prepare(
    // A sample of an (option, time) already there is kept: every node's sampler times an interval's
    // samples alike (src/realtime/price-samples.ts), and the first one stands.
    "INSERT INTO realtime_price_samples (option_id, time_ms, price) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
  );
  const insertAll = db.transaction((samples: readonly PriceSample[]) => {
    for (const sample of samples) insert.run(sample.optionId, sample.timeMs, sample.priceAtoms);
  });
  const range = db.prepare<[number, number, number, number], { time_ms: number; price: number }>(
    "SELECT time_ms, price FROM realtime_price_samples WHERE option_id = ? AND time_ms BETWEEN ? AND ? ORDER BY time_ms LIMIT ?",
  );
  return {
    insert: async (samples) => {
      insertAll(samples);
    },
    range: async (optionId, fromMs, toMs, limit) =>
      range
        .all(optionId, fromMs, toMs, limit)
        .map((row) => ({ optionId, timeMs: row.time_ms, priceAtoms: row.price })),
  };
}
